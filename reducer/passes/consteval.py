"""A small constant evaluator over the file's tree: integer and boolean expressions, config
structs built from (positional or designated) initializer lists, table lookups `configs[N]`,
fields, one-line `constexpr` member functions, enumerators and `constexpr` scalars.

It answers the folding passes' questions (folding.py) when the run has no compiler to ask: a
`--test` script's run, or a pass used on its own. With the built-in oracle, clang answers them
(reducer/text/values.py), and folds what this cannot: tables made by constexpr functions, loops,
nested structs, `sizeof`, any member function. Anything it does not know evaluates to None and
is left as written.
"""
from __future__ import annotations

import functools
import re
from typing import NamedTuple

from tree_sitter import Node

from ..text.source import Source
from ..text.values import Answers, Query, Value
from .cxx import elements

_INT = re.compile(rb"(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)[uUlL]*$")
_DEPTH = 24  # member functions calling each other; deeper is surely not a config


class Struct(NamedTuple):
    type: bytes
    fields: dict  # field name -> value or None


class _Type(NamedTuple):
    fields: list  # [(name, default value node or None)] in declaration order
    methods: dict  # name -> return expression node of a one-statement body


def literal(value) -> bytes | None:
    """Source text of a folded value; negatives parenthesised so `x-C.a` stays `x-(-3)`."""
    if isinstance(value, bool):
        return b"true" if value else b"false"
    if isinstance(value, int):
        return str(value).encode() if value >= 0 else f"({value})".encode()
    return None


def typed_literal(type_: bytes, value: int | bool) -> bytes | None:
    """`value` written with the integer type `type_` (`8u` for unsigned), so the arithmetic
    around it does not change; None for a negative unsigned."""
    text = literal(bool(value) if type_ == b"bool" else value)
    if b"unsigned" in type_ or type_.startswith(b"uint"):
        return text + b"u" if value >= 0 else None
    return text


@functools.lru_cache(maxsize=4096)
def _parsed_expression(text: bytes) -> tuple[Source, Node | None]:
    src = Source(b"auto _ = " + text + b";", "cuda")
    decl = src.root.named_children[0] if src.root.named_children else None
    init = next((c for c in decl.named_children if c.type == "init_declarator"), None) if decl else None
    value = init.child_by_field_name("value") if init is not None else None
    return src, value if value is not None and not src.root.has_error else None


def expression(text: bytes) -> Node | None:
    """`configs[120]` as an expression node (a template argument list may read it as a type)."""
    return _parsed_expression(b" ".join(text.split()))[1]


class ConstEval:
    def __init__(self, src: Source):
        self.types: dict[bytes, _Type] = {}
        self.tables: dict[bytes, tuple[bytes, list[Node]]] = {}
        self.scalars: dict[bytes, Node] = {}
        self.enumerators: dict[bytes, Node | int] = {}
        for node in src.nodes():
            if node.type in ("struct_specifier", "class_specifier"):
                self._add_type(node)
            elif node.type == "declaration" and any(c.text == b"constexpr" for c in node.children):
                self._add_constant(node)
            elif node.type == "enum_specifier":
                self._add_enum(node)

    def _add_type(self, node: Node) -> None:
        name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
        if name is None or body is None or name.type != "type_identifier":
            return
        fields, methods = [], {}
        for member in body.named_children:
            if member.type == "field_declaration" and not any(c.type in ("storage_class_specifier",)
                                                               for c in member.children):
                default = member.child_by_field_name("default_value")
                decls = [c for i, c in enumerate(member.children) if member.field_name_for_child(i) == "declarator"]
                if any(d.type != "field_identifier" for d in decls):
                    return  # arrays, pointers, bit-fields: not a plain config struct
                fields += [(d.text, default) for d in decls]
            elif member.type == "function_definition":
                decl, body_ = member.child_by_field_name("declarator"), member.child_by_field_name("body")
                params = decl.child_by_field_name("parameters") if decl is not None else None
                stmts = body_.named_children if body_ is not None else []
                inner = decl.child_by_field_name("declarator") if decl is not None else None
                if (params is not None and not elements(params) and len(stmts) == 1
                        and stmts[0].type == "return_statement" and stmts[0].named_children
                        and inner is not None and inner.type == "field_identifier"):
                    methods[inner.text] = stmts[0].named_children[0]
        self.types.setdefault(name.text, _Type(fields, methods))

    def _add_constant(self, node: Node) -> None:
        type_ = node.child_by_field_name("type")
        for init in node.named_children:
            if init.type != "init_declarator":
                continue
            decl, value = init.child_by_field_name("declarator"), init.child_by_field_name("value")
            if decl is None or value is None:
                continue
            if decl.type == "array_declarator" and value.type == "initializer_list" and type_ is not None:
                inner = decl.child_by_field_name("declarator")
                if inner is not None and inner.type == "identifier":
                    self.tables[inner.text] = (type_.text, elements(value))
            elif decl.type == "identifier":
                self.scalars[decl.text] = value

    def _add_enum(self, node: Node) -> None:
        name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
        if body is None:
            return
        value = 0
        for e in body.named_children:
            if e.type != "enumerator":
                continue
            v = e.child_by_field_name("value")
            if v is not None:
                value = self.eval(v, {})
            if not isinstance(value, int):
                return
            for key in ([e.child_by_field_name("name").text] +
                        ([name.text + b"::" + e.child_by_field_name("name").text] if name is not None else [])):
                self.enumerators[key] = value
            value += 1

    def struct(self, type_name: bytes, init: Node) -> Struct | None:
        """The value of `type_name{...}` from an initializer list, defaults filled in."""
        t = self.types.get(type_name)
        if t is None or init.type != "initializer_list":
            return None
        given: dict[bytes, Node] = {}
        names = [n for n, _ in t.fields]
        for i, e in enumerate(elements(init)):
            if e.type == "initializer_pair":
                designator = e.child_by_field_name("designator")
                if designator is None or designator.type != "field_designator":
                    return None
                given[designator.named_children[0].text] = e.child_by_field_name("value")
            elif i < len(names):
                given[names[i]] = e
            else:
                return None
        fields = {}
        for name, default in t.fields:
            node = given.get(name, default)
            fields[name] = self.eval(node, {}) if node is not None else 0
        return Struct(type_name, fields)

    def eval(self, node: Node | None, env: dict, depth: int = 0):
        """Value of an expression, or None. `env` binds names (template parameters) to values."""
        if node is None or depth > _DEPTH:
            return None
        t = node.type
        if t == "number_literal":
            m = _INT.match(node.text.replace(b"'", b""))
            if m is None:
                return None
            digits = m.group(1)
            return int(digits, 8) if digits[1:2].isdigit() and digits[:1] == b"0" else int(digits, 0)
        if t in ("true", "false"):
            return t == "true"
        if t == "parenthesized_expression" and len(node.named_children) == 1:
            return self.eval(node.named_children[0], env, depth + 1)
        if t in ("identifier", "type_identifier"):
            if node.text in env:
                return env[node.text]
            if node.text in self.enumerators:
                return self.enumerators[node.text]
            return self.eval(self.scalars.get(node.text), {}, depth + 1)
        if t == "qualified_identifier":
            return self.enumerators.get(b"".join(node.text.split()))
        if t == "unary_expression":
            return _unary(node.child_by_field_name("operator").type,
                          self.eval(node.child_by_field_name("argument"), env, depth + 1))
        if t == "binary_expression":
            op = node.child_by_field_name("operator").type
            left = self.eval(node.child_by_field_name("left"), env, depth + 1)
            if op in ("&&", "||") and isinstance(left, (int, bool)) and bool(left) == (op == "||"):
                return op == "||"
            return _binary(op, left, self.eval(node.child_by_field_name("right"), env, depth + 1))
        if t == "conditional_expression":
            cond = self.eval(node.child_by_field_name("condition"), env, depth + 1)
            if cond is None or isinstance(cond, Struct):
                return None
            return self.eval(node.child_by_field_name("consequence" if cond else "alternative"), env, depth + 1)
        if t == "field_expression":
            obj = self.eval(node.child_by_field_name("argument"), env, depth + 1)
            if isinstance(obj, Struct) and node.child_by_field_name("operator").type == ".":
                return obj.fields.get(node.child_by_field_name("field").text)
            return None
        if t == "subscript_expression":
            table = self.tables.get(node.child_by_field_name("argument").text)
            index = self.eval(node.child_by_field_name("index") or _index(node), env, depth + 1)
            if table is None or not isinstance(index, int) or not 0 <= index < len(table[1]):
                return None
            return self.struct(table[0], table[1][index])
        if t == "call_expression":
            return self._call(node, env, depth)
        return None

    def _call(self, node: Node, env: dict, depth: int):
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if args is None:
            return None
        if fn.type == "primitive_type" and len(elements(args)) == 1:  # int(x), bool(x)
            value = self.eval(elements(args)[0], env, depth + 1)
            return (bool(value) if fn.text == b"bool" else int(value)) if isinstance(value, (int, bool)) else None
        if elements(args):
            return None
        if fn.type == "field_expression":
            obj = self.eval(fn.child_by_field_name("argument"), env, depth + 1)
            name = fn.child_by_field_name("field").text
        elif fn.type == "identifier" and isinstance(env.get(b"this"), Struct):
            obj, name = env[b"this"], fn.text
        else:
            return None
        if not isinstance(obj, Struct):
            return None
        body = self.types[obj.type].methods.get(name)
        return self.eval(body, {**obj.fields, b"this": obj}, depth + 1)


def _index(node: Node) -> Node | None:
    """The index of `a[i]` (older grammars put it in an unnamed subscript_argument_list)."""
    for c in node.named_children[1:]:
        return c.named_children[0] if c.type == "subscript_argument_list" and c.named_children else c
    return None


def _unary(op: str, v):
    if not isinstance(v, (int, bool)):
        return None
    return {"!": lambda: not v, "-": lambda: -v, "+": lambda: +v, "~": lambda: ~v}.get(op, lambda: None)()


_OPS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: int(a / b) if b else None, "%": lambda a, b: a - int(a / b) * b if b else None,
    "<<": lambda a, b: a << b if 0 <= b < 64 else None, ">>": lambda a, b: a >> b if 0 <= b < 64 else None,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    "&&": lambda a, b: bool(a) and bool(b), "||": lambda a, b: bool(a) or bool(b),
}


def _binary(op: str, a, b):
    if not all(isinstance(v, (int, bool)) for v in (a, b)) or op not in _OPS:
        return None
    return _OPS[op](a, b)


class TreeValues:
    """The folding passes' questions answered by the tree evaluator: each query's expression is
    parsed and evaluated against the file's declarations (its scope is ignored); a value of a
    `bool` query is converted to bool, class-type values have no literal here."""

    def __init__(self, src: Source):
        self.ev = ConstEval(src)

    @classmethod
    def of(cls, src: Source) -> TreeValues:
        return _tree_values(src)

    def __call__(self, queries: list[Query]) -> Answers:
        out = {}
        for q in queries:
            value = self.ev.eval(expression(q.expr), {})
            if q.type == b"bool" and isinstance(value, int):
                value = bool(value)
            text = literal(value)
            if text is not None:
                out[q] = Value(text, value)
        return out


@functools.lru_cache(maxsize=2)
def _tree_values(src: Source) -> TreeValues:
    return TreeValues(src)
