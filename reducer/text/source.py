"""One version of the file under reduction, with its parse tree made on demand.

HIP/CUDA sources use the CUDA grammar (tree-sitter-cpp reports `__global__`,
`__launch_bounds__` and `<<<...>>>` as errors); plain C/C++ uses the C++ grammar; anything else
(IR, scripts) is reduced as text only. Real headers have constructs neither grammar parses, so
callers compare error counts, never expect zero.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import tree_sitter
import tree_sitter_cpp
import tree_sitter_cuda

from .lexer import Token, tokenize

if TYPE_CHECKING:
    from .values import Bound

_GRAMMARS = {"cuda": tree_sitter_cuda.language, "cpp": tree_sitter_cpp.language}
_HIP_SUFFIXES = {".hip", ".cu", ".cuh"}
_CXX_SUFFIXES = {".c", ".cc", ".cp", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx", ".h++",
                 ".inc", ".inl", ".ipp", ".tpp"}
_HIP_MARKERS = re.compile(rb"__global__|__device__|__launch_bounds__|__shared__|<<<|hip_runtime|cuda_runtime")


def language_for(path: Path, text: bytes) -> str:
    """'cuda', 'cpp' or 'text': a .cpp that uses HIP syntax (a HIP repro often is one) gets CUDA."""
    suffix = path.suffix.lower()
    if suffix in _HIP_SUFFIXES:
        return "cuda"
    if suffix in _CXX_SUFFIXES:
        return "cuda" if _HIP_MARKERS.search(text) else "cpp"
    return "text"


@functools.cache
def _parser(language: str) -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(_GRAMMARS[language]()))


def walk(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """Pre-order traversal without recursion (deeply nested input must not overflow the stack)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


class Source:
    """`values`, when the run has a compiler to ask, answers questions about constant values in
    this text (reducer/text/values.py: `values(queries) -> {query: value}`, and which `#if` branches
    the compile takes: `values.marks(part)`); passes that fold use it, and fall back to the tree
    evaluator without it."""

    def __init__(self, text: bytes, language: str, values: Bound | None = None):
        self.text = text
        self.language = language
        self.values = values

    @cached_property
    def tree(self) -> tree_sitter.Tree | None:
        if self.language not in _GRAMMARS:
            return None
        return _parser(self.language).parse(self.text)

    @property
    def root(self) -> tree_sitter.Node | None:
        return self.tree.root_node if self.tree is not None else None

    @cached_property
    def error_count(self) -> int:
        """ERROR and MISSING nodes; only subtrees flagged `has_error` are visited."""
        if self.root is None:
            return 0
        count, stack = 0, [self.root]
        while stack:
            n = stack.pop()
            if not n.has_error:
                continue
            count += n.is_error or n.is_missing
            stack.extend(n.children)
        return count

    @cached_property
    def tokens(self) -> list[Token]:
        return tokenize(self.text)

    def nodes(self) -> Iterator[tree_sitter.Node]:
        return walk(self.root) if self.root is not None else iter(())
