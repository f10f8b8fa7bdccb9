"""A file set as one candidate: the main file and the project headers it includes, serialized
into one byte string (a *bundle*), so everything that works on candidates (the engine's size
rule, the evaluator's memory, the journal, the verdict cache key) covers every file's content.

Format: a magic line, then per member `<length> <name>\\n` and `length` bytes of content. The
first member is the main file. Names are paths relative to the set's root (the deepest
directory holding the main file, every header and every include directory a header was found
through), so the relative layout of the user's tree, and with it every relative include, is kept.

An oracle *materialises* a bundle into its test directory: each member at its name below a
directory of its own; the include directories under the root are rewritten to their copies
(`Tree.rewrite_flags`).
"""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from interestingness.base.path_flags import PROJECT_DIRS, path_flags

MAGIC = b"#gpu-reduce file set 1\n"
TREE_DIR = "src"  # a file set's copy, below the compile's directory (paths relative to it in commands)


class BundleError(ValueError):
    pass


def check_name(name: str) -> str:
    """A member name must stay inside the directory it is materialised in."""
    p = PurePosixPath(name)
    if not name or "\n" in name or p.is_absolute() or ".." in p.parts or str(p) != name or name == ".":
        raise BundleError(f"bad member name {name!r}")
    return name


def encode(members: Sequence[tuple[str, bytes]]) -> bytes:
    out = bytearray(MAGIC)
    for name, text in members:
        out += f"{len(text)} {check_name(name)}\n".encode() + text
    return bytes(out)


def decode(data: bytes) -> list[tuple[str, bytes]]:
    if not data.startswith(MAGIC):
        raise BundleError("not a file set")
    members, pos = [], len(MAGIC)
    while pos < len(data):
        end = data.find(b"\n", pos)
        if end < 0:
            raise BundleError("truncated file set")
        size, _, name = data[pos:end].decode().partition(" ")
        start = end + 1
        if not size.isdigit() or start + int(size) > len(data):
            raise BundleError("truncated file set")
        members.append((check_name(name), data[start:start + int(size)]))
        pos = start + int(size)
    return members


def is_bundle(data: bytes) -> bool:
    return data.startswith(MAGIC)


def map_texts(data: bytes, fn: Callable[[bytes], bytes]) -> bytes:
    """The bundle with `fn` applied to each member (the evaluator's layout-free view)."""
    return encode([(name, fn(text)) for name, text in decode(data)])


def joined(data: bytes) -> bytes:
    """All members' texts one after the other (what sizes and token counts of a file set are
    taken of); any other content as it is."""
    return b"".join(text for _, text in decode(data)) if is_bundle(data) else data


def materialise(directory: Path, data: bytes) -> list[Path]:
    """Write every member below `directory` (made as needed); the paths, main file first."""
    paths = []
    for name, text in decode(data):
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text)
        paths.append(path)
    return paths


@dataclass(frozen=True)
class Tree:
    """Where a file set came from: its root directory (absolute) and the main file's member name."""

    root: str
    main: str

    def rewrite_flags(self, flags: Sequence[str], base: str) -> tuple[str, ...]:
        """-I/-iquote directories under the root point to their copies below `base` (a path
        relative to the compile's working directory, so commands are the same for every test);
        the original directory follows as a fallback for files that are not in the set."""
        out: list[str] = []
        for opt, value, tokens in path_flags(flags, PROJECT_DIRS):
            copy = self._copy(value, base) if value else None
            out += [opt + copy, *tokens] if opt and copy else tokens  # (a value comes with its option)
        return tuple(out)

    def main_dir_copy(self, base: str) -> str:
        return os.path.normpath(os.path.join(base, os.path.dirname(self.main)))

    def _copy(self, directory: str, base: str) -> str | None:
        if not os.path.isabs(directory):
            return None
        rel = os.path.relpath(os.path.realpath(directory), self.root)  # the root has its symlinks resolved
        if rel == ".." or rel.startswith("../"):
            return None
        return os.path.normpath(os.path.join(base, rel))
