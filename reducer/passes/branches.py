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
        items, inside = [], -1  # end of the branch last taken: one inside it goes with it
        for node in src.nodes():  # pre-order: an outer branch comes before the ones it holds
            if node.type in _BRANCHES and node.start_byte >= inside:
                items.append(deletion(*line_span(src.text, node.start_byte, node.end_byte)))
                inside = node.end_byte
        return items
