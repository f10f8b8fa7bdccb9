"""A C-family tokenizer that never fails: token passes and bracket matching must work on any
bytes, including regions tree-sitter cannot parse."""
from __future__ import annotations

import re
from typing import NamedTuple

_TOKEN = re.compile(
    rb"""
      (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
    | (?P<string>[uUL8]*R"(?P<delim>[^()\\\s]{0,16})\(.*?(?:\)(?P=delim)"|\Z)
               |[uUL8]*"(?:\\.|[^"\\\n])*(?:"|$)|[uUL8]*'(?:\\.|[^'\\\n])*(?:'|$))
    | (?P<number>\.?[0-9](?:[eEpP][+-]|[0-9a-zA-Z_.'])*)
    | (?P<ident>[A-Za-z_$][A-Za-z0-9_$]*)
    | (?P<punct><<<|>>>|<<=|>>=|->\*|\.\.\.|<=>|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!=<>]=|\#\#|[^\s])
    """,
    re.VERBOSE | re.DOTALL | re.MULTILINE,
)
_SPACE = re.compile(rb"\s+")


class Token(NamedTuple):
    start: int
    end: int
    kind: str  # comment | string | number | ident | punct


def tokenize(text: bytes) -> list[Token]:
    tokens: list[Token] = []
    pos, n = 0, len(text)
    while pos < n:
        space = _SPACE.match(text, pos)
        if space:
            pos = space.end()
            if pos >= n:
                break
        m = _TOKEN.match(text, pos)
        assert m is not None and m.end() > pos  # the punct branch matches any non-space byte
        tokens.append(Token(pos, m.end(), m.lastgroup if m.lastgroup != "delim" else "string"))
        pos = m.end()
    return tokens


def count_tokens(text: bytes) -> int:
    """Tokens excluding comments: the size measure reported next to bytes."""
    return sum(1 for t in tokenize(text) if t.kind != "comment")


def layout_free(text: bytes) -> bytes:
    """The same tokens on the same lines, comments dropped, one space between tokens: two texts
    that differ only in layout map to one form (preprocessor lines and __LINE__ keep working)."""
    out = bytearray()
    pos = here = line = 0  # `here`: line of `pos` in the input; `line`: lines written so far
    for tok in tokenize(text):
        here += text.count(b"\n", pos, tok.start)
        pos = tok.start
        if tok.kind == "comment":
            continue
        if here > line:
            out += b"\n" * (here - line)
            line = here
        elif out and out[-1:] != b"\n":
            out += b" "
        out += text[tok.start:tok.end]
    out += b"\n" * (here + text.count(b"\n", pos) - line)
    return bytes(out)
