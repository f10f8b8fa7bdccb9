"""What the two sides of a `--side` run differ by, and which of those flags alone move the spill.

A backend engineer handed "base spills, ilp does not" first asks what the two builds differ in.
Two sides of one mode and one compiler differ only by flags: each flag the other side has and
the spilling side lacks (or the reverse) is one change, applied to the spilling side in its own
build, the other side as built, and judged by the oracle's predicate as a knob is (knobs.judge).
Each change alone first; when none is enough alone, the fewest found enough together (every
change whose removal keeps the spill moved is dropped, one at a time). Every answer is a build.
Two compilers, or two modes, cannot be stepped between here: that is said, with each side's command.

A flag is a word with the words it takes (`-Xoffload-linker -mllvm=OPT`, `-Xclang -mllvm -Xclang
OPT`, `-D NAME`), so a change is never half an option.
"""
from __future__ import annotations

import dataclasses
import os
import shlex
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from interestingness.compiler.sides import Side
from interestingness.measure.metrics import Metrics
from interestingness.tools.explain.knobs import judge
from interestingness.tools.explain.stages import PRELINK, stage_kind

# options whose value is the next word (the driver's forwarding options and the usual separate ones)
TAKES_VALUE = frozenset({
    "-Xclang", "-Xoffload-linker", "-Xarch_device", "-Xarch_host", "-Xlinker", "-Xassembler", "-Xpreprocessor",
    "-Xopenmp-target", "-Xcuda-ptxas", "-Xcuda-fatbinary", "-mllvm", "-D", "-U", "-I", "-include", "-isystem",
    "-iquote", "-idirafter", "-x", "-o", "-target", "-MF", "-MT", "-MQ",
})
MAX_CHANGES = 12  # more differing flags are tried all together and each alone, not minimised
MOVED = ("removes", "recovers")  # a change's outcomes that move the spill


def flag_units(words: Sequence[str]) -> list[tuple[str, ...]]:
    """A command line's words as flags, each with the words it takes; a forwarded option that takes
    a value gets it forwarded the same way (`-Xclang -mllvm -Xclang OPT` is one flag)."""
    out, i = [], 0
    while i < len(words):
        j = i + 1
        if words[i] in TAKES_VALUE and j < len(words):
            j += 1
            while words[j - 1] in TAKES_VALUE and j + 1 < len(words) and words[j] == words[i]:
                j += 2
        out.append(tuple(words[i:j]))
        i = j
    return out


@dataclass(frozen=True)
class Change:
    """One flag the spilling side gets (`add`: the other side has it) or loses (`remove`)."""

    add: bool
    flag: tuple[str, ...]

    def __str__(self) -> str:
        return ("add " if self.add else "remove ") + shlex.join(self.flag)


def changes(spilling: Side, other: Side) -> list[Change]:
    """The flags only one of the two sides has (a flag given twice counts twice), as changes to the
    spilling side: its own first (removed), then the other's (added), each in its order."""
    mine, theirs = Counter(flag_units(spilling.flags)), Counter(flag_units(other.flags))
    out: list[Change] = []
    for add, units, less in ((False, flag_units(spilling.flags), theirs), (True, flag_units(other.flags), mine)):
        left = Counter(less)
        for u in units:
            if left[u]:
                left[u] -= 1
            else:
                out.append(Change(add, u))
    return out


def applied(side: Side, chosen: Sequence[Change]) -> Side:
    """`side` with the changes made: the flags removed dropped (the first of each), the added after its own."""
    units = flag_units(side.flags)
    for c in chosen:
        if not c.add and c.flag in units:
            units.remove(c.flag)
    units += [c.flag for c in chosen if c.add]
    return dataclasses.replace(side, flags=tuple(w for u in units for w in u))


@dataclass
class FlagTry:
    """The spilling side built with some of the changes: the target kernel's figures and the predicate."""

    changes: list[str]  # as Change prints them: "add -Xoffload-linker -mllvm=..." / "remove -O3"
    figures: Metrics | None
    holds: bool | None
    outcome: str  # knobs.KNOB_OUTCOMES' (removes, recovers: the spill moved)
    command: str  # the spilling side's build with them, by hand
    failure: str = ""

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class SideDiff:
    """What the two sides differ by, and the flags that move the spill."""

    spilling: str  # the side with the spill
    other: str
    specs: dict[str, str]  # side -> its spec (sides.Side.spec)
    commands: dict[str, str]  # side -> its build, by hand
    differ: list[str]  # "flags", "compiler", "mode": what the sides differ in
    changes: list[str] = field(default_factory=list)  # the flags only one side has, as changes to the spilling side
    tries: list[FlagTry] = field(default_factory=list)
    cause: list[str] = field(default_factory=list)  # changes enough together (or each alone: `alone`)
    alone: bool = False  # each change of `cause` is enough alone
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["tries"] = [t.to_json() for t in self.tries]
        return out


def side_diff(ex: Any, stage: str, base: dict[str, Metrics | None]) -> SideDiff:
    """The difference between the sides, `stage` the spilling side's code-generating one; with
    one mode and one compiler, the flag changes that move the spill, found by builds (`ex`: the
    Explainer, whose builds are SourceBuilds)."""
    b = ex.b
    spilling = b.compiler.side(b.side(stage))
    other = next(b.compiler.side(n) for n in b.sides if n != spilling.name)
    first = next(st for st in b.stages if b.side(st) == other.name and stage_kind(st) != PRELINK)
    diff = SideDiff(spilling.name, other.name, {s.name: s.spec() for s in (spilling, other)},
                    {spilling.name: b.by_hand(stage), other.name: b.by_hand(first)}, [])
    diff.changes = [str(c) for c in changes(spilling, other)]
    clangs = {os.path.realpath(b.clang(st)) for st in b.stages}
    diff.differ = [what for what, differs in (("mode", spilling.lto != other.lto),
                                              ("compiler", len(clangs) > 1),
                                              ("flags", bool(diff.changes))) if differs]
    if diff.differ != ["flags"]:
        return diff
    todo = changes(spilling, other)
    side_figures = base.get(spilling.name) or {}
    seen: dict[tuple[Change, ...], FlagTry] = {}

    def one(chosen: tuple[Change, ...]) -> FlagTry:
        side = applied(spilling, chosen)
        build = ex.build(stage, [], side=side)
        t = FlagTry([str(c) for c in chosen], build.figures, None, "error", b.by_hand(stage, side=side),
                    build.failure)
        if build.ok and build.figures is not None:
            t.holds, _ = ex.verdict(stage, build.figures, base)
            t.outcome = judge(build.figures, side_figures, t.holds)
        return t

    def tried(groups: list[tuple[Change, ...]]) -> list[FlagTry]:
        new = [g for g in dict.fromkeys(groups) if g not in seen]
        for g, t in zip(new, ex.map(one, new, "flags")):
            seen[g] = t
            diff.tries.append(t)
        return [seen[g] for g in groups]

    singles = tried([(c,) for c in todo])
    moved = [c for c, t in zip(todo, singles) if t.outcome in MOVED]
    if moved:
        diff.cause, diff.alone = [str(c) for c in moved], True
        return diff
    group = tuple(todo)
    if len(todo) == 1 or tried([group])[0].outcome not in MOVED:
        diff.note = (f"the spilling side with all {len(todo)} changes keeps the spill: the order of the flags, "
                     "or the other side's build itself, makes the difference" if len(todo) > 1 else
                     "the spilling side with the other side's flag keeps the spill")
        return diff
    if len(todo) > MAX_CHANGES:
        diff.cause, diff.note = [str(c) for c in group], f"more than {MAX_CHANGES} changes: not minimised"
        return diff
    shrunk = True
    while shrunk and len(group) > 1:  # drop each change whose absence keeps the spill moved
        shrunk = False
        for c in group:
            smaller = tuple(x for x in group if x != c)
            if tried([smaller])[0].outcome in MOVED:
                group, shrunk = smaller, True
                break
    diff.cause = [str(c) for c in group]
    return diff


def render(diff: SideDiff | None, run_from: str = "") -> list[str]:
    """EXPLAIN.md's section on the sides: each side's spec and build, what they differ in, and the
    flags that move the spill (the builds that say so)."""
    if diff is None:
        return []
    a, o = diff.spilling, diff.other
    out = ["## The sides\n", f"`{a}` spills, `{o}` does not; each side as given (`--side`) and built"
           + (f" ({run_from})" if run_from else "") + ":\n"]
    for name in (a, o):
        out.append(f"- `{name}`: `{diff.specs[name]}`\n\n  ```sh\n  {diff.commands[name]}\n  ```")
    out.append("")
    only = {add: [c.split(" ", 1)[1] for c in diff.changes if c.startswith("add ") == add] for add in (False, True)}
    flags = "; ".join(f"only `{name}` has " + ", ".join(f"`{f}`" for f in only[add])
                      for name, add in ((a, False), (o, True)) if only[add])
    if "compiler" in diff.differ:
        out.append("**A compiler difference**: the two sides are built by different clangs"
                   + (f" (and their flags differ: {flags})" if flags else "") + ". What changed between them "
                   "is in the commits between the two builds of LLVM, which cannot be bisected here: build LLVM at "
                   "commits between them and run the two commands above with each (the bundle's repro.sh as "
                   "`git bisect run`'s test, its `CLANG_<NAME>` pointing at the build). The knobs and the pass "
                   f"ablation below are of `{a}`'s compiler.\n")
    elif "mode" in diff.differ:
        out.append("The sides differ in their mode (full offload LTO or none)" + (f" and their flags: {flags}" if flags
                                                                                   else "") + ".\n")
    elif not diff.changes:
        out.append("The sides are built the same: no flag differs.\n")
    else:
        out.append(f"**A flag difference**: {flags}. Each change made to `{a}`'s build alone, `{o}` as built"
                   + ("" if diff.alone or not diff.cause else ", then together") + ":\n")
        out.append("| change to " + a + " | vgpr_spills | spill_ops | vgpr | mfma | predicate | outcome |")
        out.append("|---|---:|---:|---:|---:|---|---|")
        for t in diff.tries:
            f = t.figures or {}
            cells = " | ".join("-" if f.get(k) is None else str(f.get(k))
                               for k in ("vgpr_spills", "spill_ops", "vgpr", "mfma"))
            pred = "-" if t.holds is None else "holds" if t.holds else "no"
            out.append("| " + ", ".join(f"`{c}`" for c in t.changes) + f" | {cells} | {pred} | {t.outcome} |")
        out.append("")
        if diff.cause:
            what = " alone" if diff.alone else " together (each of them needed)"
            out.append("**Cause**: " + ", ".join(f"`{c}`" for c in diff.cause) + f"{what} moves the spill "
                       f"(`add`: `{o}`'s flag given to `{a}`, `remove`: `{a}`'s own flag taken away).\n")
            for chosen in ([[c] for c in diff.cause] if diff.alone else [diff.cause]):
                t = next(t for t in diff.tries if t.changes == chosen)
                out.append(f"`{a}` with " + ", ".join(f"`{c}`" for c in chosen)
                           + f", by hand:\n\n```sh\n{t.command}\n```\n")
        if diff.note:
            out.append(f"{diff.note}.\n")
    return out
