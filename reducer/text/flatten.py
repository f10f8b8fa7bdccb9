"""Header flattening: inline the project headers a file includes, so one file holds everything
the reducer may cut. A real reproducer is one instantiation pulling in a library's headers;
without this step line/tree deletion never reaches them.

Headers found in the including file's directory (quoted includes) or in the user's -I/-iquote
directories are inlined in include order: a header with `#pragma once` or an include guard once,
at its first include, as the preprocessor would; a header with neither (an X-macro list) at every
include. Anything else (system headers, ROCm's headers, the HIP shim) stays an include.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from interestingness.base.path_flags import PROJECT_DIRS, path_flags

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"][^\n]*\n?', re.MULTILINE)
_PRAGMA_ONCE = re.compile(rb"^[ \t]*#[ \t]*pragma[ \t]+once[^\n]*\n?", re.MULTILINE)
_COMMENTS = rb"(?:\s|//[^\n]*|/\*.*?\*/)*"
_GUARD = re.compile(rb"\A" + _COMMENTS + rb"#[ \t]*(?:ifndef[ \t]+(\w+)|if[ \t]+!\s*defined\s*\(?\s*(\w+)\s*\)?)"
                    rb"[ \t]*\n"
                    rb"[ \t]*#[ \t]*define[ \t]+(\w+)\b.*#[ \t]*endif\b[^\n]*" + _COMMENTS + rb"\Z", re.DOTALL)


def include_dirs(flags: Sequence[str], cwd: Path) -> list[Path]:
    """-I/-iquote directories of a clang command line (joined or separate), absolute; a HIP
    install's include directory (ROCm's, or a copy of it) given with -I is not the project's."""
    dirs = [(cwd / f.value).resolve() for f in path_flags(flags, PROJECT_DIRS) if f.value]
    return [d for d in dirs if not _hip_install(d)]


def _hip_install(directory: Path) -> bool:
    return (directory / "hip" / "hip_version.h").is_file() or (directory / "hip" / "amd_detail").is_dir()


def flatten(path: Path, text: bytes, dirs: Iterable[Path]) -> tuple[bytes, list[Path]]:
    """The flattened text and the headers inlined into it, in order."""
    dirs = list(dirs)
    inlined: list[Path] = []
    once: set[Path] = set()  # guarded headers already inlined
    open_: list[Path] = []  # headers being expanded: an unguarded one including itself stays an include

    def expand(current: Path, content: bytes) -> bytes:
        def replace(m: re.Match) -> bytes:
            header = _resolve(m.group(2).decode("utf-8", "replace"), m.group(1) == b'"', current.parent, dirs)
            if header is None:
                return m.group(0)
            if header in once:  # also inside itself: composable_kernel's common_header.hpp and
                return b""  # multi_index.hpp include each other; the guard makes the inner one empty
            if header in open_:
                return m.group(0)
            raw = header.read_bytes()
            if _PRAGMA_ONCE.search(raw) or _guarded(raw):
                once.add(header)
            if header not in inlined:
                inlined.append(header)
            body = _PRAGMA_ONCE.sub(b"", raw)
            open_.append(header)
            try:
                return expand(header, body if body.endswith(b"\n") or not body else body + b"\n")
            finally:
                open_.pop()

        return _INCLUDE.sub(replace, content)

    open_.append(path.resolve())
    return expand(path.resolve(), text), inlined


def _guarded(text: bytes) -> bool:
    """`#ifndef X` / `#define X` first and `#endif` last, comments aside."""
    m = _GUARD.match(text)
    return m is not None and (m.group(1) or m.group(2)) == m.group(3)


def _resolve(name: str, quoted: bool, here: Path, dirs: list[Path]) -> Path | None:
    for d in ([here] if quoted else []) + dirs:
        candidate = (d / name).resolve()
        if candidate.is_file():
            return candidate
    return None
