"""Structural literals that compile back. Clang prints a class-type value with its enum members as
bare numbers (`kernel_config{{1, 1}, 1, {2, 1}}`), and a number does not initialise an enum:
the literal fails to compile. `typed` casts each such number to its member's enum
(`kernel_config{{1, 1}, mfma_shape(1), {2, split_mode(1)}}`), reading the members' types from
the class definitions in the file. It is only a proposal: the pass still asks clang whether the
typed literal prints as the value it came from (values.confirmed).
"""
from __future__ import annotations

import functools
import re

from tree_sitter import Node

from ..text.source import Source, walk
from .cxx import simple_name
from .folding import scope_of

_HEAD = re.compile(rb"^((?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)(?=\{)")
_NUMBER = re.compile(rb"^\(?-?\d+\)?$")
_CLASSES = frozenset({"struct_specifier", "class_specifier"})


def typed(src: Source, literal: bytes, scope: tuple[bytes, ...]) -> bytes:
    """`literal` (as clang prints it) with its enum members cast, as written at `scope`; the
    literal unchanged where the file does not say (a base class, a member of an alias type)."""
    head = _HEAD.match(literal)
    if head is None or src.root is None:
        return literal
    parsed = _parse(literal[head.end():])
    if parsed is None:
        return literal
    decls = _declarations(src)
    out = _cast(parsed, head.group(1).split(b"::")[-1], decls, scope)
    return literal if out is None else head.group(1) + _text(out)


def _parse(text: bytes) -> list | None:
    """`{1, {2, 3}, (E)4}` -> [b'1', [b'2', b'3'], b'(E)4']; None if it is not one braced list."""
    stack: list[list] = []
    item, depth = bytearray(), 0
    for i, c in enumerate(text):
        ch = bytes([c])
        if ch == b"{" and not depth:
            stack.append([])
        elif ch in b"}," and not depth:
            if not stack:
                return None
            if item.strip():
                stack[-1].append(bytes(item.strip()))
            item = bytearray()
            if ch == b"}":
                done = stack.pop()
                if not stack:
                    return done if i == len(text) - 1 else None
                stack[-1].append(done)
        else:
            depth += (ch == b"(") - (ch == b")")
            item.append(c)
    return None


def _text(element) -> bytes:
    return element if isinstance(element, bytes) else b"{" + b", ".join(_text(e) for e in element) + b"}"


@functools.lru_cache(maxsize=2)
def _declarations(src: Source) -> dict[tuple[str, bytes], list[Node]]:
    """Per file version: ('class' | 'enum', name) -> the definitions of that name in the file."""
    found: dict[tuple[str, bytes], list[Node]] = {}
    for n in walk(src.root):
        kind = "class" if n.type in _CLASSES else "enum" if n.type == "enum_specifier" else None
        if kind and n.child_by_field_name("body") is not None and (name := simple_name(n)) is not None:
            found.setdefault((kind, name), []).append(n)
    return found


def _members(cls: Node) -> list[tuple[bytes | None, bool]] | None:
    """The class's non-static data members in order: (type's last name, whether an array); None
    when an aggregate's elements would not map onto them (a base class, a union)."""
    if cls.type not in _CLASSES or any(c.type == "base_class_clause" for c in cls.children):
        return None
    members = []
    for field in cls.child_by_field_name("body").named_children:
        if field.type != "field_declaration" or any(c.type == "storage_class_specifier" for c in field.children):
            continue
        name = simple_name(field.child_by_field_name("type"))  # `ns::E e;`, `enum class Order {...} order;`
        for d in field.children_by_field_name("declarator"):
            if d.type == "function_declarator":
                break
            members.append((name, d.type == "array_declarator"))
    return members


def _cast(elements: list, cls_name: bytes, decls: dict, scope: tuple[bytes, ...]) -> list | None:
    classes = decls.get(("class", cls_name), [])
    members = _members(classes[0]) if len(classes) == 1 else None
    if members is None or len(elements) > len(members):
        return None
    out = []
    for element, (type_name, array) in zip(elements, members):
        enums = decls.get(("enum", type_name), [])
        if isinstance(element, list) and not array and ("class", type_name) in decls:
            element = _cast(element, type_name, decls, scope)
            if element is None:
                return None
        elif isinstance(element, bytes) and _NUMBER.match(element) and not array and len(enums) == 1:
            element = _qualified(enums[0], scope) + b"(" + element.strip(b"()") + b")"
        out.append(element)
    return out


def _qualified(decl: Node, scope: tuple[bytes, ...]) -> bytes:
    """The name of `decl` as written at `scope`: qualified by its classes, and by those of its
    namespaces that `scope` is not inside (lookup from `scope` finds the rest)."""
    names = [simple_name(decl)]
    node = decl.parent
    while node is not None and node.type != "namespace_definition":
        if node.type in _CLASSES and (name := simple_name(node)) is not None:
            names.append(name)
        node = node.parent
    spaces, scope = _components(scope_of(decl)), _components(scope)
    shared = next((i for i, (a, b) in enumerate(zip(spaces, scope)) if a != b), min(len(spaces), len(scope)))
    names += reversed(spaces[shared:])
    return b"::".join(reversed(names))


def _components(scope: tuple[bytes, ...]) -> tuple[bytes, ...]:
    """`(b"mfconv::conv",)` (from `namespace mfconv::conv {`) -> `(b"mfconv", b"conv")`."""
    return tuple(part for name in scope for part in name.split(b"::"))
