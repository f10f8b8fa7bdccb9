"""Inline a type alias (`using S = Shape;`, `typedef int idx_t;`): every use becomes the aliased
type and the alias goes, in one item. Instantiated code is full of `S::kTileM`, `typename
S::Mma`; after this they name the type they mean, and the type's other uses become deletable.

Only names declared once in the file are inlined, so a use cannot mean something else; a
class or function-scope alias is inlined only when its type names nothing local to that scope.
"""
from __future__ import annotations

from collections import Counter

from tree_sitter import Node

from ..edits import Edit, Item, line_span
from ..source import Source, walk
from .base import Pass
from .instantiate import local_names, names_local
from .syntax import simple_name, spaced

_DECLARATORS = frozenset({"init_declarator", "parameter_declaration", "optional_parameter_declaration",
                          "type_parameter_declaration", "optional_type_parameter_declaration"})


def declaration_counts(root: Node) -> Counter:
    """How often each name is declared under `root` (variables, parameters, aliases, fields,
    functions)."""
    counts: Counter = Counter()
    for node in walk(root):
        if node.type in ("alias_declaration", "type_definition"):
            counts[simple_name(node.child_by_field_name("name") or node.child_by_field_name("declarator"))] += 1
        elif node.type in _DECLARATORS or node.type == "function_declarator":
            counts[simple_name(node.child_by_field_name("declarator") or node.child_by_field_name("name"))] += 1
        elif node.type in ("field_declaration", "declaration"):
            for i, c in enumerate(node.children):
                if node.field_name_for_child(i) == "declarator" and c.type in ("identifier", "field_identifier"):
                    counts[c.text] += 1
    return counts


def uses(src: Source, name: bytes, decl: Node, counts: Counter) -> list[tuple[int, int]] | None:
    """Byte ranges of the uses of the `name` that `decl` declares: in the rest of its block for a
    local, in the whole file for a name declared once there; None when unsure."""
    scope = decl.parent
    if scope is not None and scope.type == "field_declaration_list" and counts[name] > 1:
        if any(src.text[t.start:t.end] == name and i and src.text[src.tokens[i - 1].start:src.tokens[i - 1].end] == b"::"
               for i, t in enumerate(src.tokens)):
            return None  # `X::name` may be this member
    elif scope is None or scope.type != "compound_statement":
        return _ranges(src, name, decl, len(src.text), False) if counts[name] == 1 else None
    return _ranges(src, name, decl, scope.end_byte, True) if declaration_counts(scope)[name] == 1 else None


def _ranges(src: Source, name: bytes, decl: Node, limit: int, local: bool) -> list[tuple[int, int]] | None:
    """Uses of `name` up to `limit`, each widened over its qualifier (`S::kTaps`, `typename
    S::Mma`). A member access or a use before the declaration is another entity for a local,
    and makes a file-wide name unsure."""
    toks, text, out = src.tokens, src.text, []
    lex = [text[t.start:t.end] for t in toks]
    for i, t in enumerate(toks):
        if t.kind != "ident" or lex[i] != name or decl.start_byte <= t.start < decl.end_byte or t.start >= limit:
            continue
        if t.start < decl.start_byte or (i and lex[i - 1] in (b".", b"->")):
            if local:
                continue
            return None
        j = i
        while j >= 2 and lex[j - 1] == b"::" and toks[j - 2].kind == "ident":
            j -= 2
        if j >= 1 and lex[j - 1] == b"typename":
            j -= 1
        out.append((toks[j].start, t.end))
    return out


def scoped_ok(node: Node, value: bytes, local: set[bytes]) -> bool:
    """A declaration in a class or function body may move out of it only if `value` names no
    name declared in such a body (`Shape::Mma` is fine: only its first name is looked up here)."""
    parent = node.parent
    if parent is None or parent.type not in ("field_declaration_list", "compound_statement"):
        return True
    return not names_local(value, local)


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
            edits = [spaced(src.text, s, e, (b"typename " if keep_typename and src.text[s:s + 8] == b"typename" else b"")
                            + value) for s, e in found]
            items.append((Edit(*line_span(src.text, node.start_byte, node.end_byte)), *edits))
        return items
