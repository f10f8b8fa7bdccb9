"""Forward a local's initialiser (clang_delta's copy-propagation): a function-local declared with
one initialiser free of side effects and never written has each use replaced by the initialiser
and its declaration deleted, in one item. `int ch = lane; atomicAdd(dw + ch, v);` becomes
`atomicAdd(dw + lane, v);`, `bool has_next = 1 < n; if (has_next)` becomes `if (1 < n)`.

The initialiser is pasted as written where it is a primary expression or the use stands alone
(an argument, a condition, an initialiser), else in parentheses. It must mean the same at every
use: no name it reads is declared again or written after the declaration in its block, nor has
its address taken in the function; one that reads memory (`a[i]`, `*p`, `p->k`) moves only when
nothing after the declaration in the block assigns or calls. Offered only when the file shrinks
(a short initialiser used often, or a long one used once). Two items that interact (`int p =
tid; int pos = p;`: one rewrites inside the other's deleted line) clash in their edits, and
`edits.compatible` keeps the more shrinking one; the other comes at the next enumeration.
"""
from __future__ import annotations

import re
from bisect import bisect_left

from tree_sitter import Node

from ..text.edits import Edit, Item, compatible, growth, line_span
from ..text.source import Source, walk
from .base import Pass
from .cxx import spaced
from .names import declaration_counts, declarations, looked_up, uses, written_at

# a variable these qualify is shared, kept between calls or read by something else
_QUALIFIERS = frozenset({b"static", b"extern", b"volatile", b"__shared__", b"thread_local", b"register"})
# what a side-effect-free initialiser is made of (calls only as named casts, below)
_PURE = frozenset({
    "identifier", "number_literal", "char_literal", "string_literal", "concatenated_string", "true", "false",
    "null", "nullptr", "this", "field_expression", "field_identifier", "subscript_expression",
    "subscript_argument_list", "unary_expression", "binary_expression", "conditional_expression",
    "cast_expression", "parenthesized_expression", "qualified_identifier", "namespace_identifier",
    "pointer_expression", "sizeof_expression", "argument_list",
})
# The types whose variable reads as its initialiser wherever it is used: `int`, `unsigned`, `bool`,
# `float`, `double`, `auto`. A narrower one would not (`uint16_t abs_xx = xx & 0x7fff;`:
# `bit_cast<half>(xx & 0x7fff)` takes an int), nor a class or vector (`bf16x8_t b = fk;` splats
# an int no builtin takes); a 64-bit one only when its initialiser is a name, not arithmetic
# done narrower (`uint64_t one = 1;`: `one << 40` becomes `1 << 40`). Pointers all.
_SAME = re.compile(rb"(?:(?:signed|unsigned|int|bool|float|double)\s*)+|u?int32_t|auto")
_WIDE = re.compile(rb"(?:(?:signed|unsigned|long|int)\s*)+|u?int64_t|size_t|ptrdiff_t|u?intptr_t")
_NAMES = frozenset({"identifier", "field_expression", "qualified_identifier"})
_CASTS = frozenset({b"static_cast", b"reinterpret_cast", b"const_cast"})
# an initialiser of these kinds binds tighter than any operator around its use
_PRIMARY = frozenset({
    "identifier", "number_literal", "char_literal", "string_literal", "true", "false", "null", "nullptr", "this",
    "field_expression", "subscript_expression", "qualified_identifier", "parenthesized_expression", "call_expression",
})
# (parent type, field) where a use is a whole expression: anything may stand there unparenthesised
_ALONE = frozenset({
    ("init_declarator", "value"), ("argument_list", None), ("condition_clause", "value"), ("return_statement", None),
    ("expression_statement", None), ("assignment_expression", "right"), ("subscript_argument_list", None),
    ("parenthesized_expression", None), ("initializer_list", None),
})


class Forward(Pass):
    name = "forward"
    well_formed = True
    summary = "replace a never-written local by its initialiser at every use, and delete it"
    needs_tree = True

    def enumerate(self, src: Source) -> list[Item]:
        counts, items = None, []
        for node in src.nodes():
            found = _candidate(node)
            if found is None:
                continue
            name, value = found
            counts = counts if counts is not None else declaration_counts(src.root)
            at = uses(src, name.text, node, counts)
            if not at or any(written_at(src.text, s, e) for s, e in at) or not _stable(src, node, value, at):
                continue
            if _copied(node) and any(_argument(src, s, e) for s, e in at):
                continue
            bare = value.type in _PRIMARY
            edits = [Edit(*line_span(src.text, node.start_byte, node.end_byte))]
            edits += [spaced(src.text, s, e, value.text if bare or _alone(src, s, e)
                             else b"(" + value.text + b")") for s, e in at]
            if growth(edits) < 0:
                items.append(tuple(edits))
        return compatible(items, lambda i: (growth(items[i]), i))


def _candidate(node: Node) -> tuple[Node, Node] | None:
    """(name, initialiser) of a function-local declaring one plain or pointer variable with `=`
    and a side-effect-free initialiser; None for anything else."""
    if node.type != "declaration" or node.has_error or node.parent is None or node.parent.type != "compound_statement":
        return None
    if any(c.text in _QUALIFIERS for c in node.children):
        return None
    decls = [c for i, c in enumerate(node.children) if node.field_name_for_child(i) == "declarator"]
    if len(decls) != 1 or decls[0].type != "init_declarator":
        return None
    name, value = decls[0].child_by_field_name("declarator"), decls[0].child_by_field_name("value")
    type_, pointer = node.child_by_field_name("type"), name is not None and name.type == "pointer_declarator"
    while name is not None and name.type == "pointer_declarator":
        name = name.child_by_field_name("declarator")
    if name is None or value is None or not pointer and not _reads_as(type_, value):
        return None
    if name.type != "identifier" or not _pure(value):
        return None
    return name, value


def _copied(node: Node) -> bool:
    """Whether the declaration `node` makes an `auto` copy: of a `const` object it is not
    `const`, and may be passed where a reference is written through."""
    type_ = node.child_by_field_name("type")
    return type_ is not None and type_.text == b"auto" and not any(c.text in (b"const", b"constexpr")
                                                                    for c in node.children)


def _argument(src: Source, start: int, end: int) -> bool:
    """Whether the use at [start, end) is a whole argument of a call, which may bind it to a
    non-const reference and write it (ck_tile's `auto coord = coord_tmp;` moved by
    `move_window_adaptor_and_bottom_tensor_thread_coordinate(coord, ...)`: forwarded, `coord_tmp`
    is `const` there and does not bind)."""
    use = src.root.descendant_for_byte_range(start, end)
    parent = use.parent if use is not None else None
    return parent is not None and parent.type == "argument_list" and parent.parent is not None \
        and parent.parent.type == "call_expression"


def _reads_as(type_: Node | None, value: Node) -> bool:
    """Whether a variable of `type_` initialised with `value` reads as `value` at its uses."""
    if type_ is None:
        return False
    spelled = b" ".join(type_.text.split())
    return _SAME.fullmatch(spelled) is not None or _WIDE.fullmatch(spelled) is not None and value.type in _NAMES


def _pure(value: Node) -> bool:
    """Whether evaluating `value` changes nothing: no call but a named cast, no assignment,
    increment, `new` or lambda."""
    stack = [value]
    while stack:
        node = stack.pop()
        if node.type == "call_expression":
            fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
            cast = fn.child_by_field_name("name") if fn is not None and fn.type == "template_function" else None
            if cast is None or cast.text not in _CASTS or args is None:
                return False
            stack.append(args)
        elif node.type == "type_descriptor":
            continue  # `sizeof(T)`, `(int)x`: a type
        elif node.is_named and node.type not in _PURE:
            return False
        else:
            stack.extend(node.children)
    return True


def _stable(src: Source, node: Node, value: Node, at: list[tuple[int, int]]) -> bool:
    """Whether `value`, evaluated at each use in `at`, gives what it gave at the declaration
    `node`: what it reads is neither redeclared nor written in the rest of the block, nor
    address-taken in the function, and no use is inside a lambda (its captures would change)."""
    block, text, reads = node.parent, src.text, looked_up(value.text)
    if any(name in reads and where.start_byte >= node.end_byte for name, where in declarations(block)):
        return False
    function = block
    while function.parent is not None and function.type not in ("function_definition", "lambda_expression"):
        function = function.parent
    toks = src.tokens
    for t in toks[bisect_left(toks, function.start_byte, key=lambda t: t.start):]:
        if t.start >= function.end_byte:
            break
        if t.kind != "ident" or text[t.start:t.end] not in reads:
            continue
        if text[max(0, t.start - 1):t.start] == b"&" or node.end_byte <= t.start < block.end_byte \
                and written_at(text, t.start, t.end):
            return False
    if _reads_memory(value) and any(n.type in ("assignment_expression", "update_expression", "call_expression")
                                    and n.start_byte >= node.end_byte for n in walk(block)):
        return False
    for s, e in at:
        up = src.root.descendant_for_byte_range(s, e)
        while up is not None and up.id != block.id:
            if up.type == "lambda_expression":
                return False
            up = up.parent
    return True


def _reads_memory(value: Node) -> bool:
    """Whether `value` loads through a pointer or array: `a[i]`, `*p`, `p->k`."""
    for n in walk(value):
        if n.type == "subscript_expression":
            return True
        op = n.child_by_field_name("operator") if n.type in ("pointer_expression", "field_expression") else None
        if op is not None and op.text in (b"*", b"->"):
            return True
    return False


def _alone(src: Source, start: int, end: int) -> bool:
    """Whether the use at [start, end) is a whole expression where it stands (an argument, a
    condition, an initialiser, a right-hand side)."""
    use = src.root.descendant_for_byte_range(start, end)
    parent = use.parent if use is not None else None
    if parent is None:
        return False
    i = next(i for i, c in enumerate(parent.children) if c.id == use.id)
    field = parent.field_name_for_child(i)
    return (parent.type, field) in _ALONE or field is None and (parent.type, None) in _ALONE
