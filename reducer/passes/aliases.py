"""Inline a type alias (`using S = Shape;`, `typedef int idx_t;`): every use becomes the aliased
type and the alias goes, in one item. Instantiated code is full of `S::kTileM`, `typename
S::Mma`; after this they name the type they mean, and the type's other uses become deletable.

Only names declared once in the file are inlined, so a use cannot mean something else; a
class or function-scope alias is inlined only when its type names nothing local to that scope.
"""
from __future__ import annotations

from ..text.edits import Edit, Item, line_span
from ..text.source import Source
from .base import Pass
from .cxx import spaced
from .names import declaration_counts, local_names, scoped_ok, uses


class Aliases(Pass):
    name = "aliases"
    summary = "replace a type alias by its type at every use, and delete it"
    needs_tree = True

    def enumerate(self, src: Source) -> list[Item]:
        counts, local, items = declaration_counts(src.root), None, []
        for node in src.nodes():
            if node.type == "alias_declaration":
                name, type_ = node.child_by_field_name("name"), node.child_by_field_name("type")
            elif node.type == "type_definition":
                name, type_ = node.child_by_field_name("declarator"), node.child_by_field_name("type")
                if name is None or name.type != "type_identifier":
                    continue  # function-pointer and array typedefs
            else:
                continue
            if name is None or type_ is None or node.has_error:
                continue
            if node.parent is not None and node.parent.type == "template_declaration":
                continue  # an alias template takes arguments
            local = local if local is not None else local_names(src)
            value = b" ".join(type_.text.split())
            found = uses(src, name.text, node, counts)
            if not found or not scoped_ok(node, value, local):
                continue
            keep_typename = b"::" in value and not value.startswith(b"typename ")
            edits = [spaced(src.text, s, e,
                            (b"typename " if keep_typename and src.text[s:s + 8] == b"typename" else b"") + value)
                     for s, e in found]
            items.append((Edit(*line_span(src.text, node.start_byte, node.end_byte)), *edits))
        return items
