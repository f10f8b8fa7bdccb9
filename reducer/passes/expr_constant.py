"""Replace an expression by a constant (C-Reduce's "replace expression by 0/1"): by the value
the evaluator folds it to, `0` or `1`, only where an expression is read (initialisers,
arguments, operands, conditions, returns, right-hand sides, subscripts), never where it is
written, and never in template arguments, array sizes, attributes or preprocessor lines, which
would mostly just break, nor in the address of an atomic or the initialiser of a pointer (a
literal there is a store through null: undefined behaviour; cxx.written_address). Round 0 holds
the variables known to hold a constant: an integer local or global initialised with one and never
written, whose every use becomes the value and whose declaration goes. Round 1 + 3*d + k holds
the k-th alternative of the expressions under d others, so whole expressions go before their
parts and one chunk never mixes two choices for one expression.
"""
from __future__ import annotations

import functools
from typing import NamedTuple

from tree_sitter import Node

from ..text.edits import Edit, Item, line_span
from ..text.source import Source
from .base import Pass
from .consteval import typed_literal
from .cxx import int_type, spaced, written_address
from .folding import Query, ask, closed, scope_of
from .names import declaration_counts, uses, written_at

# (parent type, field) where a child is read as a value; None: any named child
_VALUE_AT = frozenset({
    ("init_declarator", "value"), ("argument_list", None), ("initializer_list", None), ("initializer_pair", "value"),
    ("binary_expression", "left"), ("binary_expression", "right"), ("condition_clause", "value"),
    ("for_statement", "condition"), ("conditional_expression", "condition"),
    ("conditional_expression", "consequence"), ("conditional_expression", "alternative"),
    ("return_statement", None), ("assignment_expression", "right"), ("subscript_argument_list", None),
    ("parenthesized_expression", None), ("unary_expression", "argument"), ("cast_expression", "value"),
})
# literals are left to the token passes: a test to shorten `32` to `1` is rarely worth it
_EXPRESSIONS = frozenset({
    "identifier", "qualified_identifier",
    "binary_expression", "unary_expression", "call_expression", "field_expression", "subscript_expression",
    "parenthesized_expression", "conditional_expression", "cast_expression", "sizeof_expression",
    "pointer_expression", "update_expression", "compound_literal_expression",
})
# subtrees never entered: constant contexts (template arguments, array sizes, attributes),
# unevaluated operands and what does not parse; and the conditions of `#if` and `case`
_OPAQUE = frozenset({
    "template_argument_list", "array_declarator", "launch_bounds", "attribute_specifier", "attribute_declaration",
    "attribute", "static_assert_declaration", "enumerator_list", "template_parameter_list", "bitfield_clause",
    "preproc_arg", "sizeof_expression", "decltype", "alignof_expression", "lambda_expression", "ERROR",
})
_CONSTANT_FIELDS = frozenset({("preproc_if", "condition"), ("preproc_elif", "condition"), ("case_statement", "value")})
_ALTERNATIVES = 3


class ExprConstant(Pass):
    name = "expr-constant"
    well_formed = True
    summary = "replace an expression by its folded value, 0 or 1; a never-written variable by its value"
    needs_tree = True

    def items(self, src: Source, level: int) -> list[Item] | None:
        if src.root is None:
            return None
        found = _found(src)
        if level == 0:
            return found.known
        depth, alt = divmod(level - 1, _ALTERNATIVES)
        if depth >= len(found.by_depth):
            return None
        return [(spaced(src.text, s, e, alts[alt]),) for s, e, alts in found.by_depth[depth] if alt < len(alts)]


class _Found(NamedTuple):
    known: list[Item]  # level 0
    by_depth: list[list[tuple[int, int, list[bytes]]]]  # per depth: (start, end, shorter replacements)


@functools.lru_cache(maxsize=1)
def _found(src: Source) -> _Found:
    """The items of every level, computed once per file version: the values they need are asked
    in one question."""
    nodes: dict[int, Query] = {}
    by_depth: list[list[Node]] = []
    stack: list[tuple[Node, int]] = [(src.root, 0)]
    while stack:
        node, depth = stack.pop()
        for i, child in enumerate(node.children):
            field = node.field_name_for_child(i)
            if (node.type, field) in _CONSTANT_FIELDS:
                continue
            below = depth
            if child.type in _EXPRESSIONS and not child.has_error and (
                    (node.type, field) in _VALUE_AT or field is None and (node.type, None) in _VALUE_AT) \
                    and not written_address(child):
                while len(by_depth) <= depth:
                    by_depth.append([])
                by_depth[depth].append(child)
                if len(child.text) > 1 and closed(src, child.text, child):
                    nodes[child.id] = Query(child.text, scope_of(child))
                below += 1
            if child.type not in _OPAQUE:
                stack.append((child, below))
    declarations = _declarations(src)
    answers = ask(src, [*nodes.values(), *(q for *_, q in declarations)])
    levels = []
    for level in by_depth:
        found = []
        for child in level:
            value = answers.get(nodes.get(child.id))
            alts = _alternatives(child, value.text if value is not None and not value.structural else None)
            if alts:
                found.append((child.start_byte, child.end_byte, alts))
        levels.append(sorted(found))
    while levels and not levels[-1]:
        levels.pop()
    return _Found(_known_values(src, declarations, answers), levels)


def _alternatives(node: Node, folded: bytes | None) -> list[bytes]:
    out = []
    for text in (folded, b"0", b"1"):
        if text is not None and text not in out and len(text) < len(node.text):
            out.append(text)
    return out


def _declarations(src: Source) -> list[tuple[Node, Node, Node, Query]]:
    """Non-const integer variables with a single initialiser that looks up nothing local:
    (declaration, type, name, the question of the initialiser's value)."""
    out = []
    for node in src.nodes():
        if node.type != "declaration" or node.has_error or node.parent.type not in (
                "compound_statement", "translation_unit", "declaration_list"):
            continue
        if any(c.text in (b"const", b"constexpr", b"volatile", b"extern", b"__shared__") for c in node.children):
            continue
        type_ = node.child_by_field_name("type")
        decls = [c for i, c in enumerate(node.children) if node.field_name_for_child(i) == "declarator"]
        if type_ is None or not int_type(type_) or len(decls) != 1 or decls[0].type != "init_declarator":
            continue
        name, value = decls[0].child_by_field_name("declarator"), decls[0].child_by_field_name("value")
        if name is None or name.type != "identifier" or value is None or not closed(src, value.text, node):
            continue
        out.append((node, type_, name, Query(value.text, scope_of(node), type_.text)))
    return out


def _known_values(src: Source, declarations: list, answers: dict) -> list[Item]:
    """A non-const integer variable initialised with a constant and never written: its uses
    become the value and its declaration goes (const ones are `constants`' work)."""
    counts, items = None, []
    for node, type_, name, query in declarations:
        value = answers.get(query)
        text = typed_literal(type_.text, value.number) if value is not None and value.number is not None else None
        if text is None:
            continue
        counts = counts if counts is not None else declaration_counts(src.root)
        found = uses(src, name.text, node, counts)
        if not found or any(written_at(src.text, s, e) for s, e in found):
            continue
        start, end = line_span(src.text, node.start_byte, node.end_byte)
        if sum(len(text) - (e - s) for s, e in found) < end - start:
            items.append((Edit(start, end), *(spaced(src.text, s, e, text) for s, e in found)))
    return items
