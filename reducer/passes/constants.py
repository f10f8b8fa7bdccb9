"""Inline a constant: `constexpr int kTaps = 3;`, `static constexpr int kTileM = 128;` in a
class, or a `const` local the evaluator can compute. Every use (`S::kTileM` too) becomes the
literal and the declaration goes, in one item. This also replaces an expression by the value
its variable is known to hold: `const int wm = 2 / 2;` makes every `wm` a `1`.

Integer and bool constants only, so the literal has the declared type (`u` for unsigned): a
folded `float` or `long` could change the arithmetic around it.
"""
from __future__ import annotations

from tree_sitter import Node

from ..text.edits import Edit, Item, line_span
from ..text.source import Source
from .base import Pass
from .consteval import typed_literal
from .cxx import inside_template, int_type, spaced
from .folding import Query, ask, closed, scope_of
from .names import declaration_counts, local_names, scoped_ok, uses


class Constants(Pass):
    name = "constants"
    well_formed = True
    summary = "replace an integer constant by its value at every use, and delete it"
    needs_tree = True

    def enumerate(self, src: Source) -> list[Item]:
        counts, local, found = declaration_counts(src.root), None, []
        for node in src.nodes():
            if node.type not in ("declaration", "field_declaration") or node.has_error:
                continue
            if not any(c.text in (b"constexpr", b"const") for c in node.children):
                continue
            if node.parent is not None and node.parent.type == "template_declaration":
                continue  # a variable template (`always_false<T>`) takes arguments
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
            found.append((node, type_, name, _queries(src, node, type_, name, value)))
        answers = ask(src, [q for *_, queries in found for q in queries])
        items = []
        for node, type_, name, queries in found:
            folded = next((answers[q].number for q in queries if q in answers and answers[q].number is not None), None)
            if folded is None:
                continue
            text = typed_literal(type_.text, folded)
            local = local if local is not None else local_names(src)
            uses_ = uses(src, name.text, node, counts)
            if text is None or not uses_ or not scoped_ok(node, text, local):
                continue
            items.append((Edit(*line_span(src.text, node.start_byte, node.end_byte)),
                          *(spaced(src.text, s, e, text) for s, e in uses_)))
        return items


def _queries(src: Source, node: Node, type_: Node, name: Node, value: Node) -> list[Query]:
    """The constant's value: by its name where it is a namespace or class member (`S::kTileM`),
    and its initialiser converted to its type, if that looks up nothing local."""
    scope, out = scope_of(node), []
    qualified = _qualified_name(node, name.text)
    if qualified is not None:
        out.append(Query(qualified, scope))
    if value.type == "initializer_list":  # `constexpr int k{4};`
        value = value.named_children[0] if len(value.named_children) == 1 else None
    if value is not None and closed(src, value.text, node):
        out.append(Query(value.text, scope, type_.text))
    return out


def _qualified_name(node: Node, name: bytes) -> bytes | None:
    """`name` as seen from its namespace: itself at namespace scope, `A::B::name` in classes A
    and B (not templates); None for a local."""
    parts = [name]
    parent = node.parent
    while parent is not None and parent.type not in ("translation_unit", "declaration_list"):
        if parent.type == "field_declaration_list":
            cls = parent.parent
            cls_name = cls.child_by_field_name("name") if cls is not None else None
            if cls_name is None or cls_name.type != "type_identifier" or inside_template(cls):
                return None
            parts.insert(0, cls_name.text)
            parent = cls.parent
        elif parent.type in ("preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "linkage_specification",
                             "field_declaration", "declaration"):
            parent = parent.parent
        else:
            return None
    return b"::".join(parts) if parent is not None else None
