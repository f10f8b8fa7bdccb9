"""Delete elements of comma-separated lists: call and template arguments, initializer-list
elements, enumerators, base classes, constructor member initializers. `apply` repairs the
separators."""
from __future__ import annotations

from ..text.edits import Item, deletion
from ..text.source import Source
from .base import Pass
from .cxx import elements

_LISTS = frozenset({
    "argument_list", "template_argument_list", "initializer_list", "enumerator_list",
    "base_class_clause", "field_initializer_list",
})


class ListElements(Pass):
    name = "list-elements"
    summary = "delete elements of comma-separated lists: arguments, template arguments, initializers, declarators"
    needs_tree = True

    def enumerate(self, src: Source) -> list[Item]:
        items = []
        for node in src.nodes():
            if node.type in _LISTS:
                items += [deletion(e.start_byte, e.end_byte) for e in elements(node)]
            elif node.type in ("declaration", "field_declaration"):
                items += _declarators(node)
        return items


def _declarators(node) -> list[Item]:
    """`int n, c, h;` -> one item per declarator, each taking a neighbouring comma with it (a
    comma after a type is no list separator `apply` could repair)."""
    decls = [c for i, c in enumerate(node.children) if node.field_name_for_child(i) == "declarator"]
    if len(decls) < 2:
        return []
    items = [deletion(d.start_byte, nxt.start_byte) for d, nxt in zip(decls, decls[1:])]
    items.append(deletion(decls[-2].end_byte, decls[-1].end_byte))
    return items


class Initializers(Pass):
    """`int x = f(y);` -> `int x;`, default arguments and default member initializers."""

    name = "initializers"
    summary = "drop initializers: `int x = f(y);` -> `int x;`, default arguments and member initializers"
    needs_tree = True

    def enumerate(self, src: Source) -> list[Item]:
        items = []
        for node in src.nodes():
            if node.type in ("init_declarator", "optional_parameter_declaration",
                             "optional_type_parameter_declaration"):
                decl = node.child_by_field_name("declarator") or node.child_by_field_name("name")
                if decl is not None:
                    items.append(deletion(decl.end_byte, node.end_byte))
            elif node.type == "field_declaration":
                value = node.child_by_field_name("default_value")
                if value is not None:
                    prev = value.prev_sibling
                    start = prev.start_byte if prev is not None and prev.type == "=" else value.start_byte
                    items.append(deletion(start, value.end_byte))
        return items
