"""Header flattening: inline the project headers a file includes, so one file holds everything
the reducer may cut. A real reproducer is one instantiation pulling in a library's headers;
without this step line/tree deletion never reaches them.

Headers found in the including file's directory (quoted includes) or in the user's -I/-iquote
directories are inlined once each, in include order (so `#pragma once` and include guards hold);
anything else (system headers, the HIP shim) stays an include.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Sequence

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"][^\n]*\n?', re.MULTILINE)
_PRAGMA_ONCE = re.compile(rb"^[ \t]*#[ \t]*pragma[ \t]+once[^\n]*\n?", re.MULTILINE)


def include_dirs(flags: Sequence[str], cwd: Path) -> list[Path]:
    """-I/-iquote directories of a clang command line (joined or separate), absolute."""
    dirs, it = [], iter(flags)
    for flag in it:
        for opt in ("-I", "-iquote"):
            if flag == opt:
                value = next(it, None)
            elif flag.startswith(opt) and not flag.startswith("-isystem"):
                value = flag[len(opt):]
            else:
                continue
            if value:
                dirs.append((cwd / value).resolve())
            break
    return dirs


def flatten(path: Path, text: bytes, dirs: Iterable[Path]) -> tuple[bytes, list[Path]]:
    """The flattened text and the headers inlined into it, in order."""
    dirs = list(dirs)
    inlined: list[Path] = []
    seen: set[Path] = set()

    def expand(current: Path, content: bytes) -> bytes:
        def replace(m: re.Match) -> bytes:
            header = _resolve(m.group(2).decode("utf-8", "replace"), m.group(1) == b'"', current.parent, dirs)
            if header is None:
                return m.group(0)
            if header in seen:
                return b""
            seen.add(header)
            inlined.append(header)
            body = _PRAGMA_ONCE.sub(b"", header.read_bytes())
            return expand(header, body if body.endswith(b"\n") or not body else body + b"\n")

        return _INCLUDE.sub(replace, content)

    seen.add(path.resolve())
    return expand(path.resolve(), text), inlined


def _resolve(name: str, quoted: bool, here: Path, dirs: list[Path]) -> Path | None:
    for d in ([here] if quoted else []) + dirs:
        candidate = (d / name).resolve()
        if candidate.is_file():
            return candidate
    return None
