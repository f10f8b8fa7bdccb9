"""The experiments, `jobs` builds at a time: each pass name disabled alone in one stage (the
ablation), which executions of a culprit are enough alone (skipped one at a time, or halved),
the dumps around one, and the `-opt-bisect-limit` search for an LLVM without a pass gate by name."""
from __future__ import annotations

import dataclasses
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from joblib import Parallel, delayed

from interestingness.measure.metrics import Metrics
from interestingness.tools.explain.dumps import Dump, pick_dumps
from interestingness.tools.explain.knobs import OutOfTime
from interestingness.tools.explain.pass_log import (
    PassGates,
    PassRun,
    legacy_arguments,
    parse_log,
    pass_indices,
    skip_intervals,
    unchanged_executions,
)
from interestingness.tools.explain.stages import Build, stage_title

MAX_SINGLE = 16  # a culprit with at most this many executions has each tried alone; more are halved
MAX_REPORTED = 2000  # a stage with more pass executions is not asked which changed nothing (Explainer.settle)
# what an ablation's build did to the predicate (Ablation.outcome), in the order they are listed
OUTCOMES = ("culprit", "lost-mfma", "worse", "better", "same", "error", "unknown", "not built")

Progress = Callable[..., None]  # progress(kind, **info): see explain_file


@dataclass
class Ablation:
    stage: str
    name: str
    disabled: int  # pass executions the build skipped (from its log); 0: the name never ran
    on_kernel: int  # of those, executions on the target kernel
    figures: Metrics | None
    holds: bool | None  # the predicate, with the other side as built
    reason: str  # why it does not hold
    outcome: str  # one of OUTCOMES
    seconds: float
    failure: str = ""
    note: str = ""
    built: bool = True  # False: settled without a build of its own (Explainer.settle)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class Culprit:
    """A pass without which the predicate no longer holds, the MFMA count unchanged."""

    stage: str
    name: str
    figures: Metrics
    instances: list[int]  # the opt-bisect indices of its executions in the stage's log
    enough: list[int] = field(default_factory=list)  # executions that are enough alone (skipped alone, it is lost)
    together: list[int] = field(default_factory=list)  # else the fewest found that are enough together
    instance_note: str = ""
    command: str = ""  # the build with it disabled, by hand
    dump: Dump | None = None

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["dump"] = self.dump.to_json() if self.dump else None
        return out


class Explainer:
    def __init__(self, builds, gates: PassGates, bindir: str, jobs: int, progress: Progress | None,
                 options: Callable[[str], frozenset[str]] = lambda stage: frozenset()):
        self.b = builds
        self.gates = gates
        self.options = options  # stage -> the LLVM options its toolchain lists (the knobs')
        self.bindir = bindir
        self.jobs = max(1, jobs)
        self.say: Progress = progress or (lambda kind, **info: None)
        self.count = 0
        self.lock = threading.Lock()
        self.notes: list[str] = []
        self.deadline: float | None = None  # time.monotonic() after which no build starts (OutOfTime)

    def out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def note(self, message: str) -> None:
        self.notes.append(message)
        self.say("note", message=message)

    def map(self, fn: Callable, items: Sequence, phase: str) -> list:
        """fn over items, `jobs` builds at a time (threads: the work is in the compilers), in order."""
        out: list = [None] * len(items)
        self.say("start", phase=phase, total=len(items))
        if self.jobs == 1 or len(items) <= 1:
            for i, item in enumerate(items):
                out[i] = fn(item)
                self.say("advance", phase=phase, done=i + 1, total=len(items))
        else:
            parallel = Parallel(n_jobs=self.jobs, backend="threading", return_as="generator_unordered")
            for done, (i, result) in enumerate(parallel(delayed(_indexed)(fn, i, item)
                                                        for i, item in enumerate(items)), 1):
                out[i] = result
                self.say("advance", phase=phase, done=done, total=len(items))
        return out

    def build(self, stage: str, opts: Sequence[str], **side: Any) -> Build:
        """One build of `stage` (`side=`: its side built otherwise, SourceBuilds.build), counted.
        Raises OutOfTime instead of starting past the deadline."""
        if self.out_of_time():
            raise OutOfTime
        with self.lock:
            self.count += 1
        return self.b.build(stage, opts, **side)

    def verdict(self, stage: str, figures: Metrics | None, base: dict[str, Metrics | None]) -> tuple[bool | None, str]:
        tables = dict(base)
        tables[self.b.side(stage)] = figures
        first, second = (tables.get(s) for s in self.b.sides)
        if figures is None:
            return False, "kernel missing"
        holds = self.b.predicate.evaluate(first, second)
        return holds, "" if holds else self.b.predicate.explain(first, second)

    def lost(self, stage: str, build: Build, base: dict[str, Metrics | None]) -> bool:
        """The predicate no longer holds, and the MFMA count is what it was: the pass made the difference."""
        if not build.ok or build.figures is None:
            return False
        holds, _ = self.verdict(stage, build.figures, base)
        return holds is False and build.figures.get("mfma") == (base[self.b.side(stage)] or {}).get("mfma")

    # -- ablation

    def disable_options(self, name: str, log: Sequence[PassRun]) -> list[str]:
        if self.gates.disable:
            return [f"-opt-disable={name}",
                    "-opt-disable-enable-verbosity" if self.gates.disable_log else "-opt-bisect-limit=-1"]
        return [f"-opt-bisect={skip_intervals(pass_indices(log, name))}"]

    def settle(self, stage: str, names: Sequence[str], log: Sequence[PassRun],
               base: dict[str, Metrics | None]) -> list[Ablation]:
        """The ablations of `names` that need no build of their own: those whose every execution in
        the stage's log changed nothing (pass_log.unchanged_executions, from a build of the stage
        with change_report's options). Disabled, such a name leaves the pipeline as it ran (by
        induction: each skipped execution would have changed nothing), so its outcome is `same`,
        with the figures as built. What no log shows (caches inside an analysis the pass queried,
        the order of a value's uses) is checked by one build with all of them disabled together:
        unless it skips exactly their executions and gives the figures as built, none is settled
        and each is built. Not asked: a stage of more than MAX_REPORTED executions (the report prints
        the whole module twice an execution), or whose log lacks some (lines of lld's codegen
        threads written over each other)."""
        figures = base[self.b.side(stage)]
        order = [(r.index, r.name) for r in log]
        if not self.gates.disable or not names or not self.b.change_report(stage) or len(log) > MAX_REPORTED or \
                [i for i, _ in order] != list(range(1, len(log) + 1)):
            return []
        report = self.build(stage, ["-opt-bisect-limit=-1"], raw=self.b.change_report(stage))
        if report.figures != figures or [(r.index, r.name) for r in parse_log(report.log, [])] != order:
            self.note(f"the {stage_title(stage)} built with the change report gave other figures or executions than "
                      "its log: each pass name is built")
            return []
        quiet = unchanged_executions(report.log)
        chosen = [n for n in names if "," not in n and (ix := pass_indices(log, n)) and quiet.issuperset(ix)]
        if not chosen:
            return []
        build = self.build(stage, self.disable_options(",".join(chosen), log))
        skipped = Counter(r.name for r in parse_log(build.log, build.on(self.b.target)) if not r.ran)
        expected = Counter(r.name for r in log if r.name in chosen)
        if not build.ok or build.figures != figures or skipped != expected:
            why = build.failure if not build.ok else "other figures" if build.figures != figures else \
                "other executions skipped"
            self.note(f"the {len(chosen)} pass names that changed nothing in the {stage_title(stage)}, disabled "
                      f"together, did not give the build as it was ({why}): each is built")
            return []
        holds, why = self.verdict(stage, figures, base)
        return [Ablation(stage, n, expected[n], sum(r.kernel for r in log if r.name == n), figures, holds, why,
                         "same", 0.0, note="not built: every execution changed nothing (disabled together with the "
                         "others that changed nothing: the figures as built)", built=False) for n in chosen]

    def ablate(self, job: tuple[str, str, list[PassRun], dict]) -> Ablation:
        stage, name, log, base = job
        try:
            build = self.build(stage, self.disable_options(name, log))
        except OutOfTime:
            return Ablation(stage, name, 0, 0, None, None, "", "not built", 0.0,
                            note="not built: the explanation's time bound had passed", built=False)
        runs = parse_log(build.log, build.on(self.b.target))
        skipped = [r for r in runs if not r.ran]
        note = ""
        if not self.gates.disable and any(r.name != name for r in skipped):
            note = "the opt-bisect indices moved: other passes were skipped too"
        a = Ablation(stage, name, len(skipped), sum(r.kernel for r in skipped), build.figures, None, "", "same",
                     round(build.seconds, 2), build.failure, note)
        if not build.ok or build.figures is None:
            a.outcome, a.holds, a.reason = "error", None, build.failure
            return a
        if not skipped:
            a.outcome = "unknown"
        a.holds, a.reason = self.verdict(stage, build.figures, base)
        if a.outcome == "unknown":
            return a
        side = (base[self.b.side(stage)] or {})
        spills = (build.figures.get("vgpr_spills") or 0, build.figures.get("spill_ops") or 0)
        before = (side.get("vgpr_spills") or 0, side.get("spill_ops") or 0)
        if a.holds is not True:
            a.outcome = "culprit" if build.figures.get("mfma") == side.get("mfma") else "lost-mfma"
        elif spills != before:  # by VGPRs spilled, then by spill code
            a.outcome = "worse" if spills > before else "better"
        return a

    # -- where it starts

    def locate(self, culprits: Sequence[Culprit], base: dict) -> None:
        """Which executions of each culprit are enough alone: each skipped alone when there are
        few, halving when there are many (MAX_SINGLE), all culprits' builds `jobs` at a time."""
        work: list[tuple[Culprit, int | None]] = []
        for c in culprits:
            if len(c.instances) == 1:
                c.enough, c.instance_note = list(c.instances), "it runs once in this stage"
            elif not self.gates.intervals:
                c.instance_note = ("not searched: this LLVM has no -opt-bisect=INTERVALS (LLVM 22+) to skip one "
                                   "execution")
            elif len(c.instances) <= MAX_SINGLE:
                work += [(c, i) for i in c.instances]
            else:
                work.append((c, None))
        outcome = self.map(lambda job: self.halve(job[0], base) if job[1] is None else
                           self.lost_exactly(job[0].stage, *self.skip_build(job[0].stage, [job[1]]), base),
                           work, "executions")
        for c in culprits:
            singles = [i for (owner, i), lost in zip(work, outcome) if owner is c and i is not None and lost]
            if any(owner is c and i is not None for owner, i in work):
                c.enough = singles
                c.together = [] if singles else list(c.instances)
                c.instance_note = (f"{len(c.instances)} executions, each skipped alone: "
                                   + (f"enough alone: {', '.join(map(str, singles))}" if singles
                                      else "none is enough alone; it takes them together"))

    def skip_build(self, stage: str, indices: Sequence[int]) -> tuple[Build, bool]:
        """A build that skips exactly the executions at `indices`; whether its log says it did."""
        build = self.build(stage, [f"-opt-bisect={skip_intervals(indices)}"])
        skipped = {r.index for r in parse_log(build.log, build.on(self.b.target)) if not r.ran}
        return build, skipped == set(indices)

    def lost_exactly(self, stage: str, build: Build, exact: bool, base: dict) -> bool:
        return exact and self.lost(stage, build, base)

    def halve(self, c: Culprit, base: dict) -> None:
        """Skip half of the executions, keep the half that loses the predicate, until one is left."""
        group, steps = list(c.instances), 0
        while len(group) > 1:
            half = len(group) // 2
            for part in (group[:half], group[half:]):
                build, exact = self.skip_build(c.stage, part)
                steps += 1
                if exact and self.lost(c.stage, build, base):
                    group = part
                    break
            else:
                c.together = group
                c.instance_note = (f"{len(c.instances)} executions, halved in {steps} builds: " + (
                    f"executions {', '.join(map(str, group))} are enough together, neither half of them alone"
                    if len(group) < len(c.instances) else "neither half is enough alone; it takes executions "
                    "from both"))
                return
        c.enough = group
        c.instance_note = (f"{len(c.instances)} executions, halved in {steps} builds: execution {group[0]} is enough "
                           "alone (there may be others)")

    def dump(self, culprit: Culprit, log: Sequence[PassRun]) -> Dump:
        """The IR or MIR of the function the chosen execution ran on, just before and after it."""
        runs = [r for r in log if r.name == culprit.name]
        together = [r for r in runs if r.index in culprit.together]
        chosen = next((r for r in runs if r.index in culprit.enough), None) or \
            next((r for r in together if r.kernel), None) or next(iter(together), None) or \
            next((r for r in runs if r.kernel), None) or runs[0]
        function = chosen.function or self.b.target  # a helper, a callee, the kernel; a module or SCC: the kernel
        arg = legacy_arguments(self.bindir).get(culprit.name, culprit.name)
        d = Dump(chosen.index, function, arg)
        build = self.build(culprit.stage, [f"-print-before={arg}", f"-print-after={arg}",
                                           f"-filter-print-funcs={function}", "-opt-bisect-limit=-1"])
        if not build.ok:
            d.note = f"the build with the dumps failed: {build.failure}"
            return d
        pick_dumps(build.log, chosen.index, d)
        if not d.before and not d.after:
            d.note = (f"no dump of {function} around execution {chosen.index} "
                      f"(-print-before/-print-after={arg} printed nothing there)")
        elif not d.diff():
            d.note = (f"{function} prints the same before and after it: what the pass changes is not in the "
                      "function's own text (its attributes, a global, another function)")
        return d

    def limit_search(self, stage: str, log: Sequence[PassRun], base: dict) -> dict[str, Any]:
        """The classic bisection, for an LLVM without -opt-disable and intervals: with
        -opt-bisect-limit=N only executions 1..N run. Spilling is no miscompile: with none of the
        optional passes the kernel spills too, so the search goes back from the end (N = last,
        last - 1, last - 2, last - 4, ...) to the latest N without the predicate, then halves up to
        the execution k whose running makes it hold (given every one before it ran)."""
        last = max((r.index or 0) for r in log)
        holds: dict[int, bool] = {}

        def check(n: int) -> bool:
            b = self.build(stage, [f"-opt-bisect-limit={n}"])
            holds[n] = bool(b.ok and self.verdict(stage, b.figures, base)[0])
            return holds[n]

        hi, step, lo = last, 1, None
        while lo is None:
            n = max(0, last - step)
            if not check(n):
                lo = n
            elif n == 0:
                return {"stage": stage, "index": None, "builds": len(holds),
                        "note": "the predicate holds with the limit at every point tried, down to no optional pass "
                                "at all: no execution found whose running makes it hold"}
            else:
                hi, step = n, step * 2
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if check(mid) else (mid, hi)
        at = next((r for r in log if r.index == hi), None)
        return {"stage": stage, "index": hi, "name": at.name if at else None, "on": at.on if at else None,
                "builds": len(holds), "note": f"-opt-bisect-limit={hi}: the predicate holds; {lo}: it does not"}


def _indexed(fn: Callable, i: int, item: Any) -> tuple[int, Any]:
    return i, fn(item)
