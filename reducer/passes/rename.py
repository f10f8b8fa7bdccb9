"""Shorten identifiers: a name declared in the file becomes, at every occurrence, the shortest
name the file does not use (`a`, `b`, ..., `aa`), one item per name. Off by default: names
carry meaning in a bug report, and renaming does not make the compiler do less.

Renaming is on tokens, so it reaches macro bodies and every entity sharing the name alike; it
is left alone where the file does not own the name: kernels (the spill oracle finds them by
name), `main`, reserved `__` names, anything the HIP shim mentions (`threadIdx`, `x`), names
qualified by a namespace the file does not declare (`std::min`), names a string, `#if`,
`#include` or `#pragma` line mentions, or that `#`/`##` stringifies or pastes. The shortest
names go to the names that save most, and every item gets its own, so a chunk composes.
"""
from __future__ import annotations

import functools
import itertools
import re
import string
from pathlib import Path

from tree_sitter import Node

from ..text.edits import Edit, Item
from ..text.lexer import tokenize
from ..text.source import Source, walk
from .base import Pass
from .cxx import kernel_head, simple_name

_SHIM = Path(__file__).resolve().parents[2] / "interestingness" / "compiler" / "shim" / "hip"
# the shim's core: what hip_runtime.h held before the headers were split (qualifiers, launch
# bounds, threadIdx & co., dim3, hipError_t, hipStream_t, the launch declarations) and the API
# built around it; the fp16/bf16/fp8/math headers' internal names are not the user's to avoid
_SHIM_CORE = ("hip_runtime.h", "hip_runtime_api.h", "amd_detail/host_defines.h")
_IDENT = re.compile(rb"^[A-Za-z_][A-Za-z0-9_]*$")
_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
# directives whose words are not (only) this file's names: `#if X`, `#include <tile/x.h>`, `#pragma`
_KEPT_LINE = re.compile(rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|elifdef|elifndef|include|include_next|pragma|error|"
                        rb"warning)\b(?:[^\n]*\\\n)*[^\n]*", re.M)
_KEYWORDS = frozenset(b"""alignas alignof and and_eq asm auto bitand bitor bool break case catch char class compl
concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype default delete do
double dynamic_cast else enum explicit export extern false float for friend goto if inline int long mutable namespace
new noexcept not not_eq nullptr operator or or_eq private protected public register reinterpret_cast requires return
short signed sizeof static static_assert static_cast struct switch template this thread_local throw true try typedef
typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq std""".split())
# node type -> field naming what it declares (None: each declarator of a declaration)
_DECLARES = {
    "init_declarator": "declarator", "parameter_declaration": "declarator",
    "optional_parameter_declaration": "declarator", "struct_specifier": "name", "class_specifier": "name",
    "union_specifier": "name", "enum_specifier": "name", "enumerator": "name", "alias_declaration": "name",
    "type_definition": "declarator", "namespace_definition": "name", "preproc_def": "name",
    "preproc_function_def": "name", "declaration": None, "field_declaration": None,
}


@functools.lru_cache(maxsize=1)
def _shim_names() -> frozenset[bytes]:
    names: set[bytes] = set()
    for path in (_SHIM / name for name in _SHIM_CORE):
        text = path.read_bytes() if path.exists() else b""
        names.update(text[t.start:t.end] for t in tokenize(text) if t.kind == "ident")
    return frozenset(names)


def _declared(root: Node) -> tuple[set[bytes], set[bytes]]:
    """Names the file declares, and the kernels among them."""
    names, kernels = set(), set()
    for node in walk(root):
        t = node.type
        if kernel_head(node):
            kernels.add(simple_name(node.child_by_field_name("declarator")))
        elif t == "function_definition":  # a prototype alone may be a header's function
            names.add(simple_name(node.child_by_field_name("declarator")))
        if t in ("type_parameter_declaration", "optional_type_parameter_declaration", "preproc_params"):
            names.update(c.text for c in node.named_children if c.type in ("type_identifier", "identifier"))
        elif t in _DECLARES:
            field = _DECLARES[t]
            if t.endswith("_specifier") and node.child_by_field_name("body") is None:
                continue  # `struct S x;` may name a type declared elsewhere
            found = [node.child_by_field_name(field)] if field else [
                c for i, c in enumerate(node.children) if node.field_name_for_child(i) == "declarator"
                and c.type not in ("function_declarator", "init_declarator")]
            names.update(simple_name(n) for n in found if n is not None)
    return names - kernels - {None}, kernels


def _fresh(taken: set[bytes]):
    for size in itertools.count(1):
        for letters in itertools.product(string.ascii_lowercase, repeat=size):
            name = "".join(letters).encode()
            if name not in taken:
                yield name


class Rename(Pass):
    name = "rename"
    well_formed = True
    summary = "shorten each identifier the file declares to the shortest unused name"
    needs_tree = True

    def enumerate(self, src: Source) -> list[Item]:
        toks, text = src.tokens, src.text
        lex = [text[t.start:t.end] for t in toks]
        declared, kernels = _declared(src.root)
        strings = {w for t in toks if t.kind == "string" for w in _WORD.findall(text[t.start:t.end])}
        directives = {w for m in _KEPT_LINE.finditer(text) for w in _WORD.findall(m.group())}
        where: dict[bytes, list[int]] = {}
        foreign = set(strings | directives | kernels | _shim_names() | _KEYWORDS | {b"main"})
        for i, t in enumerate(toks):
            if t.kind != "ident":
                continue
            where.setdefault(lex[i], []).append(i)
            if i and lex[i - 1] in (b"#", b"##") or i + 1 < len(lex) and lex[i + 1] == b"##":
                foreign.add(lex[i])
            elif i >= 2 and lex[i - 1] == b"::" and toks[i - 2].kind == "ident" and lex[i - 2] not in declared:
                foreign.add(lex[i])
        names = [n for n in declared if n in where and n not in foreign and _IDENT.match(n) and not n.startswith(b"__")]
        names.sort(key=lambda n: (-len(where[n]) * len(n), where[n][0]))  # the biggest savings get the shortest names
        items = []
        for name, new in zip(names, _fresh(set(where) | foreign)):
            if len(new) < len(name):
                items.append((where[name][0], tuple(Edit(toks[i].start, toks[i].end, new) for i in where[name])))
        return [item for _, item in sorted(items)]
