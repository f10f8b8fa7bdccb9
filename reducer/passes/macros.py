"""Expand a macro at its uses and delete its #define: what the preprocessor would do, one macro
per item. Real libraries hide structure behind macros (`MFCONV_KERNEL_ATTRIBUTES(256, 2) void
k(...)`, a launch wrapped in `..._LAUNCH_OR_RETURN(...)`) that the tree-sitter grammar cannot
see through: the template around such a kernel does not parse as one, so no tree pass can
instantiate it. Expanded, the code parses as what the compiler sees.

Only macros whose expansion is plain substitution: defined once, #undef'd only after it, named by no
other directive (`#ifdef`, `defined(...)`), no `#`, `##`, `__VA_OPT__` or itself in the body, every
use of a function-like one called with its number of arguments, no use inside another's
arguments. Uses inside other #define bodies are expanded too (a body is expanded where it is
used, so that is the same). An expansion may grow the file a little (`growth`): each removes a
#define, and no pass adds one.
"""
from __future__ import annotations

import re

from ..text.edits import Edit, Item, compatible
from ..text.lexer import Token, tokenize
from ..text.source import Source
from .base import Pass
from .cxx import CONTINUATION, DEFINE, call_arguments, directives, spaced

_UNDEF = re.compile(rb"[ \t]*#[ \t]*undef[ \t]+([A-Za-z_]\w*)\s*$")


class Macros(Pass):
    name = "macros"
    well_formed = True
    summary = "expand a macro at its uses and delete its #define (so the code parses as the compiler sees it)"
    # An attribute macro (`MFCONV_HOST_DEVICE`, 133 uses) is shorter than its expansion: a
    # macro gone is progress even so, within a twentieth of the file.
    growth = 0.05

    def progress(self, src: Source) -> int:
        """Macros defined."""
        return sum(bool(DEFINE.match(src.text, start)) for start, _ in directives(src.text))

    def enumerate(self, src: Source) -> list[Item]:
        text = src.text
        spans = directives(text)
        tokens = tokenize(text)
        defines: dict[bytes, list[tuple[int, int, re.Match]]] = {}
        undefs: dict[bytes, list[tuple[int, int]]] = {}
        named: set[bytes] = set()  # names other directives mention
        for start, end in spans:
            line = CONTINUATION.sub(b" ", text[start:end])
            if (m := DEFINE.match(line)) is not None:
                defines.setdefault(m.group(1), []).append((start, end, m))
            elif (u := _UNDEF.match(line)) is not None:
                undefs.setdefault(u.group(1), []).append((start, end))
            else:
                named.update(line[t.start:t.end] for t in tokenize(line) if t.kind == "ident")
        items = []
        for name, found in defines.items():
            gone = undefs.get(name, [])
            if len(found) == 1 and name not in named and all(s >= found[0][1] for s, _ in gone):
                item = _expansion(text, tokens, spans, name, *found[0], gone)
                if item is not None:
                    items.append(item)
        # A macro used in another's body clashes with it: in one chunk the other's #define goes
        # with the expansion inside it, and its uses get the body as written, naming a macro
        # no longer defined (ck_tile's CK_TILE_HOST_DEVICE, TO_TUPLE_OF_NUMBER: 3 of the pass's
        # 4 failed tests). The first in the file goes first, the other at the next enumeration.
        return compatible(items, lambda i: (i,))


def _expansion(text: bytes, tokens: list[Token], spans: list[tuple[int, int]], name: bytes,
               start: int, end: int, define: re.Match, undefs: list[tuple[int, int]]) -> Item | None:
    """The item expanding the macro defined at [start, end) at its uses (in code between its
    #define and its first #undef, in other macros' bodies anywhere), and deleting its #define
    and #undef lines."""
    params = None if define.group(2) is None else [p.strip() for p in define.group(2)[1:-1].split(b",") if p.strip()]
    variadic = bool(params) and params[-1] == b"..."
    named = params[:-1] if variadic else params
    body_text = define.group(3)
    body = [t for t in tokenize(body_text) if t.kind != "comment"]
    spelled = [body_text[t.start:t.end] for t in body]
    if any(s in (b"#", b"##", b"__VA_OPT__", name) for s in spelled) or b"__VA_ARGS__" in spelled and not variadic:
        return None
    if named is not None and not all(re.fullmatch(rb"[A-Za-z_]\w*", p) for p in named):
        return None
    edits = [Edit(start, end), *(Edit(s, e) for s, e in undefs)]
    stop = min((s for s, _ in undefs), default=len(text))
    i, last_end = 0, -1
    while i < len(tokens):
        t = tokens[i]
        if t.kind != "ident" or text[t.start:t.end] != name or start <= t.start < end \
                or any(s <= t.start < e for s, e in undefs) \
                or not end <= t.start < stop and not any(s <= t.start < e for s, e in spans):  # a body: anywhere
            i += 1
            continue
        if t.start < last_end:  # inside another use's arguments
            return None
        if params is None:
            args: list[bytes] = []
            close = i
        else:
            call = call_arguments(text, tokens, i)
            if call is None:
                return None
            args, close = call
            args = [] if args == [b""] and not named else args
            if len(args) < len(named) or len(args) > len(named) and not variadic:
                return None
            if variadic:
                args = [*args[:len(named)], b", ".join(args[len(named):])]
        span_end = tokens[close].end
        if _crosses(spans, t.start, span_end):
            return None
        bound = dict(zip([*(named or []), *([b"__VA_ARGS__"] if variadic else [])], args))
        replacement = b" ".join(bound.get(s, s) for s in spelled)
        edits.append(spaced(text, t.start, span_end, replacement))
        last_end, i = span_end, close + 1
    if len(edits) == 1 + len(undefs):
        return None  # unused: `unused` and the line passes delete it
    return tuple(edits)


def _crosses(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether [start, end) is partly inside a directive (a use must be wholly in one or outside all)."""
    return any((s <= start < e) != (s < end <= e) or start < s < end for s, e in spans)
