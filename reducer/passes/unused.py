"""Delete declarations nothing refers to: a function, type, alias, variable, template or macro
whose name occurs nowhere outside its own declaration, and every `static_assert` (it declares
nothing, and no code depends on it: mfconv's `static_assert(select_wgrad_config(...) >= 0)` was
what kept the host heuristics, and with them the config table, alive).

Tree deletion reaches the same declarations, but mixed with used ones: its big chunks fail and
ddmin pays a test per halving. Here every item is a likely success, so the first chunk (all of
them) usually passes in one test. Kernels are roots, never unused.
"""
from __future__ import annotations

import bisect
import re
from collections import defaultdict

from tree_sitter import Node

from ..text.edits import Item, deletion, line_span
from ..text.source import Source
from .base import Pass
from .cxx import CONTINUATION, DEFINE, deletable, directives, entity_name, kernel_head, simple_name

_IDENT = re.compile(rb"[A-Za-z_]\w*")
_KINDS = frozenset({
    "function_definition", "declaration", "template_declaration", "struct_specifier", "class_specifier",
    "union_specifier", "enum_specifier", "alias_declaration", "type_definition", "field_declaration",
    "preproc_def", "preproc_function_def",
})


def declared_names(node: Node) -> list[bytes]:
    """Names a declaration introduces (an unscoped enum: its enumerators too); [] when unsure."""
    t = node.type
    if t == "template_declaration":
        entity = node.named_children[-1] if node.named_children else None
        return [n] if entity is not None and (n := _entity_or_decl_name(entity)) else []
    if t in ("declaration", "field_declaration", "type_definition"):
        names = [simple_name(d) for i, d in enumerate(node.children) if node.field_name_for_child(i) == "declarator"]
        if not names:  # `struct S {...};` is a declaration of its type
            type_ = node.child_by_field_name("type")
            return declared_names(type_) if type_ is not None and type_.type in _KINDS else []
        return names if all(names) else []
    if t == "enum_specifier":
        body, name = node.child_by_field_name("body"), node.child_by_field_name("name")
        if body is None:
            return []
        scoped = any(c.type in ("class", "struct") for c in node.children)
        enumerators = [] if scoped else [e.child_by_field_name("name").text for e in body.named_children
                                         if e.type == "enumerator"]
        return ([name.text] if name is not None else []) + enumerators
    n = _entity_or_decl_name(node)
    return [n] if n else []


def _entity_or_decl_name(node: Node) -> bytes | None:
    if node.type in ("struct_specifier", "class_specifier", "union_specifier", "function_definition"):
        if node.type != "function_definition" and node.child_by_field_name("body") is None:
            return None
        return entity_name(node)
    if node.type in ("alias_declaration", "concept_definition", "preproc_def", "preproc_function_def"):
        name = node.child_by_field_name("name")
        return name.text if name is not None else None
    if node.type == "declaration":
        names = declared_names(node)
        return names[0] if len(names) == 1 else None
    return None


def _is_kernel(node: Node) -> bool:
    """A `__global__` function outside a template: an entry point. A kernel template nothing
    instantiates emits no code."""
    return node.type != "template_declaration" and (kernel_head(node) or any(
        _is_kernel(c) for c in node.named_children if c.type in ("function_definition", "declaration")))


class Unused(Pass):
    name = "unused"
    well_formed = True
    summary = "delete a declaration whose name occurs nowhere else, and static_asserts"
    needs_tree = True

    def enumerate(self, src: Source) -> list[Item]:
        where: dict[bytes, list[int]] = defaultdict(list)
        for tok in src.tokens:
            if tok.kind == "ident":
                where[src.text[tok.start:tok.end]].append(tok.start)
        starts = [t.start for t in src.tokens]
        items, covered = [], 0  # nothing inside an unused declaration is proposed on its own
        fields: dict = {}
        longest = None  # the longest positional braced list of the file, when a data member asks
        ranged: bool | None = None  # whether the file has a range-based `for`, when a `begin` or `end` asks
        pasted = _pasted_pieces(src.text)
        for node in src.nodes():
            if node.type in _KINDS or node.type == "static_assert_declaration":
                if not _starts_a_declaration(src, starts, node):
                    continue  # `length(index_t d) const {...}` of `MACRO constexpr long_index_t length(...)`
            if node.type == "static_assert_declaration" and node.start_byte >= covered and deletable(node, fields):
                items.append(deletion(*line_span(src.text, node.start_byte, node.end_byte)))
                covered = node.end_byte
                continue
            if (node.start_byte < covered or node.type not in _KINDS or not deletable(node, fields)
                    or _is_kernel(node)):
                continue
            names = declared_names(node)
            # an operator (`operator==`, used as `a == b`) has no name a token shows; nor has a
            # conversion function or a destructor
            if not names or b"main" in names or not all(_IDENT.fullmatch(n) for n in names):
                continue
            if any(piece in n for piece in pasted for n in names):
                continue  # a macro may paste the name together where no token shows it
            if _RANGE_FOR_NAMES & set(names):
                ranged = _ranged(src) if ranged is None else ranged
                if ranged:
                    continue  # what a range-based `for` calls without naming it
            if (index := _member_index(node)) is not None:
                longest = _longest_positional(src) if longest is None else longest
                if index < longest:
                    continue  # `return {true, ms, nullptr};` may fill it: `excess elements` without it
            if all(_inside(where[n], node) == len(where[n]) for n in names):
                end = node.end_byte
                nxt = node.next_sibling
                if nxt is not None and nxt.type == ";" and node.type.endswith("_specifier"):
                    end = nxt.end_byte
                items.append(deletion(*line_span(src.text, node.start_byte, end)))
                covered = end
        return items


_BEFORE = frozenset({b";", b"}", b"{", b":"})
# a range-based `for` calls its range's `begin` and `end` (members or found by ADL): on a ck_tile
# result, 13 of `unused`'s 26 failed builds deleted a `map`'s (`invalid range expression`)
_RANGE_FOR_NAMES = frozenset({b"begin", b"end"})


_PASTED = re.compile(rb"(\w+)\s*##|##\s*(\w+)")


def _pasted_pieces(text: bytes) -> set[bytes]:
    """The pieces, not a parameter's, that a #define pastes onto a name with `##`: ck_tile's
    `sname_##_to_##dname_` makes `float_to_fp16`, which no token of the file spells (14 of
    `unused`'s failed builds in a ck_tile run, "use of undeclared identifier"). A declared name
    holding one is not unused while that macro is there. A paste of parameters alone names
    nothing that can be told: left alone."""
    pieces: set[bytes] = set()
    for start, end in directives(text):
        m = DEFINE.match(CONTINUATION.sub(b" ", text[start:end]))
        if m is None or b"##" not in m.group(3):
            continue
        params = set(re.findall(rb"\w+", m.group(2) or b""))
        pieces.update(p for pair in _PASTED.findall(m.group(3)) for p in pair if p and p not in params)
    return pieces


def _ranged(src: Source) -> bool:
    return any(n.type == "for_range_loop" for n in src.nodes())


def _starts_a_declaration(src: Source, starts: list[int], node: Node) -> bool:
    """Whether `node` starts where a declaration can: after `;`, `}`, `{`, an access label's `:`,
    a preprocessor line, or at the top. A node after anything else is the tail of a declaration
    tree-sitter split at a macro it does not know (`MFCONV_HOST_DEVICE constexpr long_index_t`
    then `length(index_t d) const {...}`); deleting it leaves the head behind."""
    i = bisect.bisect_left(starts, node.start_byte) - 1
    toks = src.tokens
    while i >= 0 and toks[i].kind == "comment":
        i -= 1
    if i < 0:
        return True
    prev = src.text[toks[i].start:toks[i].end]
    line = src.text.rfind(b"\n", 0, toks[i].start) + 1
    return prev in _BEFORE or src.text[line:toks[i].start].lstrip().startswith(b"#")


def _member_index(node: Node) -> int | None:
    """For a data member of a class without constructors (an aggregate, which a braced list may
    fill in order): how many bases and data members come before it; else None."""
    body = node.parent
    cls = body.parent if node.type == "field_declaration" and body is not None else None
    if cls is None or cls.type not in ("struct_specifier", "class_specifier") or _function_member(node) \
            or any(c.type == "storage_class_specifier" for c in node.children):
        return None
    name = cls.child_by_field_name("name")
    if any(c.type in ("field_declaration", "declaration", "function_definition") and _function_member(c)
           and name is not None and simple_name(c.child_by_field_name("declarator")) == simple_name(name)
           for c in body.named_children):
        return None  # constructors: a braced list calls one
    bases = next((c for c in cls.children if c.type == "base_class_clause"), None)
    index = len([c for c in bases.named_children if c.type != "access_specifier"]) if bases is not None else 0
    for c in body.named_children:
        if c.start_byte >= node.start_byte:
            return index
        if c.type == "field_declaration" and not _function_member(c) \
                and not any(k.type == "storage_class_specifier" for k in c.children):
            index += len(c.children_by_field_name("declarator"))
    return index


def _function_member(node: Node) -> bool:
    decl = node.child_by_field_name("declarator")
    while decl is not None and decl.type in ("pointer_declarator", "reference_declarator"):
        decl = decl.child_by_field_name("declarator")
    return decl is not None and decl.type == "function_declarator"


def _longest_positional(src: Source) -> int:
    """The most elements a braced list without designators has in the file."""
    return max((len(n.named_children) for n in src.nodes() if n.type == "initializer_list"
                and not any(c.type == "initializer_pair" for c in n.named_children)), default=0)


def _inside(positions: list[int], node: Node) -> int:
    return bisect.bisect_left(positions, node.end_byte) - bisect.bisect_left(positions, node.start_byte)
