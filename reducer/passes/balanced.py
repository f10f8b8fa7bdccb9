"""Balanced-delimiter removal, C-Reduce style: a pair with its contents, its contents only, or
the delimiters only. Brackets are matched on tokens (robust in unparsable regions); `<>` is
ambiguous in C++ text, so angle pairs come from template lists in the tree."""
from __future__ import annotations

from ..text.edits import Edit, Item
from ..text.source import Source
from .base import Pass

_PAIRS = {b"(": b")", b"[": b"]", b"{": b"}"}
_TEMPLATE_LISTS = ("template_argument_list", "template_parameter_list")


def _pairs(src: Source, opener: bytes) -> list[tuple[int, int, int, int]]:
    """(open_start, open_end, close_start, close_end) of each matched pair, outermost first."""
    if opener == b"<":
        return [(n.start_byte, n.start_byte + 1, n.end_byte - 1, n.end_byte)
                for n in src.nodes() if n.type in _TEMPLATE_LISTS and n.text.endswith(b">")]
    closer = _PAIRS[opener]
    found, stack = [], []
    for tok in src.tokens:
        if tok.kind != "punct":
            continue
        lexeme = src.text[tok.start:tok.end]
        if lexeme == opener:
            stack.append(tok)
        elif lexeme == closer and stack:
            o = stack.pop()
            found.append((o.start, o.end, tok.start, tok.end))
    found.sort()
    return found


class Balanced(Pass):
    """One pass per delimiter and mode: `whole` deletes a pair with its contents, `contents`
    what is between, `delimiters` the pair alone."""

    def __init__(self, name: str, summary: str, opener: bytes, mode: str):
        super().__init__(name, summary)
        self.opener, self.mode = opener, mode
        self.needs_tree = opener == b"<"

    def enumerate(self, src: Source) -> list[Item]:
        items: list[Item] = []
        for os_, oe, cs, ce in _pairs(src, self.opener):
            if self.mode == "whole":
                items.append((Edit(os_, ce),))
            elif self.mode == "contents" and cs > oe:
                items.append((Edit(oe, cs),))
            elif self.mode == "delimiters":
                items.append((Edit(os_, oe), Edit(cs, ce)))
        return items


_KINDS = ((b"{", "braces", "{...} pair"), (b"(", "parens", "(...) pair"), (b"[", "brackets", "[...] pair"),
          (b"<", "angles", "template <...> list"))
_MODES = (("whole", "", "delete a {} with its contents"),
          ("contents", "-contents", "delete the contents of a {}"),
          ("delimiters", "-delimiters", "delete the delimiters of a {}, keeping its contents"))


def balanced_passes() -> list[Pass]:
    """braces, braces-contents, braces-delimiters, parens, ... angles-delimiters."""
    return [Balanced(name + suffix, summary.format(shown), opener, mode)
            for opener, name, shown in _KINDS for mode, suffix, summary in _MODES]
