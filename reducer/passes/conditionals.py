"""Keep the branch of each `#if`/`#ifdef`/`#ifndef` that the compile takes, and delete the
directives and the other branches: what the preprocessor does, one conditional per item.

Real library code chooses its definitions by preprocessor: `MFCONV_HOST_DEVICE` is defined one
way under `#ifdef __HIPCC__` and another way after `#else`, a Composable Kernel kernel has
`#if CK_USE_LAUNCH_BOUNDS` inside its declaration. The grammar sees every branch at once, so
such a declaration does not parse and a macro defined twice cannot be expanded (`macros`).

Which branch is taken is the compiler's answer, not ours (`defined(__gfx950__)`,
`__has_include`, a macro an earlier header set): the pass asks the run's front end (the Source's
`values`, reducer/text/values.py) once per version of the file, with a line `#error gpu-reduce-mark
G` before each conditional and `#error gpu-reduce-mark G.B` at the top of each of its branches;
the marks the front end reports are the conditionals it reached and the branches it took. A
reached conditional with no branch taken (`#if 0`) goes whole. Without a compiler to ask (a
script oracle) the pass proposes nothing. The result keeps the device compile's branches only:
it is a reproducer of the device compile, as the oracle builds it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..text.edits import Edit, Item
from ..text.source import Source
from .base import Pass
from .cxx import directives

_CONDITIONAL = re.compile(rb"[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b")


@dataclass
class _Conditional:
    lines: list[tuple[int, int]] = field(default_factory=list)  # #if, #elif/#else..., #endif

    def item(self, taken: int | None) -> Item:
        """Delete the directives and every branch but `taken` (None: delete everything)."""
        edits = []
        for b, (start, end) in enumerate(self.lines[:-1]):
            edits.append(Edit(start, end if b == taken else self.lines[b + 1][0]))
        edits.append(Edit(*self.lines[-1]))
        return tuple(edits)


def conditionals(text: bytes) -> list[_Conditional]:
    """Every conditional of `text`, in order of their `#if`; none when they do not balance."""
    found, open_ = [], []
    for start, end in directives(text):
        m = _CONDITIONAL.match(text, start)
        if m is None:
            continue
        kind = m.group(1)
        if kind in (b"if", b"ifdef", b"ifndef"):
            open_.append(_Conditional([(start, end)]))
            found.append(open_[-1])
        elif not open_:
            return []
        else:
            open_[-1].lines.append((start, end))
            if kind == b"endif":
                open_.pop()
    return [] if open_ else found


def marked(text: bytes, found: list[_Conditional]) -> bytes:
    """`text` with the marks `Conditionals` asks about."""
    inserts = []
    for g, c in enumerate(found):
        inserts.append((c.lines[0][0], b"#error gpu-reduce-mark %d\n" % g))
        inserts += [(end, b"#error gpu-reduce-mark %d.%d\n" % (g, b)) for b, (_, end) in enumerate(c.lines[:-1])]
    out, pos = [], 0
    for at, line in sorted(inserts, key=lambda i: i[0]):
        out += [text[pos:at], line if at == 0 or text[at - 1:at] == b"\n" else b"\n" + line]
        pos = at
    return b"".join(out) + text[pos:]


class Conditionals(Pass):
    name = "conditionals"
    well_formed = True
    summary = "keep the branch of each #if the compile takes (the compiler says which) and delete the rest"

    def enumerate(self, src: Source) -> list[Item]:
        found = conditionals(src.text)
        if not found or src.values is None:
            return []
        marks = src.values.marks(marked(src.text, found))
        items = []
        for g, c in enumerate(found):
            if str(g) in marks:
                items.append(c.item(next((b for b in range(len(c.lines) - 1) if f"{g}.{b}" in marks), None)))
        return items
