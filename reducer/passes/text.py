"""Passes that need no parse tree: blank space, comments, lines, tokens."""
from __future__ import annotations

import re
from bisect import bisect_right

from ..text.edits import Edit, Item, deletion, line_span
from ..text.lexer import tokenize
from ..text.source import Source
from .base import Pass

_LINE = re.compile(rb"[^\n]*\n|[^\n]+\Z")


class Blank(Pass):
    """Blank lines, indentation and runs of spaces: small bytes, but cheap to remove. A space
    next to punctuation goes. Lines stay lines (the line pass needs them) unless `join`, which
    the schedule runs last; preprocessor lines stay lines always."""

    well_formed = True

    def __init__(self, name: str, summary: str, join: bool):
        super().__init__(name, summary)
        self.join = join

    def enumerate(self, src: Source) -> list[Item]:
        text, prev = src.text, None
        tokens = [*src.tokens, None]
        lines = _LineStarts(text)
        items: list[Item] = []
        for i, tok in enumerate(tokens):
            start = tok.start if tok else len(text)
            end_prev = prev.end if prev else 0
            gap = text[end_prev:start]
            if gap:
                # the gap before a line splice `\` separates what the splice will join: decide it
                # by the token after the splice (`#define N \`, `  x` must not become `Nx`)
                after = _past_splices(text, tokens, i)
                if prev is None or tok is None:
                    want = b""
                elif b"\n" in gap and (not self.join or _needs_newline(text, lines, prev, tok)):
                    want = b"\n"
                elif after is None:
                    want = b" "
                elif (kept := _kept_blank(text, lines, prev, after, gap)) is not None:
                    want = kept
                else:
                    want = b"" if _joinable(text[prev.start:prev.end], text[after.start:after.end]) else b" "
                if gap != want:
                    items.append((Edit(end_prev, start, want),))
            prev = tok
        return items


def _past_splices(text: bytes, tokens: list, i: int):
    """The first token from `i` on that is not a line splice `\\` (None at the end)."""
    while tokens[i] is not None and text[tokens[i].start:tokens[i].end] == b"\\":
        i += 1
    return tokens[i]


def _joinable(a: bytes, b: bytes) -> bool:
    """Whether two tokens stay two tokens with nothing between them (`) ;` yes, `+ +` no)."""
    return [t.end for t in tokenize(a + b)] == [len(a), len(a) + len(b)]


def _glues(text: bytes, tokens: list, i: int) -> bool:
    """Whether token `i` touches a token on each side that would lex as one with the other
    without it: it must leave a space (`char*p`, `a/**/b`)."""
    if not 0 < i < len(tokens) - 1:
        return False
    before, t, after = tokens[i - 1], tokens[i], tokens[i + 1]
    return before.end == t.start and after.start == t.end and \
        not _joinable(text[before.start:before.end], text[after.start:after.end])


_DEFINE = re.compile(rb"[ \t]*(?:#|%:)[ \t]*define[ \t]+[A-Za-z_$][A-Za-z0-9_$]*\Z")
_INCLUDE = re.compile(rb"[ \t]*(?:#|%:)[ \t]*(?:include|import)")


class _LineStarts:
    """Where the line holding an offset starts, by bisection: a 1 MB single-line file has
    hundreds of thousands of tokens, and a search back from each is quadratic."""

    def __init__(self, text: bytes):
        self._starts = [0, *(m.end() for m in re.finditer(rb"\n", text))]

    def of(self, offset: int) -> int:
        return self._starts[bisect_right(self._starts, offset) - 1]


def _kept_blank(text: bytes, lines: _LineStarts, prev, tok, gap: bytes) -> bytes | None:
    """Blank that lexing would not miss but the preprocessor reads: a header name's spaces are
    part of it, and `#define F (x)` is not `#define F(x)`."""
    start = lines.of(prev.start)
    include = _INCLUDE.match(text, start, prev.end)
    if include and b"<" in text[include.end():prev.end]:
        return gap
    return b" " if text[tok.start:tok.end] == b"(" and _DEFINE.match(text, start, prev.end) else None


def _needs_newline(text: bytes, lines: _LineStarts, prev, tok) -> bool:
    """Preprocessor lines must stay lines; elsewhere a newline is just a space."""
    if text[tok.start:tok.end] == b"#" or text[prev.start:prev.end] == b"\\":
        return True
    return text[lines.of(prev.start):prev.start].lstrip().startswith(b"#") or prev.kind == "comment"


class Comments(Pass):
    """A comment between two tokens becomes the space it is to the preprocessor (`a/**/b`)."""

    name = "comments"
    summary = "delete comments (one alone on its line takes the line)"
    well_formed = True

    def enumerate(self, src: Source) -> list[Item]:
        text, tokens = src.text, src.tokens
        items: list[Item] = []
        for i, t in enumerate(tokens):
            if t.kind != "comment":
                continue
            if _glues(text, tokens, i) and tokens[i - 1].kind != "comment":
                items.append((Edit(t.start, t.end, b" "),))
            else:
                items.append(deletion(*line_span(text, t.start, t.end)))
        return items


class Lines(Pass):
    """C-Reduce's line pass: ddmin over lines."""

    name = "lines"
    summary = "delete lines (C-Reduce's line pass)"

    def enumerate(self, src: Source) -> list[Item]:
        return [deletion(m.start(), m.end()) for m in _LINE.finditer(src.text)]


class Tokens(Pass):
    """Runs of up to 8 tokens; big chunks of tokens never leave valid code. A token between two
    it touches that would lex as one without it (`char*p`, `a-b`) leaves a space: deleting it
    must not make `charp` (on the README's case, about a tenth of this pass's failed builds
    were names glued that way)."""

    name = "tokens"
    summary = "delete runs of up to 8 tokens"
    max_chunk = 8

    def enumerate(self, src: Source) -> list[Item]:
        text, tokens = src.text, src.tokens
        items: list[Item] = []
        for i, t in enumerate(tokens):
            if t.kind == "comment":
                continue
            if _glues(text, tokens, i):
                items.append((Edit(t.start, t.end, b" "),))
            else:
                items.append(deletion(t.start, t.end))
        return items
