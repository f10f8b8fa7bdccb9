"""Hierarchical delta debugging (HDD, as in Perses): delete whole statements, declarations,
members, preprocessor lines and #pragma lines, level by level from the outside in."""
from __future__ import annotations

from tree_sitter import Node

from ..text.edits import Item, deletion, line_span
from ..text.source import Source
from .base import Pass
from .cxx import deletable


class TreeDelete(Pass):
    name = "tree-delete"
    summary = "delete statements, declarations, members and preprocessor lines, outermost first (HDD)"
    needs_tree = True

    def items(self, src: Source, level: int) -> list[Item] | None:
        """The deletable nodes with `level` deletable ancestors; None when there are none, and so
        none deeper either."""
        if src.root is None:
            return None
        fields: dict = {}
        items: list[Item] = []
        # (node, parent, deletable ancestors): the walk carries parents, since Node.parent descends
        # from the root, and it stops at this level's nodes, so deep nesting stays cheap
        stack: list[tuple[Node, Node | None, int]] = [(src.root, None, 0)]
        while stack:
            node, parent, depth = stack.pop()
            if parent is not None and deletable(node, fields, parent):
                if depth == level:
                    items.append(deletion(*line_span(src.text, node.start_byte, node.end_byte)))
                    continue
                depth += 1
            stack.extend((c, node, depth) for c in reversed(node.children))
        return items or None
