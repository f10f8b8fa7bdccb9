"""Rewrites that make a reduced file read like code a person wrote, run once after the reduction.

A reduction keeps whatever the test still accepts: `int t;` for a counter whose `= 0` went,
`for (int t; S::kTaps;)` for a loop whose bound went, stray `;` and labels nothing jumps to. A
reviewer stops reading there. Each rule below proposes items (edits, as a pass does); the run
keeps them only when the file is still interesting, so they may grow the file a little but never
lose the bug.

Which rules run follows the oracle. Initialising scalars and bounding loops takes undefined
behaviour out of a miscompile or spill reproducer, where a compiler engineer's first question is
whether the code is defined; in a front-end diagnostic case (a script that greps an error) they
only add bytes. So those two (`DEFINING`) run by default with the built-in spill oracle and not
with a script (`--initialise` turns them on, `--no-initialise` off); the rules that only delete
always run.
"""
from __future__ import annotations

from typing import Callable

from tree_sitter import Node

from .edits import Edit, Item
from .source import Source

_NO_INIT = frozenset({"static", "extern", "thread_local", "register"})  # `__shared__` is a macro, see below
_SHARED = (b"__shared__", b"__attribute__((shared))", b"constexpr", b"constinit")


def initialise_scalars(src: Source, original: Source) -> list[Item]:
    """`int t;` -> `int t = 0;` and `T x;` -> `T x{};` for local variables declared without an
    initialiser (arrays, statics and LDS are left alone)."""
    items = []
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
        if var is not None and var in _identifiers(node.child_by_field_name("condition")) and _header(node, original.text):
            headers.setdefault(var, _header(node, original.text))
    items = []
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
    targets = {n.child_by_field_name("label").text for n in src.nodes()
               if n.type == "goto_statement" and n.child_by_field_name("label") is not None}
    items = []
    for n in src.nodes():
        label = n.child_by_field_name("label") if n.type == "labeled_statement" else None
        body = n.named_children[-1] if n.named_child_count > 1 else None
        if label is not None and body is not None and label.text not in targets:
            items.append((Edit(n.start_byte, body.start_byte),))
    return items


RULES: dict[str, Callable[[Source, Source], list[Item]]] = {
    "initialise-scalars": initialise_scalars,
    "bound-loops": bound_loops,
    "drop-empty-statements": drop_empty_statements,
    "drop-unused-labels": drop_unused_labels,
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
    words = {c.text.decode() for c in node.children if c.type in ("storage_class_specifier", "type_qualifier")}
    return bool(words & _NO_INIT) or any(s in node.text for s in _SHARED)


def _loop_variable(node: Node) -> bytes | None:
    if node.type != "for_statement":
        return None
    init = node.child_by_field_name("initializer")
    if init is None or init.type != "declaration":
        return None
    d = init.child_by_field_name("declarator")
    d = d.child_by_field_name("declarator") if d is not None and d.type == "init_declarator" else d
    return d.text if d is not None and d.type == "identifier" else None


def _identifiers(node: Node | None) -> set[bytes]:
    if node is None:
        return set()
    out, stack = set(), [node]
    while stack:
        n = stack.pop()
        if n.type == "identifier":
            out.add(n.text)
        stack.extend(n.children)
    return out


def _header_span(node: Node) -> tuple[int | None, int]:
    """Bytes of a `for`'s parenthesised header, parentheses included."""
    opening = next((c for c in node.children if c.type == "("), None)
    closing = next((c for c in node.children if c.type == ")"), None)
    return (opening.start_byte, closing.end_byte) if opening is not None and closing is not None else (None, 0)


def _header(node: Node, text: bytes) -> bytes:
    start, end = _header_span(node)
    return text[start:end] if start is not None else b""
