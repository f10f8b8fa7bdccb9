"""Re-base table lookups: `configs[120]` on a braced table becomes `configs[0]` with the 120
elements before it deleted. A config-table reproducer keeps one element alive by index, so no
deletion alone can shrink the table below that index; this one edit can."""
from __future__ import annotations

from collections import defaultdict

from ..text.edits import Edit, Item
from ..text.source import Source
from .base import Pass
from .cxx import elements


def _tables(src: Source) -> dict[bytes, list]:
    """Name -> element nodes, for `T name[] {...}` / `T name[N] = {...}` declarations."""
    tables = {}
    for node in src.nodes():
        if node.type != "init_declarator":
            continue
        decl, value = node.child_by_field_name("declarator"), node.child_by_field_name("value")
        if decl is None or value is None or decl.type != "array_declarator" or value.type != "initializer_list":
            continue
        name = decl.child_by_field_name("declarator")
        if name is not None and name.type == "identifier":
            tables[name.text] = elements(value)
    return tables


def _literal_uses(src: Source, names) -> dict[bytes, list[tuple[int, int, int]]]:
    """Name -> (start, end, value) of each literal index in `name [ N ]`, found on tokens since
    the tree may read `configs[2]` in a template argument as an array type."""
    uses = defaultdict(list)
    toks, text = src.tokens, src.text
    lexeme = lambda t: text[t.start:t.end]  # noqa: E731
    for i in range(len(toks) - 3):
        name, open_, number, close = toks[i:i + 4]
        if (lexeme(name) in names and lexeme(open_) == b"[" and number.kind == "number"
                and lexeme(close) == b"]" and lexeme(number).isdigit()):
            uses[lexeme(name)].append((number.start, number.end, int(lexeme(number))))
    return uses


class RebaseIndex(Pass):
    name = "rebase-index"
    well_formed = True
    summary = "re-base a table lookup: `configs[120]` becomes `configs[0]` and the table head goes"
    needs_tree = True

    def enumerate(self, src: Source) -> list[Item]:
        tables = _tables(src)
        items = []
        for name, uses in _literal_uses(src, tables).items():
            elems = tables[name]
            for n in sorted({v for _, _, v in uses}):
                if n == 0 or n >= len(elems) or any(v < n for _, _, v in uses):
                    continue
                edits = [Edit(s, e, str(v - n).encode()) for s, e, v in uses]
                edits.append(Edit(elems[0].start_byte, elems[n].start_byte))
                items.append(tuple(edits))
        return items
