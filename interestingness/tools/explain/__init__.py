"""`reduce explain`: which compiler passes make the difference, stage by stage.

A reduced case says what input triggers the bug; this says which passes do. For the target kernel
of a spill differential (the oracle's own target resolution, predicate and metrics):

- **Pipelines.** opt-bisect's log (`-opt-bisect-limit=-1`) of each stage: the LTO pre-link compile
  (the device cc1 of the LTO side, which emits bitcode), the LTO link (lld: the LTO pipeline, then
  codegen) and the no-LTO compile (cc1: the whole pipeline and codegen). Every optional pass
  execution is one line, with its index and what it ran on (a function, an SCC, the module, a
  loop), IR and machine passes alike.
- **Ablation.** Each pass name of a stage disabled alone (`-opt-disable=NAME`) in that stage only,
  the other side left as built: the target kernel's figures and the predicate's verdict. Culprits
  are the passes without which the predicate no longer holds while the MFMA count stays. A name
  whose every execution changed nothing (-print-changed, the pass manager's debug log) is settled
  as `same` without a build of its own, one build of all such names together checking it.
- **Where it starts.** For each culprit, which of its executions is enough alone (`-opt-bisect`
  intervals that skip one index), and the kernel's IR or MIR just before and after it
  (`-print-before`/`-print-after` with `-filter-print-funcs`).
- **Knobs.** Which backend options (scheduler strategies, register allocators) remove the spill,
  each built alone on the spilling side (knobs.py, its table knobs.toml).
- **Sides.** For two sides other than the default pair (`--side`), what they differ by: with one
  mode and one compiler, which of the differing flags alone move the spill (side_diff.py); the
  stages are then each side's (two LTO sides: `base.link`, `base.prelink`, `ilp.link`, ...).

The same runs on LLVM IR through llc (`explain_ir`): one stage, `llc`, with `reduce ir`'s oracle.

How the flags reach each stage (measured with clang 22.1, notes/explain.md): `-Xclang -mllvm
-Xclang OPT` reaches the device cc1 only (`-mllvm OPT` and `-Xarch_device -mllvm` reach lld too, as
`-plugin-opt`); `-Xoffload-linker -mllvm=OPT` reaches lld only. In LLVM 21 and 22, `-opt-disable`
is a pass gate of its own that replaces opt-bisect's (an `-opt-bisect-limit` beside it prints
nothing), with its own log under `-opt-disable-enable-verbosity` (no indices); both gates use the
names opt-bisect prints, which are the pass arguments (`gvn`, `machine-sink`) except for the legacy
loop passes of the codegen pipeline, named by description (`Loop Invariant Code Motion`).
-print-before/-print-after take arguments: descriptions are mapped through the legacy pass
registry that `opt --help-hidden` lists.

The parts, in the order a run goes through them: the stages and how each is built (stages.py),
the pass gates' logs (pass_log.py), the sides' difference (side_diff.py), the ablation and where it
starts (ablation.py, dumps.py), the knobs (knobs.py, knobs.toml), what was found and how it is
written (report.py); here, the entry points and the run of the phases.
May import: oracle/, compiler/, measure/, base/ (a part of tools/).
"""
from __future__ import annotations

import dataclasses
import os
import shlex
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from interestingness.base.bundle import Tree
from interestingness.base.process import run
from interestingness.compiler.sides import DEFAULT_SIDES, Side, default_predicate
from interestingness.compiler.toolchain import Toolchain
from interestingness.measure.metrics import Metrics, demangle
from interestingness.measure.predicates import DEFAULT_EFFECT
from interestingness.oracle.ir import ALT, LLC, IrInputError, IrOracle, find_llvm_tools, read_module
from interestingness.oracle.spill import OracleSetupError, SpillSetup
from interestingness.tools.explain.ablation import MAX_SINGLE, Ablation, Culprit, Explainer, Progress
from interestingness.tools.explain.knobs import Knob, OutOfTime, knob_table, option_names, try_knobs
from interestingness.tools.explain.pass_log import (
    PassGates,
    clang_gates,
    clang_help,
    llc_gates,
    llc_help,
    parse_log,
    pass_indices,
    pass_names,
)
from interestingness.tools.explain.report import ExplainResult
from interestingness.tools.explain.side_diff import side_diff
from interestingness.tools.explain.stages import (
    LLC_STAGE,
    Build,
    ByHand,
    IrBuilds,
    SourceBuilds,
    stage_short,
    stage_sides,
    stage_title,
)


class ExplainError(RuntimeError):
    """explain cannot start. `kind`: "not-interesting" (the verdict's reason), "usage", "toolchain",
    or one of IrInputError's kinds ("not-ir", "target", "llc")."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def _run(ex: Explainer, result: ExplainResult, stages: Sequence[str] | None, passes: Sequence[str] | None,
         dumps: bool, search: bool, knobs: Sequence[Knob], deadline: float | None = None) -> ExplainResult:
    """Logs, ablation, knobs, instance search and dumps, into `result` (whose baseline the logs give).
    `deadline` (time.monotonic()): no build starts after it but the logs' and the split check's, which
    every other build needs; what is left out is said in the notes and the tables, in the order the
    phases run (ablation, knobs, where it starts)."""
    b = ex.b
    started = time.monotonic()
    logs = ex.map(lambda stage: ex.build(stage, ["-opt-bisect-limit=-1"]), list(b.stages), "logs")
    base: dict[str, Metrics | None] = {}
    for stage, build in zip(b.stages, logs):
        if not build.ok or build.figures is None:
            raise ExplainError("not-interesting", f"the {stage_title(stage)} with opt-bisect's log does not give "
                               f"the kernel: {build.failure}")
        base.setdefault(b.side(stage), build.figures)
        if base[b.side(stage)] != build.figures:
            ex.note(f"the {stage_title(stage)}'s log build gave other figures than the first one of its side")
        result.pipelines[stage] = parse_log(build.log, build.on(b.target))
        result.commands[stage] = b.by_hand(stage, ["-opt-bisect-limit=-1"])
    if isinstance(b, IrBuilds) and b.oracle.differential:
        base[ALT] = b.build(LLC_STAGE, [], side=ALT).figures
    result.baseline = {s: base.get(s) for s in b.sides}
    holds, why = ex.verdict(b.stages[0], base[b.side(b.stages[0])], base)
    if holds is not True:
        raise ExplainError("not-interesting", f"the predicate does not hold on the builds with opt-bisect's log: {why}")
    seconds = {stage: build.seconds for stage, build in zip(b.stages, logs)}
    result.phases["logs"] = time.monotonic() - started
    if isinstance(b, SourceBuilds) and b.compiler.shared_front_end:
        mark = time.monotonic()
        seconds = _adopt_split(ex, b, logs) or seconds
        result.split = b.split
        result.phases["split check"] = time.monotonic() - mark
    ex.deadline = deadline
    left_out: list[str] = []
    if stages is None:
        stages = b.default_stages(base)
    if isinstance(b, SourceBuilds) and b.compiler.sides != DEFAULT_SIDES:
        mark = time.monotonic()
        try:
            result.sides_diff = side_diff(ex, b.spilling_stage(base), base)
        except OutOfTime:
            left_out.append("what the sides differ by")
        result.phases["sides"] = time.monotonic() - mark

    if not ex.gates.disable:
        if ex.gates.intervals:
            ex.note("this LLVM has no -opt-disable (LLVM 21+): each pass name is disabled by -opt-bisect intervals "
                    "that skip its executions in the stage's log")
        else:
            ex.note("this LLVM has no -opt-disable (LLVM 21+) nor -opt-bisect intervals (LLVM 22+): no pass can be "
                    "disabled by name; an -opt-bisect-limit search per stage instead")
            for stage in stages:
                result.bisects.append(ex.limit_search(stage, result.pipelines[stage], base))
            stages = []
    jobs_list: list[tuple] = []
    for stage in stages:
        log = result.pipelines[stage]
        jobs_list += [(stage, n, log, base) for n in pass_names(log) if passes is None or n in passes]
    settled: dict[tuple[str, str], Ablation] = {}
    reported = [s for s in stages if b.change_report(s) and any(j[0] == s for j in jobs_list)]
    if ex.gates.disable and reported:
        mark = time.monotonic()
        try:
            for part in ex.map(lambda stage: ex.settle(stage, [j[1] for j in jobs_list if j[0] == stage],
                                                       result.pipelines[stage], base), reported, "unchanged"):
                settled |= {(a.stage, a.name): a for a in part}
        except OutOfTime:
            settled = {}  # each name is then built, or not built for the time
        result.phases["unchanged"] = time.monotonic() - mark
    for unknown in [p for p in passes or () if not any(p == j[1] for j in jobs_list)]:
        ex.note(f"{unknown!r}: no pass of this name runs in the stages ablated "
                f"({', '.join(stage_short(s) for s in stages)}): skipped")
    result.stages = list(stages)
    to_build = [j for j in jobs_list if (j[0], j[1]) not in settled]
    if to_build:
        per = [seconds[j[0]] for j in to_build]
        ex.say("plan", phase="ablation", builds=len(to_build),
               estimate=sum(per) / ex.jobs * 1.1, per_stage=dict(Counter(j[0] for j in to_build)))
    mark = time.monotonic()
    built = iter(ex.map(ex.ablate, to_build, "ablation"))
    result.ablations = [settled.get((j[0], j[1])) or next(built) for j in jobs_list]
    result.phases["ablation"] = time.monotonic() - mark
    late = len(result.by_outcome("not built"))
    if late:
        left_out.append(f"{late} of the {len(jobs_list)} pass names' ablation")
    for a in result.ablations:
        if a.outcome == "unknown":
            ex.note(f"{a.name!r}: no execution was skipped in the {stage_title(a.stage)} (a name this LLVM's "
                    "gate does not know): skipped")
    if knobs and ex.out_of_time():
        left_out.append("the backend options")
    elif knobs:
        mark = time.monotonic()
        stage = b.spilling_stage(base)
        ex.say("plan", phase="knobs", builds=len(knobs), estimate=len(knobs) * seconds[stage] / ex.jobs * 1.1)
        result.knobs = try_knobs(ex, stage, knobs, base, ex.options(stage))
        late = sum(k.outcome == "not built" for k in result.knobs)
        if late:
            left_out.append(f"{late} of the {len(knobs)} backend options")
        result.phases["knobs"] = time.monotonic() - mark
    for a in result.by_outcome("culprit"):
        log = result.pipelines[a.stage]
        assert a.figures is not None  # a culprit's build gave the kernel
        result.culprits.append(Culprit(a.stage, a.name, a.figures, pass_indices(log, a.name),
                                       command=b.by_hand(a.stage, ex.disable_options(a.name, log)[:1])))
    mark = time.monotonic()
    if result.culprits and (search or dumps) and ex.out_of_time():
        left_out.append("where each culprit starts, and its dumps")
    elif result.culprits and (search or dumps):
        n = sum(len(c.instances) if 1 < len(c.instances) <= MAX_SINGLE else 8 if len(c.instances) > 1 else 0
                for c in result.culprits) * search + len(result.culprits) * dumps
        ex.say("plan", phase="where it starts", builds=n, estimate=n * max(seconds.values()) / ex.jobs * 1.3)
        try:
            if search:
                ex.locate(result.culprits, base)
            if dumps:
                dumped = ex.map(lambda c: ex.dump(c, result.pipelines[c.stage]), result.culprits, "dumps")
                for c, d in zip(result.culprits, dumped):
                    c.dump = d
        except OutOfTime:
            left_out.append("where each culprit starts, or its dumps" if search and dumps else
                            "where each culprit starts" if search else "the culprits' dumps")
    for bis in result.bisects:
        if dumps and bis.get("index"):
            c = Culprit(bis["stage"], bis["name"], {}, [bis["index"]], [bis["index"]])
            bis["dump"] = ex.dump(c, result.pipelines[bis["stage"]]).to_json()
    result.phases["where it starts"] = time.monotonic() - mark
    if left_out:
        ex.note(f"the explanation's time bound passed before {'; '.join(left_out)}: not built (`reduce explain` "
                "with a larger --time-budget, or none, builds it all)")
    result.notes = ex.notes
    result.builds = ex.count
    result.seconds += time.monotonic() - started
    return result


def _adopt_split(ex: Explainer, b: SourceBuilds, logs: Sequence[Build]) -> dict[str, float] | None:
    """Every later build from the shared intermediates (SourceBuilds.share, .split) when each
    stage's log build from them gives the driver's figures and pass executions; else a note, and
    the driver. The log builds stay the driver's: the baseline and the pipelines every ablation is
    compared with are whole builds'. Returns {stage: seconds of its split build} when adopted."""
    why = b.share()
    if not why:
        split = ex.map(lambda stage: ex.build(stage, ["-opt-bisect-limit=-1"], split=True), list(b.stages),
                       "split check")
        differ = [stage_short(stage) for stage, driver, own in zip(b.stages, logs, split)
                  if own.figures != driver.figures or _executions(own) != _executions(driver)]
        if not differ:
            b.split = True
            return {stage: build.seconds for stage, build in zip(b.stages, split)}
        why = f"the {', '.join(differ)} built so gave other figures or pass executions than the driver's build"
    ex.note(f"every build runs through the clang driver, not from one shared front end: {why}")
    return None


def _executions(build: Build) -> list[tuple[int | None, str]]:
    return [(r.index, r.name) for r in parse_log(build.log, [])]


def explain_file(
    path: str | os.PathLike,
    flags: Sequence[str],
    *,
    clang: str | os.PathLike | None = None,
    predicate: str | None = None,
    kernels: Sequence[str] | None = None,
    jobs: int = 2,
    stages: Sequence[str] | None = None,
    passes: Sequence[str] | None = None,
    dumps: bool = True,
    search: bool = True,
    timeout: float = 300.0,
    hip_headers: str = "auto",
    content: bytes | None = None,
    tree: Tree | None = None,
    cwd: str | os.PathLike | None = None,
    workdir: str | os.PathLike | None = None,
    progress: Progress | None = None,
    by_hand: ByHand | None = None,
    knobs: Sequence[Knob] | None = None,
    sides: tuple[Side, Side] = DEFAULT_SIDES,
    time_budget: float | None = None,
) -> ExplainResult:
    """Explain the spill differential of `path` (built with clang `flags`, as `reduce check` does;
    `sides`: the two builds compared, as `reduce --side` gives them).

    The target kernel is the one a reduction would keep (`kernels` narrows it). `stages`: which
    stages' passes are ablated (all three by default); `passes`: only these names (others are not
    ablated; a name no stage runs gets a note). `dumps`, `search`: the IR/MIR before and after each
    culprit, and which of its executions is enough alone. `knobs`: the backend options tried on
    the spilling side (None: the shipped table, knobs.toml; empty: none). `content` is built in
    place of the file's bytes (a file set's with `tree`, as SpillOracle takes them). Every build runs in `workdir` (a
    temporary directory by default, removed at the end). `progress(kind, **info)` is called with
    kind "start"/"advance" (phase, done, total), "plan" (phase, builds, estimate in seconds) and
    "note" (message). `by_hand`: how the result names the file and its builds (by default, the
    oracle's commands on this machine). `time_budget`: seconds from the start after which no build
    starts but the logs' (_run). Raises ExplainError ("not-interesting": the verdict's reason)."""
    known = stage_sides(sides)
    unknown = [s for s in stages or () if s not in known]
    if unknown:
        raise ExplainError("usage", f"unknown stage(s) {', '.join(unknown)}; stages: {', '.join(known)}")
    started = time.monotonic()
    with _workdir(workdir) as work:
        setup = SpillSetup(path, flags, clang, predicate or default_predicate(sides, DEFAULT_EFFECT),
                           list(kernels or []) or None, timeout, tmp_dir=work, cwd=cwd, tree=tree, ub_guard=False,
                           hip_headers=hip_headers, init_guard=False, loop_guard=False, sides=sides)
        source = Path(cwd or os.getcwd(), path).read_bytes() if content is None else content
        if progress:
            progress("note", message="building both sides to find the target kernel")
        try:
            resolved = setup.resolve(source, focus=True)
        except OracleSetupError as e:
            raise ExplainError("not-interesting", str(e)) from None
        if len(resolved.targets) != 1:
            raise ExplainError("usage", f"explain takes one target kernel; these --kernel select "
                               f"{len(resolved.targets)}: {', '.join(resolved.targets)}")
        builds = SourceBuilds(resolved, source, os.fspath(path), by_hand)
        tc: Toolchain = resolved.toolchain
        target = builds.target
        clangs = list(dict.fromkeys(builds.clang(stage) for stage in builds.stages))
        gates = _common_gates([clang_gates(c) for c in clangs])
        result = ExplainResult("source", by_hand.file if by_hand else os.fspath(path), target,
                               demangle([target], tc).get(target, target), tc.version, resolved.predicate.source,
                               builds.sides, {}, {}, gates, [], {}, jobs=jobs,
                               commands_from=by_hand.where if by_hand else "", stage_sides=dict(builds.stage_sides))
        if len(clangs) > 1:
            result.toolchain += "; " + ", ".join(f"{s.name}: {s.clang}" for s in resolved.compiler.sides if s.clang)
        ex = Explainer(builds, gates, str(Path(clangs[0]).resolve().parent), jobs, progress,
                       lambda stage: option_names(clang_help(builds.clang(stage))))
        result.seconds = time.monotonic() - started
        return _run(ex, result, stages, passes, dumps, search, knob_table() if knobs is None else knobs,
                    _deadline(started, time_budget))


def explain_ir(
    path: str | os.PathLike,
    *,
    predicate: str | None = None,
    kernel: str | None = None,
    llc_flags: Sequence[str] = (),
    alt_flags: Sequence[str] | None = None,
    mcpu: str = "gfx950",
    min_spills: int = 1,
    llc: str | os.PathLike | None = None,
    jobs: int = 2,
    passes: Sequence[str] | None = None,
    dumps: bool = True,
    search: bool = True,
    timeout: float = 300.0,
    workdir: str | os.PathLike | None = None,
    progress: Progress | None = None,
    knobs: Sequence[Knob] | None = None,
    time_budget: float | None = None,
) -> ExplainResult:
    """The same for LLVM IR (`.ll`/`.bc`, a `reduce ir` lit test too) through llc, with `reduce ir`'s
    oracle: one stage, `llc`. Raises ExplainError with IrInputError's kinds, or "not-interesting"."""
    started = time.monotonic()
    tools = find_llvm_tools(llc)
    try:
        module, _ = read_module(Path(path).read_bytes(), tools)
        oracle = IrOracle(tools, predicate, kernel, tuple(llc_flags), None if alt_flags is None else tuple(alt_flags),
                          cpu=mcpu, min_spills=min_spills, timeout=timeout, undef_guard=False,
                          loop_guard=False).resolve(module)
    except IrInputError as e:
        raise ExplainError("not-interesting" if e.kind == "not-interesting" else e.kind, str(e)) from None
    with _workdir(workdir) as work:
        builds = IrBuilds(oracle, module, os.fspath(path), work)
        gates = llc_gates(tools.llc)
        version = run([tools.llc, "--version"], cwd=Path("/"), timeout=60).stdout
        line = next((ln.strip() for ln in version.splitlines() if "version" in ln.lower()), tools.llc)
        result = ExplainResult("ir", os.fspath(path), builds.target,
                               demangle([builds.target], tools).get(builds.target, builds.target),
                               f"{line} ({tools.llc})", builds.predicate.source, (LLC, ALT), {}, {}, gates, [], {},
                               jobs=jobs)
        known = option_names(llc_help(tools.llc))
        ex = Explainer(builds, gates, str(Path(tools.llc).parent), jobs, progress, lambda stage: known)
        result.lit_run = shlex.join(["llc", *oracle.command(LLC)[1:-3]])
        result.seconds = time.monotonic() - started
        return _run(ex, result, (LLC_STAGE,), passes, dumps, search, knob_table() if knobs is None else knobs,
                    _deadline(started, time_budget))


def _deadline(started: float, time_budget: float | None) -> float | None:
    return None if time_budget is None else started + time_budget


def _common_gates(gates: Sequence[PassGates]) -> PassGates:
    """The pass gates every compiler has (sides with compilers of their own)."""
    return PassGates(*(all(values) for values in zip(*(dataclasses.astuple(g) for g in gates))))


class _workdir:
    """The directory every build runs in: the caller's, or a private temporary one removed after."""

    def __init__(self, given: str | os.PathLike | None):
        self.given = given
        self.path = ""

    def __enter__(self) -> str:
        if self.given is not None:
            os.makedirs(self.given, mode=0o700, exist_ok=True)
            self.path = tempfile.mkdtemp(prefix="explain-", dir=self.given)
        else:
            self.path = tempfile.mkdtemp(prefix="reduce-explain-")
        return self.path

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
