"""Inline a constant: `constexpr int kTaps = 3;`, `static constexpr int kTileM = 128;` in a
class, or a `const` local the evaluator can compute. Every use (`S::kTileM` too) becomes the
literal and the declaration goes, in one item. This also replaces an expression by the value
its variable is known to hold: `const int wm = 2 / 2;` makes every `wm` a `1`.

Integer and bool constants only, so the literal has the declared type (`u` for unsigned): a
folded `float` or `long` could change the arithmetic around it.
"""
from __future__ import annotations

import re

from tree_sitter import Node

from ..edits import Edit, Item, line_span
from ..source import Source
from .aliases import declaration_counts, scoped_ok, uses
from .base import Pass
from .consteval import ConstEval, literal
from .instantiate import local_names
from .syntax import spaced

_INT_TYPES = re.compile(rb"^(?:(?:signed|unsigned|int|short|bool)\s*)+$|^u?int(?:8|16|32)_t$")


def int_type(type_: Node) -> bool:
    return bool(_INT_TYPES.match(b" ".join(type_.text.split())))


def typed_literal(type_: bytes, value: int | bool) -> bytes | None:
    """`value` written with the integer type `type_` (`8u` for unsigned); None for a negative
    unsigned."""
    text = literal(bool(value) if type_ == b"bool" else value)
    if b"unsigned" in type_ or type_.startswith(b"uint"):
        return text + b"u" if value >= 0 else None
    return text


class Constants(Pass):
    name = "constants"
    summary = "replace an integer constant by its value at every use, and delete it"
    needs_tree = True

    def enumerate(self, src: Source) -> list[Item]:
        counts, ev, local, items = declaration_counts(src.root), None, None, []
        for node in src.nodes():
            if node.type not in ("declaration", "field_declaration") or node.has_error:
                continue
            if not any(c.text in (b"constexpr", b"const") for c in node.children):
                continue
            type_ = node.child_by_field_name("type")
            declarators = [c for i, c in enumerate(node.children) if node.field_name_for_child(i) == "declarator"]
            if type_ is None or not int_type(type_) or len(declarators) != 1:
                continue
            decl = declarators[0]
            if decl.type == "init_declarator":
                name, value = decl.child_by_field_name("declarator"), decl.child_by_field_name("value")
            else:
                name, value = decl, node.child_by_field_name("default_value")
            if value is None or name.type not in ("identifier", "field_identifier"):
                continue
            ev = ev or ConstEval(src)
            folded = ev.eval(value, {})
            if not isinstance(folded, (int, bool)):
                continue
            text = typed_literal(type_.text, folded)
            local = local if local is not None else local_names(src)
            found = uses(src, name.text, node, counts)
            if text is None or not found or not scoped_ok(node, text, local):
                continue
            items.append((Edit(*line_span(src.text, node.start_byte, node.end_byte)),
                          *(spaced(src.text, s, e, text) for s, e in found)))
        return items
