"""The pass registry and the default schedule (a C-Vise pass group in one list).

The schedule runs first the cheap whole-file cleanups and what the compiler's footprint says no
kept kernel reaches (unreached, folded), then the structural passes from coarse to fine,
repeating that main list until a full sweep changes nothing; then the replacement passes,
which go past that fixpoint (and back to the main list when one is accepted); last it joins
lines, which would have blinded the line pass earlier.

A pass only enumerates items of edits on a Source (base.py); it never tests, chunks or schedules.
One module a pass; what passes share is in helper modules (base, cxx, names, folding,
consteval, literals, and hygiene, the end-of-run rules run/finish.py applies).
May import: text/. Not the engine, a run or an oracle.
"""
from __future__ import annotations

from .aliases import Aliases
from .balanced import balanced_passes
from .base import Pass
from .branches import Branches
from .conditionals import Conditionals
from .constants import Constants
from .expr_constant import ExprConstant
from .folded import Folded
from .forward import Forward
from .globals import GlobalToLocal, LocalToGlobal
from .hoist import Hoist
from .inline import Inline
from .instantiate import Instantiate
from .lists import Initializers, ListElements
from .macros import Macros
from .params import Params
from .plain import Plain
from .rename import Rename
from .replace import ReplaceCalls, ReplaceSubtrees, ReplaceTypes
from .table_index import RebaseIndex
from .text import Blank, Comments, Lines, Tokens
from .tree_delete import TreeDelete
from .unreached import Unreached
from .unused import Unused


def _registry(*all_passes: Pass) -> dict[str, Pass]:
    names = [p.name for p in all_passes]
    assert len(set(names)) == len(names), "two passes share a name"
    return {p.name: p for p in all_passes}


REGISTRY: dict[str, Pass] = _registry(
    Comments(), Blank("blank", "remove blank lines, indentation and runs of spaces; lines stay lines", join=False),
    Blank("join-lines", "join lines the preprocessor does not need apart", join=True),
    Lines(), Tokens(), Conditionals(), Macros(), Branches(), TreeDelete(), ListElements(), Initializers(), Params(),
    Hoist(), RebaseIndex(), Instantiate(), Unreached(), Folded(), Plain(),
    Unused(), Inline(), Aliases(), Constants(), Forward(), ExprConstant(), Rename(), GlobalToLocal(), LocalToGlobal(),
    ReplaceCalls(), ReplaceTypes(), ReplaceSubtrees(),
    *balanced_passes(),
)

FIRST = ("comments", "blank", "unreached", "folded")
MAIN = (
    "unreached", "folded", "instantiate", "plain", "conditionals", "macros", "branches", "unused", "inline", "aliases",
    "constants", "forward", "global-to-local",
    "local-to-global",
    "tree-delete", "braces", "lines", "rebase-index", "params", "list-elements", "angles", "initializers",
    "hoist", "braces-contents", "braces-delimiters", "parens", "parens-contents", "brackets",
    "parens-delimiters",
    "tokens", "blank",
)
# the replacement stage: run once a sweep of the main passes removes nothing; when one of them is
# accepted, the main sweeps resume (Schedule.next_sweep). expr-constant is one: a constant for a
# value mostly changes the code a spill depends on, and the init guard sends back about half of
# its kept steps (an array element no longer written). Among the main passes on the README's case
# it took 29% of the oracle's time for 62 bytes, and the run ended larger with it (notes/engine.md)
REPLACE = ("expr-constant", "replace-calls", "replace-types", "replace-subtrees")
LAST = ("join-lines",)
# main passes the engine runs again, mid-pass, as soon as the file has shrunk enough, and between
# two passes whenever it has changed (Schedule.revisit)
REVISIT = ("unreached", "instantiate", "plain", "unused")
# the coarse head of the main list, run again before the next fine pass once the fine passes have
# shrunk the file by a tenth since it last ran (Schedule.coarse)
COARSE = MAIN[:MAIN.index("tree-delete") + 1]


def catalogue() -> str:
    """The default schedule in order, each pass with its summary, then the passes outside it
    (what `reduce passes` prints)."""
    width = max(map(len, REGISTRY)) + 2
    lines = ["The default schedule: the first passes once, then sweeps of the main passes until one removes",
             "nothing, then the replacement passes (with --test; with the built-in oracle only with",
             "--replacements); when one of these is accepted, the main sweeps resume and the replacement",
             "passes come again at their next fixpoint. Last, the last passes once. --skip-passes takes",
             "passes out of it; --passes runs only the passes it names, swept as the main passes.",
             f"Within a sweep, {', '.join(REVISIT[:-1])} and {REVISIT[-1]} run again between two searches of",
             "another pass as soon as the file has shrunk by a fifth since they last ran, and after any pass",
             "that changed it (the footprint passes ask the compiler again then); when one of them changes",
             "the file, those before it run again at once (a kernel made plain leaves its template unreached);",
             f"the main passes through {COARSE[-1]} run again before the next pass once the passes after them",
             "have shrunk the file by a tenth, unless only the sweep's closing blank is left before the next",
             "sweep starts with them anyway.",
             "Then, with --format, hygiene: empty statements and unused labels go; uninitialised scalars get",
             "`= 0` and constant loop conditions their bound back only with the built-in oracle (a spill or",
             "miscompile report must be defined code) or --initialise (scripts: a diagnostic case would only",
             "grow); then clang-format. Each step is kept only when still interesting."]
    for title, names in (("first", FIRST), ("main", MAIN), ("replace", REPLACE), ("last", LAST)):
        lines += ["", f"{title}:"] + [f"  {n:<{width}}{REGISTRY[n].summary}" for n in names]
    scheduled = {*FIRST, *MAIN, *REPLACE, *LAST}
    lines += ["", "not in the default schedule (--passes runs them; --rename adds rename to the main passes):"]
    lines += [f"  {n:<{width}}{p.summary}" for n, p in REGISTRY.items() if n not in scheduled]
    return "\n".join(lines)


def resolve(names: list[str]) -> list[Pass]:
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        raise KeyError(f"unknown pass(es): {', '.join(unknown)}; known: {', '.join(sorted(REGISTRY))}")
    return [REGISTRY[n] for n in names]


__all__ = ["Pass", "REGISTRY", "FIRST", "MAIN", "REPLACE", "LAST", "REVISIT", "COARSE", "catalogue", "resolve"]
