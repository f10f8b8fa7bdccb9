"""Rewrites that make a reduced file read like code a person wrote, run once after the reduction.

A reduction keeps whatever the test still accepts: `int t;` for a counter whose `= 0` went,
`for (int t; S::kTaps;)` for a loop whose bound went, stray `;` and labels nothing jumps to. A
reviewer stops reading there. Each rule below proposes items (edits, as a pass does); the run
keeps them only when the file is still interesting, so they may grow the file a little but never
lose the bug.

Sinks (`sink_variants`, applied by reducer/run/finish.py after the rules): a store or atomic through
null or a constant address (`atomicAdd(0, v)`, `*(float *)16 = v`), which a reduction reaches
because a literal is shorter than the output parameter, is undefined behaviour a reviewer sends
back; it becomes one through a pointer parameter of the kernel, the first of several choices
that is still interesting.

Which rules run follows the oracle. Initialising scalars and bounding loops takes undefined
behaviour out of a miscompile or spill reproducer, where a compiler engineer's first question is
whether the code is defined; in a front-end diagnostic case (a script that greps an error) they
only add bytes. So those two (`DEFINING`) run by default with the built-in spill oracle and not
with a script (`--initialise` turns them on, `--no-initialise` off); the rules that only delete
always run.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from tree_sitter import Node

from ..text.edits import Edit, Item
from ..text.source import Source
from .cxx import ATOMIC_CALL

_NO_INIT = frozenset({"static", "extern", "thread_local", "register"})  # `__shared__` is a macro, see below
_SHARED = (b"__shared__", b"__attribute__((shared))", b"constexpr", b"constinit")


def initialise_scalars(src: Source, original: Source) -> list[Item]:
    """`int t;` -> `int t = 0;` and `T x;` -> `T x{};` for local variables declared without an
    initialiser (arrays, statics and LDS are left alone)."""
    items: list[Item] = []
    for node in src.nodes():
        if node.type != "declaration" or not _local(node) or _no_init(node):
            continue
        type_node = node.child_by_field_name("type")
        init = b" = 0" if type_node is not None and type_node.type == "primitive_type" else b"{}"
        for d in node.children_by_field_name("declarator"):
            if d.type in ("identifier", "pointer_declarator"):
                items.append((Edit(d.end_byte, d.end_byte, init if d.type == "identifier" else b"{}"),))
    return items


def bound_loops(src: Source, original: Source) -> list[Item]:
    """A `for` whose condition no longer reads its own variable gets back the header the
    original had for a loop over a variable of that name: `for (int t; 3;)` -> `for (int t = 0;
    t < 3; ++t)`."""
    headers: dict[bytes, bytes] = {}
    for node in original.nodes():
        var = _loop_variable(node)
        if var is not None and var in _identifiers(node.child_by_field_name("condition")) \
                and _header(node, original.text):
            headers.setdefault(var, _header(node, original.text))
    items: list[Item] = []
    for node in src.nodes():
        var = _loop_variable(node)
        if var is None or var not in headers or var in _identifiers(node.child_by_field_name("condition")):
            continue
        start, end = _header_span(node)
        if start is not None:
            items.append((Edit(start, end, headers[var]),))
    return items


def drop_empty_statements(src: Source, original: Source) -> list[Item]:
    """A lone `;` inside a block."""
    return [(Edit(n.start_byte, n.end_byte),) for n in src.nodes()
            if n.type == "expression_statement" and n.named_child_count == 0
            and n.parent is not None and n.parent.type == "compound_statement"]


def drop_unused_labels(src: Source, original: Source) -> list[Item]:
    """`lbl: x = 1;` -> `x = 1;` when no `goto lbl` is left."""
    targets = {_text(label) for n in src.nodes()
               if n.type == "goto_statement" and (label := n.child_by_field_name("label")) is not None}
    items: list[Item] = []
    for n in src.nodes():
        label = n.child_by_field_name("label") if n.type == "labeled_statement" else None
        body = n.named_children[-1] if n.named_child_count > 1 else None
        if label is not None and body is not None and _text(label) not in targets:
            items.append((Edit(n.start_byte, body.start_byte),))
    return items


def drop_empty_attributes(src: Source, original: Source) -> list[Item]:
    """`__attribute__(())`, an attribute list a reduction emptied, with the blanks after it."""
    items: list[Item] = []
    for n in src.nodes():
        if n.type == "attribute_specifier" and re.sub(rb"\s", b"", _text(n)) == b"__attribute__(())":
            end = n.end_byte
            while end < len(src.text) and src.text[end:end + 1] in (b" ", b"\t"):
                end += 1
            items.append((Edit(n.start_byte, end),))
    return items


RULES: dict[str, Callable[[Source, Source], list[Item]]] = {
    "initialise-scalars": initialise_scalars,
    "bound-loops": bound_loops,
    "drop-empty-statements": drop_empty_statements,
    "drop-unused-labels": drop_unused_labels,
    "drop-empty-attributes": drop_empty_attributes,
}
# the rules that add code to make behaviour defined (on for the spill oracle, an option for scripts)
DEFINING = ("initialise-scalars", "bound-loops")


def rules(initialise: bool) -> dict[str, Callable[[Source, Source], list[Item]]]:
    """The rules a run applies: all of them, or without `DEFINING` ones."""
    return {name: rule for name, rule in RULES.items() if initialise or name not in DEFINING}


def _local(node: Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type in ("compound_statement", "for_statement"):
            return True
        if parent.type in ("translation_unit", "declaration_list", "field_declaration_list"):
            return False
        parent = parent.parent
    return False


def _no_init(node: Node) -> bool:
    words = {_text(c).decode() for c in node.children if c.type in ("storage_class_specifier", "type_qualifier")}
    return bool(words & _NO_INIT) or any(s in _text(node) for s in _SHARED)


def _loop_variable(node: Node) -> bytes | None:
    if node.type != "for_statement":
        return None
    init = node.child_by_field_name("initializer")
    if init is None or init.type != "declaration":
        return None
    d = init.child_by_field_name("declarator")
    d = d.child_by_field_name("declarator") if d is not None and d.type == "init_declarator" else d
    return _text(d) if d is not None and d.type == "identifier" else None


def _identifiers(node: Node | None) -> set[bytes]:
    if node is None:
        return set()
    out, stack = set(), [node]
    while stack:
        n = stack.pop()
        if n.type == "identifier":
            out.add(_text(n))
        stack.extend(n.children)
    return out


def _header_span(node: Node) -> tuple[int | None, int]:
    """Bytes of a `for`'s parenthesised header, parentheses included."""
    opening = next((c for c in node.children if c.type == "("), None)
    closing = next((c for c in node.children if c.type == ")"), None)
    return (opening.start_byte, closing.end_byte) if opening is not None and closing is not None else (None, 0)


def _text(node: Node) -> bytes:
    """A node's text, which every node of a tree parsed from bytes (a Source's) has."""
    assert node.text is not None
    return node.text


def _header(node: Node, text: bytes) -> bytes:
    start, end = _header_span(node)
    return text[start:end] if start is not None else b""


_NULL_WORDS = (b"nullptr", b"NULL")
# pointee types tried for a new parameter when nothing says which (the common element types first)
_SINK_TYPES = (b"float", b"int", b"unsigned", b"double")
_MAX_SINK_VARIANTS = 6


def sink_variants(src: Source, original: Source) -> list[list[Item]]:
    """For each kernel that stores or does atomics through null or a constant address, the ways
    to make them go through a pointer parameter of the kernel instead, most likely first: a
    pointer parameter it has (of the cast's type, when the address is cast to one); one the
    original's kernel of the same name had (its declaration and name, e.g. `float *__restrict__
    dw`), added; a new `T *out` for a few element types. Each variant is one item with every
    such address of the kernel; the caller keeps the first that is still interesting."""
    targets: dict[int, tuple[Node, list[tuple[Node, bytes | None]]]] = {}
    for node in src.nodes():
        found = _constant_address(node)
        if found is None:
            continue
        kernel = _enclosing_kernel(node)
        if kernel is not None:
            targets.setdefault(kernel.id, (kernel, []))[1].append(found)
    out = []
    for kernel, addresses in targets.values():
        params = _parameter_list(kernel)
        if params is None:
            continue
        casts = list(dict.fromkeys(t for _, t in addresses if t is not None))
        wanted = casts[0] if len(casts) == 1 else None  # the pointee type the code names, if it names one
        variants: list[tuple[bytes, Edit | None]] = []  # (name to use, the parameter to add)
        for _, name, pointee in _pointer_parameters(params):
            if wanted in (None, pointee):
                variants.append((name, None))
        taken = _identifiers(src.root)
        kernel_name = _kernel_name(kernel)
        for other in (original.nodes() if original.root is not None else ()):
            if other.type == "function_definition" and _is_kernel(other) and _kernel_name(other) == kernel_name:
                other_params = _parameter_list(other)
                for decl, name, pointee in _pointer_parameters(other_params) if other_params is not None else ():
                    if wanted in (None, pointee) and name not in taken:
                        variants.append((name, _add_parameter(params, _text(decl))))
                break
        fresh = next(n for n in (b"out", *(b"out%d" % i for i in range(1, 100))) if n not in taken)
        for pointee in dict.fromkeys([*([wanted] if wanted else []), *_SINK_TYPES]):
            variants.append((fresh, _add_parameter(params, pointee + b" *" + fresh)))
        items = []
        for name, added in variants[:_MAX_SINK_VARIANTS]:
            edits = [Edit(n.start_byte, n.end_byte, name) for n, _ in addresses]
            items.append((*edits, *([added] if added is not None else [])))
        out.append(items)
    return out


def _constant_address(node: Node) -> tuple[Node, bytes | None] | None:
    """When `node` writes through null or a constant address, that address expression (with
    its parentheses and casts) and the type it is cast to a pointer of, if any."""
    address = None
    if node.type == "call_expression":
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if fn is not None and fn.type == "identifier" and ATOMIC_CALL.fullmatch(_text(fn)) and args is not None \
                and args.named_child_count:
            address = args.named_children[0]
    elif node.type == "assignment_expression":
        left = node.child_by_field_name("left")
        if left is not None and left.type == "pointer_expression" and left.children[0].type == "*":
            address = left.child_by_field_name("argument")
        elif left is not None and left.type == "subscript_expression":
            address = left.child_by_field_name("argument")
    if address is None:
        return None
    pointee = _null_constant(address)
    if isinstance(pointee, bool):  # False: not a literal address
        return None
    return address, pointee or None


def _null_constant(node: Node) -> bytes | bool:
    """False unless `node` is a literal address (0, nullptr, NULL, a number, in parentheses and
    pointer casts); then the type its cast points to (b"" when not cast)."""
    if node.type == "parenthesized_expression" and node.named_child_count == 1:
        return _null_constant(node.named_children[0])
    if node.type == "cast_expression":
        value = node.child_by_field_name("value")
        inner = _null_constant(value) if value is not None else False
        type_ = node.child_by_field_name("type")
        if inner is False or type_ is None:
            return False
        text = re.sub(rb"\s+", b" ", _text(type_)).strip()
        return text[:-1].strip() if text.endswith(b"*") else inner
    if node.type == "number_literal" or node.type in ("nullptr", "null") or _text(node) in _NULL_WORDS:
        return b""
    return False


def _is_kernel(fn: Node) -> bool:
    body = fn.child_by_field_name("body")
    head = _text(fn)[:body.start_byte - fn.start_byte] if body is not None else _text(fn)
    return re.search(rb"\b__global__\b|__attribute__\s*\(\(\s*global\b", head) is not None


def _enclosing_kernel(node: Node) -> Node | None:
    at: Node | None = node
    while at is not None and at.type != "function_definition":
        at = at.parent
    return at if at is not None and _is_kernel(at) else None


def _declarator(fn: Node) -> Node | None:
    d = fn.child_by_field_name("declarator")
    while d is not None and d.type != "function_declarator":
        d = d.child_by_field_name("declarator")
    return d


def _kernel_name(fn: Node) -> bytes | None:
    d = _declarator(fn)
    name = d.child_by_field_name("declarator") if d is not None else None
    return name.text if name is not None else None


def _parameter_list(fn: Node) -> Node | None:
    d = _declarator(fn)
    return d.child_by_field_name("parameters") if d is not None else None


def _pointer_parameters(params: Node) -> list[tuple[Node, bytes, bytes]]:
    """(declaration, name, pointee type) of each parameter that is a pointer to non-const."""
    out = []
    for p in params.named_children:
        d = p.child_by_field_name("declarator") if p.type == "parameter_declaration" else None
        type_ = p.child_by_field_name("type") if d is not None else None
        if d is None or type_ is None or d.type != "pointer_declarator" or b"const" in _text(p).split(b"*")[0]:
            continue
        name = d.child_by_field_name("declarator")
        if name is not None and name.type == "identifier":
            out.append((p, _text(name), _text(type_)))
    return out


def _add_parameter(params: Node, declaration: bytes) -> Edit:
    """The edit that appends `declaration` to a parameter list (`()` and `(void)` included)."""
    inner = [c for c in params.named_children if c.type != "comment"]
    if not inner or len(inner) == 1 and _text(inner[0]).strip() == b"void":
        return Edit(params.start_byte + 1, params.end_byte - 1, declaration)
    return Edit(params.end_byte - 1, params.end_byte - 1, b", " + declaration)
