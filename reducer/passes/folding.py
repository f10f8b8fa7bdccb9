"""What the folding passes (instantiate, constants, expr-constant) share: asking for constant
values. A pass writes each question as a `Query` (a closed expression and the namespaces it is
written in) and asks them all at once with `ask`: the compiler answers when the run has one
(the Source's `values`, reducer/text/values.py), the tree evaluator (consteval.py) otherwise.

A question is only asked about an expression that means at the end of the file what it means
where it stands: one that looks up no name declared by a function, block, class or template
around it (`closed`).
"""
from __future__ import annotations

import functools

from tree_sitter import Node

from ..text.lexer import tokenize
from ..text.source import Source
from ..text.values import Answers, Query, Value, confirmation
from .consteval import TreeValues
from .cxx import simple_name

__all__ = ["Query", "Value", "ask", "confirmation", "closed", "scope_of", "lookups", "enclosing_names"]


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


# Scopes other than namespaces, and the kinds of node that declare a name
_SCOPES = frozenset({"compound_statement", "field_declaration_list", "function_definition", "template_declaration",
                     "lambda_expression", "for_statement", "for_range_loop", "catch_clause", "requires_expression",
                     "if_statement", "while_statement", "switch_statement"})
_DECLARING = frozenset({"parameter_declaration", "optional_parameter_declaration", "variadic_parameter_declaration",
                        "init_declarator", "alias_declaration", "type_definition", "function_definition",
                        "struct_specifier", "class_specifier", "union_specifier", "enum_specifier", "enumerator",
                        "function_declarator"})
_TYPE_PARAMETERS = frozenset({"type_parameter_declaration", "optional_type_parameter_declaration",
                              "variadic_type_parameter_declaration", "template_template_parameter_declaration"})


def _declared_in(scope: Node) -> frozenset[bytes]:
    """The names `scope` itself declares (not those of scopes nested in it): a block's locals, a
    function's or template's parameters, a class's members."""
    names: set[bytes] = set()
    stack = list(scope.children)
    if scope.type == "template_declaration":  # its parameters; the entity's name is the namespace's
        stack = [c for c in stack if c.type == "template_parameter_list"]
    while stack:
        node = stack.pop()
        if node.type in _DECLARING:
            name = node.child_by_field_name("name") or node.child_by_field_name("declarator")
            if name is not None and (n := simple_name(name)) is not None:
                names.add(n)
        elif node.type in _TYPE_PARAMETERS:
            names.update(c.text for c in node.named_children if c.type == "type_identifier")
        elif node.type in ("declaration", "field_declaration"):
            names.update(c.text for i, c in enumerate(node.children) if node.field_name_for_child(i) == "declarator"
                         and c.type in ("identifier", "field_identifier"))
        elif node.type == "structured_binding_declarator":
            names.update(c.text for c in node.named_children if c.type == "identifier")
        if node.type in _SCOPES or node.type in ("struct_specifier", "class_specifier", "union_specifier"):
            continue  # a nested scope: seen when it encloses the expression
        stack.extend(node.children)
    return frozenset(names)


@functools.lru_cache(maxsize=2)
def _scopes(src: Source) -> dict[int, frozenset[bytes]]:
    """Per file version: scope node id -> the names it declares, filled as questions need them."""
    return {}


def enclosing_names(src: Source, at: Node) -> set[bytes]:
    """Every name a function, block, class or template around `at` declares: what an expression
    there may mean other than what the same text means at namespace scope."""
    names: set[bytes] = set()
    known = _scopes(src)
    node = at.parent
    while node is not None:
        if node.type in _SCOPES:
            if node.id not in known:
                known[node.id] = _declared_in(node)
            names |= known[node.id]
        node = node.parent
    return names


def closed(src: Source, text: bytes, at: Node) -> bool:
    """Whether `text`, standing at `at`, means the same at namespace scope: it looks up no name
    that a function, block, class or template parameter list around `at` declares."""
    return not (lookups(text) & enclosing_names(src, at))
