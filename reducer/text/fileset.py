"""Multi-file runs without flattening: the main file and every project header it includes (the
set `flatten` would inline) are reduced as one file set, whose candidate is a bundle of all
their texts (`interestingness.base.bundle`). The engine reduces one file of it at a time
(`Engine.reduce_parts`), the oracles materialise bundles, and the user's files are never touched:
the reduced set is written to OUTPUT.files/, at the files' paths relative to the set's root.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from interestingness.base.bundle import Tree, decode, encode

from .files import atomic_write
from .flatten import flatten


def collect(file: Path, text: bytes, dirs: Sequence[Path]) -> tuple[Tree, bytes] | None:
    """The tree and bundle of `file` (as `text`) and its project headers, or None without any.
    The root is the deepest directory holding the main file, every header, and every include
    directory a header lies in, so each header keeps its path relative to its include directory."""
    main = file.resolve()
    _, headers = flatten(main, text, dirs)
    if not headers:
        return None
    used = [d for d in dirs if any(h.is_relative_to(d) for h in headers)]
    root = Path(os.path.commonpath([main.parent, *headers, *used]))
    tree = Tree(str(root), main.relative_to(root).as_posix())
    members = [(tree.main, text)] + [(h.relative_to(root).as_posix(), h.read_bytes()) for h in headers]
    return tree, encode(members)


def output_tree(output: Path) -> Path:
    """Where the reduced file set goes: OUTPUT.files/ next to the result."""
    return output.with_name(output.name + ".files")


def write_tree(directory: Path, data: bytes, before: bytes | None = None) -> None:
    """Every member of the bundle below `directory`, each replaced atomically; members that are
    the same as in `before` are not rewritten."""
    old = dict(decode(before)) if before else {}
    for name, text in decode(data):
        if old.get(name) == text and (directory / name).is_file():
            continue
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text)


def sizes(original: bytes, result: bytes) -> list[dict]:
    """Bytes per file, before and after, main file first."""
    after = dict(decode(result))
    return [{"file": name, "original": len(text), "result": len(after.get(name, b""))}
            for name, text in decode(original)]
