"""The pass registry and the default schedule (a C-Vise pass group in one list).

The schedule runs first the cheap whole-file cleanups, then the structural passes from coarse to
fine, repeating that main list until a full sweep changes nothing; last it joins lines, which
would have blinded the line pass earlier.
"""
from __future__ import annotations

from .aliases import Aliases
from .balanced import balanced_passes
from .base import Pass
from .constants import Constants
from .expr_constant import ExprConstant
from .globals import GlobalToLocal, LocalToGlobal
from .hoist import Hoist
from .inline import Inline
from .instantiate import Instantiate
from .lists import Initializers, ListElements
from .params import Params
from .rename import Rename
from .text import Blank, Comments, Lines, Tokens
from .table_index import RebaseIndex
from .tree_delete import TreeDelete
from .unused import Unused

REGISTRY: dict[str, Pass] = {
    p.name: p
    for p in (Comments(), Blank(join=False), Blank(join=True), Lines(), Tokens(), TreeDelete(), ListElements(), Initializers(),
              Params(), Hoist(), RebaseIndex(), Instantiate(), Unused(), Inline(), Aliases(), Constants(),
              ExprConstant(), Rename(), GlobalToLocal(), LocalToGlobal(),
              *balanced_passes().values())
}

FIRST = ("comments", "blank")
MAIN = (
    "instantiate", "unused", "inline", "aliases", "constants", "global-to-local", "local-to-global",
    "tree-delete", "braces", "lines", "rebase-index", "params", "list-elements", "angles", "initializers",
    "hoist", "braces-contents", "braces-delimiters", "parens", "parens-contents", "brackets",
    "parens-delimiters", "expr-constant",
    "tokens", "blank",
)
LAST = ("join-lines",)


def resolve(names: list[str]) -> list[Pass]:
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        raise KeyError(f"unknown pass(es): {', '.join(unknown)}; known: {', '.join(sorted(REGISTRY))}")
    return [REGISTRY[n] for n in names]


__all__ = ["Pass", "REGISTRY", "FIRST", "MAIN", "LAST", "resolve"]
