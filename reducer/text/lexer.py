"""A C-family tokenizer that never fails: token passes and bracket matching must work on any
bytes, including regions tree-sitter cannot parse."""
from __future__ import annotations

import re
from bisect import bisect_left
from typing import NamedTuple

# Where clang's lexer joins what a naive one splits, this one joins too: a string or character
# literal takes an identifier right after it (a C++11 user-defined literal: `"C"x` is one token),
# a pp-number takes letters, digits, `.` and a `'` before one of these, and `<:` `:>` `<%` `%>` `%:` are digraphs
# (`<::` is `<` `::` unless a `:` or `>` follows, as C++11 says).
_UD_SUFFIX = rb"(?:[A-Za-z_][A-Za-z0-9_]*)?"
# One match a token, the blank space before it included: one regex call and one Token each.
_TOKEN = re.compile(
    rb"""
    \s*(?:
      (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
    | (?P<string>[uUL8]*R"(?P<delim>[^()\\\s]{0,16})\(.*?(?:\)(?P=delim)"UD|\Z)
               |[uUL8]*"(?:\\.|[^"\\\n])*(?:"UD|$)|[uUL8]*'(?:\\.|[^'\\\n])*(?:'UD|$))
    | (?P<number>\.?[0-9](?:[eEpP][+-]|'[0-9a-zA-Z_]|[0-9a-zA-Z_.])*)
    | (?P<ident>[A-Za-z_$][A-Za-z0-9_$]*)
    | (?P<punct><<<|>>>|<<=|>>=|->\*|\.\.\.|<=>|%:%:|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!=<>]=|\#\#
               |<:(?!:(?:[^:>]|\Z))|:>|<%|%>|%:|[^\s])
    )""".replace(b"UD", _UD_SUFFIX),
    re.VERBOSE | re.DOTALL | re.MULTILINE,
)


class Token(NamedTuple):
    start: int
    end: int
    kind: str  # comment | string | number | ident | punct


def tokenize(text: bytes) -> list[Token]:
    """Every token of `text`, in order; only blank space lies between them. Lexing each
    candidate is the main process's busiest work while the oracle's workers wait, hence the
    one match a token and the Tokens made as plain tuples (as NamedTuple._make does)."""
    # The punct branch matches any non-space byte, so the matches follow each other and only
    # trailing blank space is left; every branch is a named group, and the last to close is
    # the whole token's (never `delim`, which a raw string's group encloses).
    new = tuple.__new__
    tokens: list[Token] = []
    append = tokens.append
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        assert kind is not None
        start, end = m.span(kind)
        append(new(Token, (start, end, kind)))
    return tokens


def count_tokens(text: bytes) -> int:
    """Tokens excluding comments: the size measure reported next to bytes."""
    return sum(1 for t in tokenize(text) if t.kind != "comment")


def layout_key(text: bytes) -> bytes:
    """A key two texts share only when clang sees the same tokens, with the same spacing flags,
    on the same lines: how much blank space separates two tokens, indentation, and comments on
    one line do not count; whether there is any, and every line break, do.

    Line splices (backslash, newline) are undone first, as clang does before it lexes (one can
    join two tokens), and where each fell is part of the key. Kept as they are: the rest of a
    line after `#` that includes or imports (spaces inside `<a b.h>` are part of the name), and
    a comment holding a line break. A text with a `??/` trigraph is its own key. Sharing a key
    lets a verdict reject a candidate without a test, never accept one (reducer/engine/evaluate.py)."""
    if b"??/" in text:
        return text
    pieces, splices, pos = [], [], 0
    for m in _SPLICE.finditer(text):
        pieces.append(text[pos:m.start()])
        splices.append(sum(map(len, pieces)))
        pos = m.end()
    spliced = b"".join(pieces) + text[pos:]
    tokens = tokenize(spliced)
    key = _layout(spliced, tokens)
    if splices:
        starts = [t.start for t in tokens]
        marks = []
        for offset in splices:
            i = bisect_left(starts, offset)
            where = ("in" if i and tokens[i - 1].end > offset
                     else "at" if i < len(tokens) and starts[i] == offset else "")
            marks.append(f"{i}{where}")  # a token that starts at a splice is on the splice's line
        key += b"\0splices " + ",".join(marks).encode()
    return key


_SPLICE = re.compile(rb"\\[ \t\f\v]*\r?\n")


def _layout(text: bytes, tokens: list[Token]) -> bytes:
    out = bytearray()
    gap_start, verbatim_until, prev = 0, -1, b""
    for tok in tokens:
        spelling = text[tok.start:tok.end]
        if tok.kind == "comment" and b"\n" not in spelling:
            continue  # blank space: part of the gap around it
        out += _gap(text[gap_start:tok.start], tok.start <= verbatim_until or prev == b"\\", not out)
        if spelling in (b"#", b"%:"):
            eol = text.find(b"\n", tok.end) % (len(text) + 1)
            if b"include" in text[tok.end:eol] or b"import" in text[tok.end:eol]:
                verbatim_until = eol
        out += spelling
        gap_start, prev = tok.end, spelling
    out += _gap(text[gap_start:], len(text) <= verbatim_until or prev == b"\\")
    return bytes(out)


def _gap(gap: bytes, verbatim: bool, line_start: bool = False) -> bytes:
    if verbatim:
        return gap
    if b"\n" in gap or line_start:
        return b"\n" * gap.count(b"\n")
    return b" " if gap else b""
