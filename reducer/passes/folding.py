"""What the folding passes (instantiate, constants, expr-constant) share: asking for constant
values. A pass writes each question as a `Query` (a closed expression and the namespaces it is
written in) and asks them all at once with `ask`: the compiler answers when the run has one
(the Source's `values`, reducer/values.py), the tree evaluator (consteval.py) otherwise.

A question is only asked about an expression that means at the end of the file what it means
where it stands: one that looks up no name declared in a function, a class or a parameter
list anywhere in the file (`closed`).
"""
from __future__ import annotations

import functools

from tree_sitter import Node

from ..lexer import tokenize
from ..source import Source
from ..values import Answers, Query, Value, confirmation
from .consteval import TreeValues
from .syntax import simple_name

__all__ = ["Query", "Value", "ask", "confirmation", "closed", "scope_of", "lookups", "local_names_anywhere"]


def ask(src: Source, queries: list[Query]) -> Answers:
    """Values of `queries` about `src`, all in one question to the compiler (or the tree)."""
    if not queries:
        return {}
    if src.values is not None:
        return src.values(queries)
    return TreeValues.of(src)(queries)


def scope_of(node: Node) -> tuple[bytes, ...]:
    """The namespaces around `node`, outermost first (b"" for an unnamed one)."""
    names = []
    node = node.parent
    while node is not None:
        if node.type == "namespace_definition":
            name = node.child_by_field_name("name")
            names.append(b"" if name is None else b"".join(name.text.split()))
        node = node.parent
    return tuple(reversed(names))


def lookups(text: bytes) -> set[bytes]:
    """The names `text` looks up where it stands: not a member (`.x`, `->x`) nor qualified (`S::x`)."""
    toks = tokenize(text)
    out = set()
    for i, t in enumerate(toks):
        if t.kind != "ident":
            continue
        before = text[toks[i - 1].start:toks[i - 1].end] if i else b""
        if before not in (b"::", b".", b"->"):
            out.add(text[t.start:t.end])
    return out


# Where a name declared inside is not a namespace member
_LOCAL_SCOPES = frozenset({"compound_statement", "field_declaration_list", "parameter_list", "template_parameter_list",
                           "lambda_expression", "for_statement", "for_range_loop", "condition_clause",
                           "requires_expression", "catch_clause", "requires_parameter_list"})
_DECLARING = frozenset({"parameter_declaration", "optional_parameter_declaration", "variadic_parameter_declaration",
                        "init_declarator", "alias_declaration", "type_definition", "function_definition",
                        "struct_specifier", "class_specifier", "union_specifier", "enum_specifier", "enumerator",
                        "function_declarator", "structured_binding_declarator"})
_TYPE_PARAMETERS = frozenset({"type_parameter_declaration", "optional_type_parameter_declaration",
                              "variadic_type_parameter_declaration", "template_template_parameter_declaration"})


@functools.lru_cache(maxsize=2)
def local_names_anywhere(src: Source) -> frozenset[bytes]:
    """Every name declared somewhere other than at namespace scope: locals, parameters, template
    parameters, class members."""
    names: set[bytes] = set()
    if src.root is None:
        return frozenset()
    stack: list[tuple[Node, bool]] = [(src.root, False)]
    while stack:
        node, local = stack.pop()
        if local:
            if node.type in _DECLARING:
                name = node.child_by_field_name("name") or node.child_by_field_name("declarator")
                if name is not None and (n := simple_name(name)) is not None:
                    names.add(n)
            elif node.type in _TYPE_PARAMETERS:
                names.update(c.text for c in node.named_children if c.type == "type_identifier")
            elif node.type in ("declaration", "field_declaration"):
                names.update(c.text for i, c in enumerate(node.children)
                             if node.field_name_for_child(i) == "declarator" and c.type in ("identifier", "field_identifier"))
            elif node.type == "structured_binding_declarator":
                names.update(c.text for c in node.named_children if c.type == "identifier")
        inner = local or node.type in _LOCAL_SCOPES
        stack.extend((c, inner) for c in node.children)
    return frozenset(names)


def closed(src: Source, text: bytes) -> bool:
    """Whether `text`, written at namespace scope, looks up only names no function, class or
    parameter list of the file declares."""
    return not (lookups(text) & local_names_anywhere(src))
