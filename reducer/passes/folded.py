"""Fold the conditions that have the same constant value in every instantiation of the code
around them, as the compiler says (the footprint, text/footprint.py): `if (c) A else B` becomes
the branch taken, `c ? a : b` the operand taken. An `if constexpr` whose branch no instantiation
takes (emptied by `unreached`) loses its condition here.

An `if` with an init-statement or a condition variable keeps its condition: what it declares
may be used in the branch. Without a compiler to ask, the pass proposes nothing.
"""
from __future__ import annotations

from ..text.edits import Edit, Item
from ..text.source import Source
from .base import Pass


class Folded(Pass):
    name = "folded"
    well_formed = True
    summary = "replace a condition constant in every instantiation by the branch it takes (clang plugin)"
    carries_items = True  # its enumeration asks the footprint

    def enumerate(self, src: Source) -> list[Item]:
        fp = src.values.footprint(src.text) if src.values is not None else None
        if fp is None:
            return []
        items = []
        for c in fp.conditions:
            taken = c.then if c.value else c.orelse
            if c.init:
                continue
            if c.kind == "?:":
                if taken is None:  # `c ?: b` keeps its value in the condition
                    continue
                replacement = b"(" + src.text[taken[0]:taken[1]] + b")"
            else:
                replacement = src.text[taken[0]:taken[1]] if taken is not None else b"{}"
            items.append((Edit(c.begin, c.end, replacement),))
        return sorted(items)
