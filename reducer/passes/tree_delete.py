"""Hierarchical delta debugging (HDD, as in Perses): delete whole statements, declarations,
members, preprocessor lines and #pragma lines, level by level from the outside in."""
from __future__ import annotations

from ..edits import Item, deletion, line_span
from ..source import Source
from .base import Pass
from .syntax import deletable


class TreeDelete(Pass):
    name = "tree-delete"
    needs_tree = True

    def items(self, src: Source, round: int) -> list[Item] | None:
        if src.root is None:
            return None
        depth: dict[int, int] = {}  # node id -> number of deletable ancestors (incl. itself)
        fields: dict = {}
        items, deeper = [], False
        for node in src.nodes():
            parent_depth = depth.get(node.parent.id, 0) if node.parent is not None else 0
            removable = deletable(node, fields)
            here = depth[node.id] = parent_depth + removable
            if removable:
                if here - 1 == round:
                    items.append(deletion(*line_span(src.text, node.start_byte, node.end_byte)))
                elif here - 1 > round:
                    deeper = True
        return items if items or deeper else None
