"""The two builds a spill differential compares, as data: each a name, a mode (full offload LTO or
none), its own flags and, if it has one, its own compiler.

The report this project starts from compares more than LTO against no LTO: two clang commits, or
default scheduling against `-Xoffload-linker -mllvm=-amdgpu-sched-strategy=max-ilp`. The default
pair is the original one (`lto`: full offload LTO, `nolto`: -fno-offload-lto, one clang); any
other is given as two specs, `NAME=MODE [FLAG...]`, MODE `lto` or `nolto`, with `--clang=PATH`
among the flags for a compiler of the side's own:

    base=lto
    ilp=lto -Xoffload-linker -mllvm=-amdgpu-sched-strategy=max-ilp
    new=lto --clang=/opt/llvm-main/bin/clang++

The first side is the one expected to spill: it is built first (the predicate can often decide
without the second), and the guards read it. The predicate names the sides; by default it is the
built-in one with the first side in `lto`'s place and the second in `nolto`'s.
"""
from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from interestingness.measure.predicates import DEFAULT_PREDICATE, ORIGINAL, SIDE_NAMES


class SideError(ValueError):
    """A side spec that cannot be read."""


@dataclass(frozen=True)
class Side:
    name: str  # what the predicate calls it
    lto: bool  # full offload LTO (the asm out of the device link) or none (-fno-offload-lto)
    flags: tuple[str, ...] = ()  # this side's own, after the run's flags
    clang: str | None = None  # this side's compiler; None: the run's

    def spec(self) -> str:
        """The side as it is given (`parse_side` reads it back)."""
        clang = [f"--clang={self.clang}"] if self.clang else []
        return shlex.join([f"{self.name}={'lto' if self.lto else 'nolto'}", *clang, *self.flags])

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "lto": self.lto, "flags": list(self.flags), "clang": self.clang}


DEFAULT_SIDES = (Side(SIDE_NAMES[0], True), Side(SIDE_NAMES[1], False))


def parse_side(text: str) -> Side:
    """`NAME=MODE [--clang=PATH] [FLAG...]` (shell words) -> Side."""
    try:
        words = shlex.split(text)
    except ValueError as e:
        raise SideError(f"side {text!r}: {e}") from None
    head = re.fullmatch(r"([A-Za-z_]\w*)=(lto|nolto)", words[0]) if words else None
    if head is None:
        raise SideError(f"side {text!r}: wants NAME=lto or NAME=nolto first (NAME a word), then the side's flags")
    name, mode = head.groups()
    if name == ORIGINAL or (name in SIDE_NAMES and name != mode):
        raise SideError(f"side {text!r}: {name!r} names " + ("the original's figures" if name == ORIGINAL
                                                               else f"the {name} mode; call this side otherwise"))
    clang = [w.split("=", 1)[1] for w in words[1:] if w.startswith("--clang=")]
    if len(clang) > 1:
        raise SideError(f"side {text!r}: one --clang= at most")
    return Side(name, mode == "lto", tuple(w for w in words[1:] if not w.startswith("--clang=")),
                clang[0] if clang else None)


def parse_sides(texts: Sequence[str]) -> tuple[Side, Side]:
    """No spec: the default pair; else exactly two, of distinct names."""
    if not texts:
        return DEFAULT_SIDES
    if len(texts) != 2:
        raise SideError(f"give two sides (the one that spills first), not {len(texts)}")
    a, b = (parse_side(t) for t in texts)
    if a.name == b.name:
        raise SideError(f"the two sides have one name, {a.name!r}")
    return a, b


def default_predicate(sides: tuple[Side, Side], text: str = DEFAULT_PREDICATE) -> str:
    """The built-in predicate (or `text`, one over lto/nolto) over these sides: the first in
    `lto`'s place, the second in `nolto`'s."""
    names = dict(zip(SIDE_NAMES, (s.name for s in sides)))
    return re.sub(r"(?<![\w])(lto|nolto)\.", lambda m: f"{names[m.group(1)]}.", text)
