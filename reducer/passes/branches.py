"""Delete a `case` of a switch or the `else` of an if: the dispatch (on a data type, a layout, a
direction) through which a library instantiates many kernels and helpers where the bug needs
one. Few items, so it is cheap to try before the deletion of everything else; `tree-delete`
would reach them only after every shallower node of the file."""
from __future__ import annotations

from ..edits import Item, deletion, line_span
from ..source import Source
from .base import Pass

_BRANCHES = frozenset({"case_statement", "else_clause"})


class Branches(Pass):
    name = "branches"
    summary = "delete cases of a switch and else branches (dispatch to other instantiations), first"
    needs_tree = True

    def enumerate(self, src: Source) -> list[Item]:
        if src.root is None:
            return []
        items, stack = [], [src.root]
        while stack:
            node = stack.pop()
            if node.type in _BRANCHES:
                items.append(deletion(*line_span(src.text, node.start_byte, node.end_byte)))
                continue  # a branch inside a deleted one goes with it
            stack.extend(reversed(node.children))
        return items
