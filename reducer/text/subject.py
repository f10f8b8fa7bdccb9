"""What a run reduces, behind one interface: one file, or a file set (the main file and the
project headers it includes, reducer/text/fileset.py), so the run, its report and its bug report never
ask which. A candidate is the file's text, or a bundle of the set's texts
(interestingness/base/bundle.py); either way it is made of parts, main file first, which the engine
reduces in turn and the oracles build."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from interestingness.base import bundle
from interestingness.base.bundle import TREE_DIR, Tree

from . import fileset
from .files import atomic_write
from .source import language_for


class Subject:
    """A candidate's parts and their names, and where a result goes."""

    tree: Tree | None = None  # where a file set came from (the oracles build candidates of it)
    names: list[str]          # the parts' names, main file first

    def parts(self, content: bytes) -> list[bytes]:
        raise NotImplementedError

    def join(self, parts: Sequence[bytes]) -> bytes:
        raise NotImplementedError

    def main_text(self, content: bytes) -> bytes:
        return self.parts(content)[0]

    def joined(self, content: bytes) -> bytes:
        """Every part's text, one after the other: what sizes and token counts are taken of."""
        return b"".join(self.parts(content))

    def size(self, content: bytes) -> int:
        return len(self.joined(content))

    def empty(self) -> bytes:
        """The candidate with every part empty."""
        return self.join([b"" for _ in self.names])

    def languages(self, content: bytes) -> list[str]:
        """Each part's language, from its name and text (`.h` is C++, or CUDA when it uses HIP syntax)."""
        return [language_for(Path(name), text) for name, text in zip(self.names, self.parts(content))]

    def introduce(self, original: bytes, output: Path) -> list[str]:
        """What the run says of its subject beyond the main file."""
        return []

    def output_tree(self, output: Path) -> Path | None:
        """Where the result's other files go, beside OUTPUT."""
        return None

    def check_output(self, output: Path, force: bool) -> None:
        """Never write over an existing result's files without `force` (FileExistsError)."""

    def write_result(self, output: Path, content: bytes) -> None:
        """OUTPUT, the result's main file (after its other files), replaced atomically."""
        atomic_write(output, self.main_text(content))

    def result_files(self, content: bytes) -> list[tuple[str, bytes]]:
        """The result as (relative path, text), main file first, at the paths the oracle builds
        it at: what a bug report holds."""
        raise NotImplementedError

    def file_sizes(self, original: bytes, result: bytes) -> list[dict[str, Any]] | None:
        """Bytes per file, before and after, for the summary; None for one file."""
        return None

    def where(self, output: Path) -> dict[str, str] | None:
        """Where the files came from and where they went, for the summary; None for one file."""
        return None


class OneFile(Subject):
    """One file: a candidate is its text."""

    def __init__(self, file: Path):
        self.names = [file.name]

    def parts(self, content: bytes) -> list[bytes]:
        return [content]

    def join(self, parts: Sequence[bytes]) -> bytes:
        return parts[0]

    def result_files(self, content: bytes) -> list[tuple[str, bytes]]:
        return [(self.names[0], content)]


class FileSet(Subject):
    """The main file and its project headers (`tree`): a candidate is a bundle of their texts;
    the result's files go to OUTPUT.files/ at their paths relative to the tree's root."""

    tree: Tree  # always one

    def __init__(self, tree: Tree, original: bytes):
        self.tree = tree
        self.names = [name for name, _ in bundle.decode(original)]
        self._written: bytes | None = None  # the last result written: unchanged files are not rewritten

    def parts(self, content: bytes) -> list[bytes]:
        return [text for _, text in bundle.decode(content)]

    def join(self, parts: Sequence[bytes]) -> bytes:
        return bundle.encode(list(zip(self.names, parts)))

    def introduce(self, original: bytes, output: Path) -> list[str]:
        return [f"with its {len(self.names) - 1} project header(s), as one file set of "
                f"{self.size(original)} bytes (root {self.tree.root}); reduced headers go to "
                f"{self.output_tree(output)}/"]

    def output_tree(self, output: Path) -> Path:
        return fileset.output_tree(output)

    def check_output(self, output: Path, force: bool) -> None:
        if self.output_tree(output).exists() and not force:
            raise FileExistsError(f"output directory {self.output_tree(output)} exists; remove it, choose another "
                                  "-o, or pass --force")

    def write_result(self, output: Path, content: bytes) -> None:
        fileset.write_tree(self.output_tree(output), content, self._written)
        super().write_result(output, content)
        self._written = content

    def result_files(self, content: bytes) -> list[tuple[str, bytes]]:
        return [(f"{TREE_DIR}/{name}", text) for name, text in bundle.decode(content)]

    def file_sizes(self, original: bytes, result: bytes) -> list[dict[str, Any]]:
        return fileset.sizes(original, result)

    def where(self, output: Path) -> dict[str, str]:
        return {"root": self.tree.root, "output": str(self.output_tree(output))}


def subject_of(file: Path, tree: Tree | None, original: bytes) -> Subject:
    """The subject of a run on `file` whose original (in the work directory) is `original`: a file
    set when the run's state names its tree."""
    return FileSet(tree, original) if tree is not None else OneFile(file)
