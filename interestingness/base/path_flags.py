"""The options of a clang command line that take a path (-I, -isystem, -iquote, ...), read in one
place: the compile makes their paths absolute, a file set points them to its copies, flattening
and the bug report read their directories, and all of them must agree on what is a path."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NamedTuple

INCLUDE_DIRS = ("-I", "-isystem", "-iquote", "-idirafter")  # -Idir or -I dir
PROJECT_DIRS = ("-I", "-iquote")  # where a project's own headers are; -isystem ones are other people's


class PathFlag(NamedTuple):
    """One flag: an option with its path, or any other flag (option and value None)."""

    option: str | None
    value: str | None  # None also for an option that ends the command line
    tokens: tuple[str, ...]  # as given

    def spelled(self, value: str) -> list[str]:
        """The same option, joined or separate as given, with another path."""
        assert self.option is not None, "not an option with a path"
        return [self.option + value] if len(self.tokens) == 1 else [self.option, value]


def path_flag(flags: Sequence[str], i: int, options: Sequence[str] = INCLUDE_DIRS,
              separate: Sequence[str] | None = None) -> PathFlag | None:
    """The option at `flags[i]` with its path, if it is one: separate (one of `separate`, by
    default `options`, then the path: -I dir) or joined (the longest of `options` that prefixes
    the flag: -Idir, --sysroot=dir)."""
    flag = flags[i]
    if flag in (options if separate is None else separate):
        value = flags[i + 1] if i + 1 < len(flags) else None
        return PathFlag(flag, value, tuple(flags[i:i + 2]))
    option = max((o for o in options if flag.startswith(o)), key=len, default=None)
    return None if option is None else PathFlag(option, flag[len(option):], (flag,))


def path_flags(flags: Sequence[str], options: Sequence[str] = INCLUDE_DIRS,
               separate: Sequence[str] | None = None) -> Iterator[PathFlag]:
    """Every flag of a command line, in order, each option of `options` with its path (path_flag)."""
    i = 0
    while i < len(flags):
        found = path_flag(flags, i, options, separate) or PathFlag(None, None, (flags[i],))
        yield found
        i += len(found.tokens)
