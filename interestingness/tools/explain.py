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
  are the passes without which the predicate no longer holds while the MFMA count stays.
- **Where it starts.** For each culprit, which of its executions is enough alone (`-opt-bisect`
  intervals that skip one index), and the kernel's IR or MIR just before and after it
  (`-print-before`/`-print-after` with `-filter-print-funcs`).
- **Knobs.** Which backend options (scheduler strategies, register allocators) remove the spill,
  each built alone on the spilling side (interestingness/tools/knobs.py, its table knobs.toml).

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
"""
from __future__ import annotations

import dataclasses
import difflib
import functools
import os
import re
import shlex
import shutil
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from joblib import Parallel, delayed

from interestingness.base.bundle import Tree
from interestingness.base.process import run
from interestingness.compiler.compile import LTO, NOLTO
from interestingness.compiler.toolchain import Toolchain
from interestingness.measure.metrics import Metrics, call_graphs, demangle, figures
from interestingness.measure.predicates import DEFAULT_EFFECT
from interestingness.oracle.ir import ALT, LLC, IrInputError, IrOracle, find_llvm_tools, read_module
from interestingness.oracle.spill import OracleSetupError, SpillOracle, SpillSetup, by_target
from interestingness.tools.knobs import Knob, KnobTry, knob_table, option_names, try_knobs
from interestingness.tools.knobs import render as render_knobs

PRELINK, LINK, NOLTO_STAGE, LLC_STAGE = "prelink", "link", "nolto", "llc"
SOURCE_STAGES = (LINK, PRELINK, NOLTO_STAGE)  # in the order they are ablated and shown
STAGE_TITLES = {PRELINK: "LTO pre-link compile", LINK: "LTO link", NOLTO_STAGE: "no-LTO compile", LLC_STAGE: "llc"}
STAGE_SHORT = {PRELINK: "pre-link", LINK: "LTO link", NOLTO_STAGE: "no-LTO", LLC_STAGE: "llc"}
# the figures shown per ablation (the JSON has every metric)
FIGURES = ("vgpr_spills", "spill_ops", "scratch_size", "vgpr", "agpr", "mfma", "instructions", "occupancy")
OPEN_END = 999_999_999  # the end of an open -opt-bisect interval
MAX_SINGLE = 16  # a culprit with at most this many executions has each tried alone; more are halved
# what an ablation's build did to the predicate (Ablation.outcome), in the order they are listed
OUTCOMES = ("culprit", "lost-mfma", "worse", "better", "same", "error", "unknown")

Progress = Callable[..., None]  # progress(kind, **info): see explain_file


@dataclass(frozen=True)
class ByHand:
    """How a report names the file it explains and writes a build of it by hand. By default as on
    this machine (the oracle's own command, absolute paths); a bug report's bundle gives its own
    (its copy of the file, `clang++` and flags relative to the bundle), so EXPLAIN.md and
    explain.json work from a copy of the bundle."""

    file: str
    line: Callable[[str, Sequence[str]], str]  # (side, extra options) -> a shell line building that side
    where: str  # where the lines run, said before them


class ExplainError(RuntimeError):
    """explain cannot start. `kind`: "not-interesting" (the verdict's reason), "usage", "toolchain",
    or one of IrInputError's kinds ("not-ir", "target", "llc")."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


# ---------------------------------------------------------------- the toolchain's pass gates


@dataclass(frozen=True)
class PassGates:
    """Which pass-gate options the LLVM in use has."""

    disable: bool  # -opt-disable=NAMES (LLVM 21+)
    disable_log: bool  # -opt-disable-enable-verbosity: -opt-disable is a gate of its own (21, 22)
    intervals: bool  # -opt-bisect=INTERVALS (LLVM 22+)
    limit: bool  # -opt-bisect-limit=N

    @classmethod
    def from_help(cls, text: str) -> PassGates:
        names = option_names(text)
        return cls("opt-disable" in names, "opt-disable-enable-verbosity" in names, "opt-bisect" in names,
                   "opt-bisect-limit" in names)


@functools.cache
def clang_help(clang: str) -> str:
    """The device cc1's `-mllvm --help-hidden` (lld links the same LLVM libraries)."""
    return run([clang, "-x", "hip", "--offload-arch=gfx950", "-nogpuinc", "-nogpulib", "--offload-device-only",
                "-fsyntax-only", "-Xclang", "-mllvm", "-Xclang", "--help-hidden", os.devnull],
               cwd=Path("/"), timeout=120).stdout


@functools.cache
def llc_help(llc: str) -> str:
    return run([llc, "--help-hidden"], cwd=Path("/"), timeout=120).stdout


def clang_gates(clang: str) -> PassGates:
    return PassGates.from_help(clang_help(clang))


def llc_gates(llc: str) -> PassGates:
    return PassGates.from_help(llc_help(llc))


@functools.cache
def legacy_arguments(bindir: str) -> dict[str, str]:
    """{description: argument} of the legacy pass registry, from `opt --help-hidden` beside the
    compiler: opt-bisect names the codegen pipeline's legacy loop passes by description, and
    -print-before/-print-after want the argument (`Loop Invariant Code Motion` -> `licm`)."""
    opt = Path(bindir, "opt")
    if not opt.exists():
        return {}
    text = run([str(opt), "--help-hidden"], cwd=Path("/"), timeout=120).stdout
    found: dict[str, str] = {}
    inside = False
    for line in text.splitlines():
        if line.strip().startswith("Optimizations available"):
            inside = True
        elif inside and (m := re.match(r"^      --([\w.-]+)\s+- (.+?)\s*$", line)):
            found.setdefault(m.group(2), m.group(1))
        elif inside and re.match(r"^  \S", line):
            break
    return found


# ---------------------------------------------------------------- opt-bisect's log


_BISECT = re.compile(r"^BISECT: (NOT )?running pass \((\d+)\) (.+?) on (.+)$")
_DISABLE_LOG = re.compile(r"^OptDisable: (NOT )?running pass (.+?) on (.+)$")
_DUMP = re.compile(r"^[;#]?\s*\*\*\* IR Dump (Before|After) (.+?) \*\*\*:?\s*$")


@dataclass(frozen=True)
class PassRun:
    """One line of a pass gate's log: an execution of an optional pass (or its skip)."""

    index: int | None  # opt-bisect's index (the OptDisable log has none)
    name: str  # what -opt-disable and -opt-bisect call it
    on: str  # what it ran on, as the log says: a function, "(f, g)", "[module]", "loop ... in function f"
    ran: bool
    function: str | None  # the one function it ran on, when there is one
    kernel: bool  # it ran on the target kernel: its function, an SCC or loop of it, or the whole module

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "name": self.name, "on": self.on, "ran": self.ran, "kernel": self.kernel}


def parse_log(text: str, kernel: str | Collection[str]) -> list[PassRun]:
    """The pass executions of opt-bisect's (or OptDisable's) log in `text`, for target `kernel`
    (its name, or the names of its call graph: an execution on a function the kernel calls counts
    as one on the kernel). A legacy loop pass's line says only "loop": it belongs to the function
    the last function-level line named (the legacy codegen pipeline runs all its passes function by
    function)."""
    names = frozenset([kernel] if isinstance(kernel, str) else kernel)
    runs: list[PassRun] = []
    last: str | None = None
    for line in text.splitlines():
        if m := _BISECT.match(line):
            skipped, index, name, on = m.group(1), int(m.group(2)), m.group(3), m.group(4)
        elif m := _DISABLE_LOG.match(line):
            skipped, index, name, on = m.group(1), None, m.group(2), m.group(3)
        else:
            continue
        function, on_kernel = _target(on, names, last)
        if function is not None and on != "loop":
            last = function
        runs.append(PassRun(index, name, on, not skipped, function, on_kernel))
    return runs


def _indices(log: Sequence[PassRun], name: str) -> list[int]:
    """The indices of the executions of pass `name` in an opt-bisect log (a stage's pipeline),
    where every execution has one."""
    return [r.index for r in log if r.name == name and r.index is not None]


def _target(on: str, kernel: frozenset[str], last: str | None) -> tuple[str | None, bool]:
    if on == "[module]" or on.startswith("module ("):
        return None, True
    if on == "loop":
        return last, last in kernel
    if m := re.match(r"^loop .* in function (\S+)$", on):
        return m.group(1), m.group(1) in kernel
    if m := re.match(r"^(?:function )?\((.*)\)$", on):
        names = [n.strip() for n in m.group(1).split(",")]
        return (names[0] if len(names) == 1 else None), bool(kernel.intersection(names))
    return on, on in kernel


def pass_names(runs: Sequence[PassRun]) -> list[str]:
    """The distinct pass names of a log, in the order they first ran."""
    return list(dict.fromkeys(r.name for r in runs))


def skip_intervals(indices: Sequence[int]) -> str:
    """`-opt-bisect` intervals that run every pass but those at `indices`: [706] -> 1-705,707-..."""
    parts, start = [], 1
    for i in sorted(set(indices)):
        if i > start:
            parts.append(f"{start}-{i - 1}" if i - 1 > start else str(start))
        start = i + 1
    parts.append(f"{start}-{OPEN_END}")
    return ",".join(parts)


# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class Build:
    """One build of one stage's side with pass-gate options: the target kernel's figures."""

    ok: bool
    figures: Metrics | None  # the target kernel's (None: the build failed or lost the kernel)
    seconds: float
    failure: str = ""
    log: str = ""  # the compiler's stderr: the gate's log, the IR dumps
    functions: tuple[str, ...] = ()  # the target's call graph in this build, the kernel first

    def on(self, target: str) -> tuple[str, ...]:
        """The functions whose pass executions count as the target's: its call graph's."""
        return self.functions or (target,)


def _target_build(asm: Sequence[str], target: str, seconds: float, log: str) -> Build:
    """A build's figures of `target` (metrics over its call graph) and the functions they cover."""
    graph = by_target({g.name: g for g in call_graphs(asm)}, [target]).get(target)
    if graph is None:
        return Build(True, None, seconds, f"kernel {target} missing", log)
    return Build(True, figures(graph), seconds, "", log, tuple(f.name for f in graph.functions))


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

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class Dump:
    """The kernel's IR or MIR just before and after one execution of a pass."""

    index: int | None  # the execution's opt-bisect index
    function: str  # the function the dumps are cut to
    print_name: str  # the argument given to -print-before/-print-after
    before_header: str = ""
    after_header: str = ""
    before: str = ""
    after: str = ""
    note: str = ""

    def diff(self, context: int = 2) -> list[str]:
        """A unified diff of the two dumps, matched with local numbering ignored (`%12`, a block's
        `12:`, `!12`): a pass that adds one value renumbers every later one, and the lines a
        reviewer wants are those that changed otherwise. The lines shown are the dumps' own."""
        a, b = self.before.splitlines(), self.after.splitlines()
        matcher = _LineDiff([_renumbered(x) for x in a], [_renumbered(x) for x in b])
        out = ["--- before", "+++ after"]
        for group in matcher.get_grouped_opcodes(context):
            i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
            out.append(f"@@ -{i1 + 1},{i2 - i1} +{j1 + 1},{j2 - j1} @@")
            for tag, x1, x2, y1, y2 in group:
                if tag == "equal":
                    out += [" " + line for line in b[y1:y2]]
                else:
                    out += ["-" + line for line in a[x1:x2]] + ["+" + line for line in b[y1:y2]]
        return out if len(out) > 2 else []

    def file_stem(self, stage: str, name: str) -> str:
        slug = re.sub(r"[^\w.-]+", "-", name).strip("-")
        return f"{stage}-{slug}" + (f"-{self.index}" if self.index is not None else "")

    def to_json(self, diff_lines: int = 400) -> dict[str, Any]:
        """Without the dumps themselves (write_explain puts them in files): their size and the diff."""
        out = {k: v for k, v in dataclasses.asdict(self).items() if k not in ("before", "after")}
        diff = self.diff()
        return {**out, "before_lines": len(self.before.splitlines()), "after_lines": len(self.after.splitlines()),
                "diff": diff[:diff_lines], "diff_lines": len(diff)}


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


@dataclass
class ExplainResult:
    mode: str  # "source" or "ir"
    file: str
    target: str  # mangled
    demangled: str
    toolchain: str
    predicate: str
    sides: tuple[str, str]  # the predicate's side names: (lto, nolto) or (llc, alt)
    baseline: dict[str, Metrics | None]  # per side, as built with the logs
    commands: dict[str, str]  # per stage: its build with opt-bisect's log, by hand
    gates: PassGates
    stages: list[str]  # the stages ablated
    pipelines: dict[str, list[PassRun]]  # per stage: the whole log
    ablations: list[Ablation] = field(default_factory=list)
    culprits: list[Culprit] = field(default_factory=list)
    bisects: list[dict[str, Any]] = field(default_factory=list)  # -opt-bisect-limit searches (old toolchains)
    notes: list[str] = field(default_factory=list)
    jobs: int = 1
    builds: int = 0
    seconds: float = 0.0  # from the start, the target's resolution included
    phases: dict[str, float] = field(default_factory=dict)  # seconds of each phase
    lit_run: str | None = None  # IR: the llc of a lit RUN line (`llc -mtriple=... -mcpu=... -O3`)
    commands_from: str = ""  # where `commands` and the culprits' commands run ("": each line says it)
    knobs: list[KnobTry] = field(default_factory=list)  # the knob table, tried on the spilling side

    def by_outcome(self, outcome: str) -> list[Ablation]:
        return [a for a in self.ablations if a.outcome == outcome]

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode, "file": self.file, "target": self.target, "demangled": self.demangled,
            "toolchain": self.toolchain, "predicate": self.predicate, "sides": list(self.sides),
            "baseline": self.baseline, "commands": self.commands, "commands_from": self.commands_from,
            "gates": dataclasses.asdict(self.gates),
            "stages": self.stages,
            "pipelines": {s: [r.to_json() for r in runs] for s, runs in self.pipelines.items()},
            "pipeline_comparison": compare_pipelines(self) if self.mode == "source" else None,
            "ablations": [a.to_json() for a in self.ablations],
            "culprits": [c.to_json() for c in self.culprits],
            "worse": [{"stage": a.stage, "name": a.name, "figures": a.figures} for a in self.by_outcome("worse")],
            "knobs": [k.to_json() for k in self.knobs],
            "bisects": self.bisects, "notes": self.notes, "jobs": self.jobs, "builds": self.builds,
            "seconds": round(self.seconds, 1), "phases": {k: round(v, 1) for k, v in self.phases.items()},
        }


# ---------------------------------------------------------------- how a stage is built


class _SourceBuilds:
    """The source oracle's two sides, each stage's options placed where only that stage sees them."""

    stages = SOURCE_STAGES

    def __init__(self, oracle: SpillOracle, content: bytes, path: str, shown: ByHand | None = None):
        self.oracle, self.compiler, self.content, self.path = oracle, oracle.compiler, content, path
        self.shown = shown
        self.target = oracle.targets[0]
        self.predicate = oracle.predicate_for(self.target)  # with the original's figures: its own
        self.sides = (LTO, NOLTO)

    @staticmethod
    def side(stage: str) -> str:
        return NOLTO if stage == NOLTO_STAGE else LTO

    @staticmethod
    def options(stage: str, opts: Sequence[str]) -> list[str]:
        if stage == LINK:
            return [a for o in opts for a in ("-Xoffload-linker", f"-mllvm={o}")]
        return [a for o in opts for a in ("-Xclang", "-mllvm", "-Xclang", o)]

    def build(self, stage: str, opts: Sequence[str]) -> Build:
        for _ in range(2):  # a machinery failure (a PCH gone stale) is retried once
            c = self.compiler.compile(self.side(stage), self.content, keep_stderr=True,
                                      passes=self.options(stage, opts))
            if c.failure != "infra":
                break
        if not c.ok:
            return Build(False, None, c.seconds, f"{c.failure}: {c.message}", c.stderr)
        return _target_build(c.asm, self.target, c.seconds, c.stderr)

    def by_hand(self, stage: str, opts: Sequence[str] = ()) -> str:
        if self.shown is not None:
            return self.shown.line(self.side(stage), self.options(stage, opts))
        cmd = self.compiler.command(self.side(stage), extra=self.options(stage, opts))
        if self.compiler.tree is not None:
            return f"(in a directory holding the file set under src/) {shlex.join(cmd)}"
        return f'cd "$(mktemp -d)" && {shlex.join([*cmd[:-1], os.path.abspath(self.path)])}'


class _IrBuilds:
    """llc on the module, `reduce ir`'s oracle (the `llc` side; `alt` as built)."""

    stages = (LLC_STAGE,)

    def __init__(self, oracle: IrOracle, module: bytes, path: str, work: str):
        self.oracle, self.module, self.path, self.work = oracle, module, path, work
        assert oracle.target is not None and oracle.predicate is not None, "an oracle resolve() gave"
        self.target: str = oracle.target
        self.predicate = oracle.bound_predicate()  # with the original's figures: its own
        self.sides = (LLC, ALT)

    @staticmethod
    def side(stage: str) -> str:
        return LLC

    @staticmethod
    def options(stage: str, opts: Sequence[str]) -> list[str]:
        return list(opts)

    def command(self, opts: Sequence[str], side: str = LLC) -> list[str]:
        cmd = self.oracle.command(side)
        return [*cmd[:-3], *opts, *cmd[-3:]]  # before "-o - -"

    def build(self, stage: str, opts: Sequence[str], side: str = LLC) -> Build:
        res = run(self.command(opts, side), cwd=Path(self.work), timeout=self.oracle.timeout, stdin=self.module)
        if res.timed_out or res.returncode != 0:
            why = f"timeout after {self.oracle.timeout:g}s" if res.timed_out else _first_lines(res.stderr)
            return Build(False, None, res.seconds, f"error: {why}", res.stderr)
        return _target_build([res.stdout], self.target, res.seconds, res.stderr)

    def by_hand(self, stage: str, opts: Sequence[str] = ()) -> str:
        return f"{shlex.join(self.command(opts)[:-1])} {shlex.quote(os.path.abspath(self.path))}"


# ---------------------------------------------------------------- the engine


class _Explainer:
    def __init__(self, builds, gates: PassGates, bindir: str, jobs: int, progress: Progress | None,
                 options: frozenset[str] = frozenset()):
        self.b = builds
        self.gates = gates
        self.options = options  # the LLVM options the toolchain lists (the knobs')
        self.bindir = bindir
        self.jobs = max(1, jobs)
        self.say: Progress = progress or (lambda kind, **info: None)
        self.count = 0
        self.lock = threading.Lock()
        self.notes: list[str] = []

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

    def build(self, stage: str, opts: Sequence[str]) -> Build:
        with self.lock:
            self.count += 1
        return self.b.build(stage, opts)

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
        return [f"-opt-bisect={skip_intervals(_indices(log, name))}"]

    def ablate(self, job: tuple[str, str, list[PassRun], dict]) -> Ablation:
        stage, name, log, base = job
        build = self.build(stage, self.disable_options(name, log))
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


def pick_dumps(log: str, index: int | None, dump: Dump) -> None:
    """From a build's stderr (opt-bisect's log interleaved with -print-before/-after dumps), the
    dumps of execution `index`: the new pass manager prints its line, then the dumps; a legacy
    pass prints its "before" dump first (a printer pass scheduled ahead of it), then its line."""
    events: list[list] = []  # ["bisect", index] or ["Before"/"After", header, lines]
    for line in log.splitlines():
        if m := _BISECT.match(line):
            events.append(["bisect", int(m.group(2))])
        elif m := _DUMP.match(line):
            events.append([m.group(1), line.strip(), []])
        elif events and events[-1][0] != "bisect":
            events[-1][2].append(line)
    at = next((n for n, e in enumerate(events) if e[0] == "bisect" and e[1] == index), None)
    if at is None:  # no index to anchor on: the first pair
        before = next((e for e in events if e[0] == "Before"), None)
        after = next((e for e in events if e[0] == "After"), None)
    else:
        prev = next((n for n in range(at - 1, -1, -1) if events[n][0] == "bisect"), -1)
        nxt = next((n for n in range(at + 1, len(events)) if events[n][0] == "bisect"), len(events))
        after = next((e for e in events[at + 1:nxt] if e[0] == "After"), None)
        before = next((e for e in events[at + 1:nxt] if e[0] == "Before"), None) or \
            next((e for e in reversed(events[prev + 1:at]) if e[0] == "Before"), None)
    if before:
        dump.before_header, dump.before = before[1], "\n".join(before[2]).strip("\n") + "\n"
    if after:
        dump.after_header, dump.after = after[1], "\n".join(after[2]).strip("\n") + "\n"


class _LineDiff(difflib.SequenceMatcher):
    """difflib's hunks over GNU diff's matching, when there is a `diff`: on the MIR of a big
    kernel (11,000 lines, many alike) difflib's own matching takes most of a minute, diff 0.03 s."""

    def __init__(self, a: list[str], b: list[str]):
        super().__init__(None, a, b, autojunk=False)
        self._ops: list[tuple[str, int, int, int, int]] | None = None
        if shutil.which("diff") is None:
            return
        with tempfile.TemporaryDirectory(prefix="reduce-diff-") as d:
            for name, lines in (("a", a), ("b", b)):
                Path(d, name).write_text("".join(f"{x}\n" for x in lines))
            res = run(["diff", "--unchanged-line-format==\n", "--old-line-format=-\n", "--new-line-format=+\n",
                       "a", "b"], cwd=Path(d), timeout=120)
        if res.returncode not in (0, 1):
            return
        ops, i, j = [], 0, 0
        for run_ in re.finditer(r"=+|[-+]+", res.stdout.replace("\n", "")):
            text = run_.group()
            if text[0] == "=":
                ops.append(("equal", i, i + len(text), j, j + len(text)))
                i, j = i + len(text), j + len(text)
                continue
            x, y = text.count("-"), text.count("+")
            ops.append(("replace" if x and y else "delete" if x else "insert", i, i + x, j, j + y))
            i, j = i + x, j + y
        if (i, j) == (len(a), len(b)):
            self._ops = ops or [("equal", 0, 0, 0, 0)]

    def get_opcodes(self):
        return self._ops if self._ops is not None else super().get_opcodes()


_NUMBERED = re.compile(r"(?<![\w.])([%!])\d+\b")
_BLOCK_LABEL = re.compile(r"^\d+:")


def _renumbered(line: str) -> str:
    """An IR or MIR line with its local numbering blanked (values, virtual registers, metadata,
    numbered blocks and their `preds` comments)."""
    line = _BLOCK_LABEL.sub("_:", line.split("; preds =")[0].rstrip())
    return _NUMBERED.sub(r"\1_", line)


def _first_lines(text: str, n: int = 4) -> str:
    return " | ".join(line.strip() for line in text.strip().splitlines()[:n])


def spilling_stage(base: Mapping[str, Metrics | None]) -> str:
    """Where the spilling side's code is generated: the LTO link when the LTO side has the spill,
    the no-LTO compile for the reverse predicate (the no-LTO side spills more)."""
    def spills(side: str) -> int:
        return (base.get(side) or {}).get("spill_ops") or 0
    return LINK if spills(LTO) >= spills(NOLTO) else NOLTO_STAGE


def default_stages(base: Mapping[str, Metrics | None]) -> tuple[str, ...]:
    """The stages ablated unless asked: the LTO side's (link, pre-link) when it has the spill; all
    three for the reverse predicate, where the no-LTO compile's passes are the suspects too."""
    return (LINK, PRELINK) if spilling_stage(base) == LINK else SOURCE_STAGES


def _run(ex: _Explainer, result: ExplainResult, stages: Sequence[str] | None, passes: Sequence[str] | None,
         dumps: bool, search: bool, knobs: Sequence[Knob]) -> ExplainResult:
    """Logs, ablation, knobs, instance search and dumps, into `result` (whose baseline the logs give)."""
    b = ex.b
    started = time.monotonic()
    logs = ex.map(lambda stage: ex.build(stage, ["-opt-bisect-limit=-1"]), list(b.stages), "logs")
    base: dict[str, Metrics | None] = {}
    for stage, build in zip(b.stages, logs):
        if not build.ok or build.figures is None:
            raise ExplainError("not-interesting", f"the {STAGE_TITLES[stage]} with opt-bisect's log does not give "
                               f"the kernel: {build.failure}")
        base.setdefault(b.side(stage), build.figures)
        if base[b.side(stage)] != build.figures:
            ex.note(f"the {STAGE_TITLES[stage]}'s log build gave other figures than the first one of its side")
        result.pipelines[stage] = parse_log(build.log, build.on(b.target))
        result.commands[stage] = b.by_hand(stage, ["-opt-bisect-limit=-1"])
    if isinstance(b, _IrBuilds) and b.oracle.differential:
        base[ALT] = b.build(LLC_STAGE, [], side=ALT).figures
    result.baseline = {s: base.get(s) for s in b.sides}
    holds, why = ex.verdict(b.stages[0], base[b.side(b.stages[0])], base)
    if holds is not True:
        raise ExplainError("not-interesting", f"the predicate does not hold on the builds with opt-bisect's log: {why}")
    seconds = {stage: build.seconds for stage, build in zip(b.stages, logs)}
    result.phases["logs"] = time.monotonic() - started
    if stages is None:
        stages = default_stages(base)

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
    for unknown in [p for p in passes or () if not any(p == j[1] for j in jobs_list)]:
        ex.note(f"{unknown!r}: no pass of this name runs in the stages ablated "
                f"({', '.join(STAGE_SHORT[s] for s in stages)}): skipped")
    result.stages = list(stages)
    if jobs_list:
        per = [seconds[j[0]] for j in jobs_list]
        ex.say("plan", phase="ablation", builds=len(jobs_list),
               estimate=sum(per) / ex.jobs * 1.1, per_stage=dict(Counter(j[0] for j in jobs_list)))
    mark = time.monotonic()
    result.ablations = ex.map(ex.ablate, jobs_list, "ablation")
    result.phases["ablation"] = time.monotonic() - mark
    for a in result.ablations:
        if a.outcome == "unknown":
            ex.note(f"{a.name!r}: no execution was skipped in the {STAGE_TITLES[a.stage]} (a name this LLVM's "
                    "gate does not know): skipped")
    if knobs:
        mark = time.monotonic()
        stage = spilling_stage(base) if isinstance(b, _SourceBuilds) else LLC_STAGE
        ex.say("plan", phase="knobs", builds=len(knobs), estimate=len(knobs) * seconds[stage] / ex.jobs * 1.1)
        result.knobs = try_knobs(ex, stage, knobs, base, ex.options)
        result.phases["knobs"] = time.monotonic() - mark
    for a in result.by_outcome("culprit"):
        log = result.pipelines[a.stage]
        assert a.figures is not None  # a culprit's build gave the kernel
        result.culprits.append(Culprit(a.stage, a.name, a.figures, _indices(log, a.name),
                                       command=b.by_hand(a.stage, ex.disable_options(a.name, log)[:1])))
    mark = time.monotonic()
    if result.culprits and (search or dumps):
        n = sum(len(c.instances) if 1 < len(c.instances) <= MAX_SINGLE else 8 if len(c.instances) > 1 else 0
                for c in result.culprits) * search + len(result.culprits) * dumps
        ex.say("plan", phase="where it starts", builds=n, estimate=n * max(seconds.values()) / ex.jobs * 1.3)
        if search:
            ex.locate(result.culprits, base)
        if dumps:
            dumped = ex.map(lambda c: ex.dump(c, result.pipelines[c.stage]), result.culprits, "dumps")
            for c, d in zip(result.culprits, dumped):
                c.dump = d
    for bis in result.bisects:
        if dumps and bis.get("index"):
            c = Culprit(bis["stage"], bis["name"], {}, [bis["index"]], [bis["index"]])
            bis["dump"] = ex.dump(c, result.pipelines[bis["stage"]]).to_json()
    result.phases["where it starts"] = time.monotonic() - mark
    result.notes = ex.notes
    result.builds = ex.count
    result.seconds += time.monotonic() - started
    return result


# ---------------------------------------------------------------- entry points


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
) -> ExplainResult:
    """Explain the spill differential of `path` (built with clang `flags`, as `reduce check` does).

    The target kernel is the one a reduction would keep (`kernels` narrows it). `stages`: which
    stages' passes are ablated (all three by default); `passes`: only these names (others are not
    ablated; a name no stage runs gets a note). `dumps`, `search`: the IR/MIR before and after each
    culprit, and which of its executions is enough alone. `knobs`: the backend options tried on
    the spilling side (None: the shipped table, knobs.toml; empty: none). `content` is built in
    place of the file's bytes (a file set's with `tree`, as SpillOracle takes them). Every build runs in `workdir` (a
    temporary directory by default, removed at the end). `progress(kind, **info)` is called with
    kind "start"/"advance" (phase, done, total), "plan" (phase, builds, estimate in seconds) and
    "note" (message). `by_hand`: how the result names the file and its builds (by default, the
    oracle's commands on this machine). Raises ExplainError ("not-interesting": the verdict's reason)."""
    unknown = [s for s in stages or () if s not in SOURCE_STAGES]
    if unknown:
        raise ExplainError("usage", f"unknown stage(s) {', '.join(unknown)}; stages: {', '.join(SOURCE_STAGES)}")
    started = time.monotonic()
    with _workdir(workdir) as work:
        setup = SpillSetup(path, flags, clang, predicate or DEFAULT_EFFECT, list(kernels or []) or None,
                           timeout, tmp_dir=work, cwd=cwd, tree=tree, ub_guard=False, hip_headers=hip_headers,
                           init_guard=False, loop_guard=False)
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
        builds = _SourceBuilds(resolved, source, os.fspath(path), by_hand)
        tc: Toolchain = resolved.toolchain
        target = builds.target
        gates = clang_gates(tc.clang)
        result = ExplainResult("source", by_hand.file if by_hand else os.fspath(path), target,
                               demangle([target], tc).get(target, target), tc.version, resolved.predicate.source,
                               (LTO, NOLTO), {}, {}, gates, [], {}, jobs=jobs,
                               commands_from=by_hand.where if by_hand else "")
        ex = _Explainer(builds, gates, str(Path(tc.clang).resolve().parent), jobs, progress,
                        option_names(clang_help(tc.clang)))
        result.seconds = time.monotonic() - started
        return _run(ex, result, stages, passes, dumps, search, knob_table() if knobs is None else knobs)


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
        builds = _IrBuilds(oracle, module, os.fspath(path), work)
        gates = llc_gates(tools.llc)
        version = run([tools.llc, "--version"], cwd=Path("/"), timeout=60).stdout
        line = next((ln.strip() for ln in version.splitlines() if "version" in ln.lower()), tools.llc)
        result = ExplainResult("ir", os.fspath(path), builds.target,
                               demangle([builds.target], tools).get(builds.target, builds.target),
                               f"{line} ({tools.llc})", builds.predicate.source, (LLC, ALT), {}, {}, gates, [], {},
                               jobs=jobs)
        ex = _Explainer(builds, gates, str(Path(tools.llc).parent), jobs, progress, option_names(llc_help(tools.llc)))
        result.lit_run = shlex.join(["llc", *oracle.command(LLC)[1:-3]])
        result.seconds = time.monotonic() - started
        return _run(ex, result, (LLC_STAGE,), passes, dumps, search, knob_table() if knobs is None else knobs)


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


# ---------------------------------------------------------------- pipelines side by side


def kernel_pipeline(runs: Sequence[PassRun]) -> list[tuple[str, int, int, int]]:
    """The passes that ran on the kernel (or its module), consecutive repeats of one name folded:
    (name, how many, first index, last index)."""
    out: list[list] = []
    for r in runs:
        if not r.kernel:
            continue
        if out and out[-1][0] == r.name:
            out[-1][1] += 1
            out[-1][3] = r.index or 0
        else:
            out.append([r.name, 1, r.index or 0, r.index or 0])
    return [tuple(x) for x in out]


def compare_pipelines(result: ExplainResult) -> dict[str, Any]:
    """What LTO runs on the kernel that no LTO does not, or runs more often (in the pre-link
    compile and again in the link), and what only no LTO runs: executions on the kernel per stage."""
    counts = {s: Counter(r.name for r in result.pipelines.get(s, []) if r.kernel) for s in SOURCE_STAGES}
    lto = counts[PRELINK] + counts[LINK]
    names = list(dict.fromkeys([*counts[NOLTO_STAGE], *counts[PRELINK], *counts[LINK]]))

    def row(n: str) -> dict[str, Any]:
        return {"name": n, "nolto": counts[NOLTO_STAGE][n], "prelink": counts[PRELINK][n], "link": counts[LINK][n]}

    return {
        "lto_only": [row(n) for n in names if lto[n] and not counts[NOLTO_STAGE][n]],
        "more_under_lto": [row(n) for n in names if counts[NOLTO_STAGE][n] and lto[n] > counts[NOLTO_STAGE][n]],
        "nolto_only": [row(n) for n in names if counts[NOLTO_STAGE][n] and not lto[n]],
        "executions": {s: sum(c.values()) for s, c in counts.items()},
    }


def side_by_side(result: ExplainResult) -> list[str]:
    """The kernel's no-LTO pipeline beside its LTO one (pre-link, then link), aligned on common
    passes: `+` LTO only, `-` no LTO only, `~` both but a different count of executions in a row."""
    left = kernel_pipeline(result.pipelines.get(NOLTO_STAGE, []))
    right = [(PRELINK, *p) for p in kernel_pipeline(result.pipelines.get(PRELINK, []))] + \
            [(LINK, *p) for p in kernel_pipeline(result.pipelines.get(LINK, []))]

    def cell(p, stage: str = "") -> str:
        name, n, first, last = p
        where = f"{first}" if n == 1 else f"{first}-{last}"
        return f"{stage + ' ' if stage else ''}{where:>9} {name}" + (f" x{n}" if n > 1 else "")

    width = max([len(cell(p)) for p in left] + [len(STAGE_TITLES[NOLTO_STAGE])])
    rows: list[tuple[str, str, str]] = []
    matcher = difflib.SequenceMatcher(None, [p[0] for p in left], [p[1] for p in right], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            rows += [(cell(a), " " if a[1] == b[2] else "~", cell(b[1:], STAGE_SHORT[b[0]]))
                     for a, b in zip(left[i1:i2], right[j1:j2])]
            continue
        for k in range(max(i2 - i1, j2 - j1)):
            a = cell(left[i1 + k]) if i1 + k < i2 else ""
            b = cell(right[j1 + k][1:], STAGE_SHORT[right[j1 + k][0]]) if j1 + k < j2 else ""
            rows.append((a, "-" if a and not b else "+" if b and not a else "|", b))
    head = f"{STAGE_TITLES[NOLTO_STAGE]:<{width}}   LTO: {STAGE_TITLES[PRELINK]}, then {STAGE_TITLES[LINK]}"
    return [head, "-" * len(head), *(f"{a:<{width}} {m} {b}".rstrip() for a, m, b in rows)]


# ---------------------------------------------------------------- EXPLAIN.md


def _cell(v: Any) -> str:
    return "-" if v is None else str(v)


def _figures_line(figures: Metrics | None, base: Metrics | None) -> str:
    if figures is None:
        return "no figures"
    parts = []
    for k in ("vgpr_spills", "spill_ops", "scratch_size", "mfma", "vgpr", "agpr", "instructions"):
        a, b = (base or {}).get(k), figures.get(k)
        parts.append(f"{k} {_cell(a)} -> {_cell(b)}" if a != b else f"{k} {_cell(b)}")
    return ", ".join(parts)


def render_markdown(result: ExplainResult, dumps_dir: str | None = None, diff_lines: int = 80) -> str:
    """EXPLAIN.md for a result. `dumps_dir`: where write_explain put the full dumps (relative to the
    file), to link them; the Markdown itself holds the first `diff_lines` lines of each diff."""
    src = result.mode == "source"
    out: list[str] = []
    w = out.append
    w(f"# Which passes make the difference: `{os.path.basename(result.file)}`\n")
    w(f"Target kernel: `{result.demangled}` (`{result.target}`)  ")
    w(f"Toolchain: {result.toolchain}  ")
    w(f"Predicate: `{result.predicate}`  ")
    phases = ", ".join(f"{k} {v:.0f} s" for k, v in result.phases.items())
    w(f"{result.builds} builds at -j {result.jobs}, {result.seconds:.0f} s in all ({phases}).\n")
    sides = [s for s in result.sides if result.baseline.get(s) is not None]
    w("| | " + " | ".join(sides) + " |\n|---|" + "---:|" * len(sides))
    for k in FIGURES:
        w(f"| {k} | " + " | ".join(_cell((result.baseline.get(s) or {}).get(k)) for s in sides) + " |")
    w("")
    side_of = (lambda stage: NOLTO if stage == NOLTO_STAGE else LTO) if src else (lambda stage: LLC)

    def line(a) -> str:
        return f"{STAGE_SHORT[a.stage]}: `{a.name}`: {_figures_line(a.figures, result.baseline.get(side_of(a.stage)))}"

    w("## Culprits\n")
    if src:
        groups = [([c for c in result.culprits if c.stage != NOLTO_STAGE],
                   "Without each of these, disabled alone in its stage of the LTO build, the predicate no longer "
                   "holds, the MFMA count unchanged:"),
                  ([c for c in result.culprits if c.stage == NOLTO_STAGE],
                   "Without each of these, disabled alone in the no-LTO compile, the no-LTO build loses the "
                   "difference (it spills too, or needs scratch), the MFMA count unchanged: what keeps the build "
                   "without LTO clear of the spill:")]
    else:
        groups = [(result.culprits, "Without each of these, disabled alone in llc, the predicate no longer holds, "
                   "the MFMA count unchanged:")]
    for culprits, title in groups:
        if culprits:
            w(title + "\n")
            w("\n".join(f"- **{line(c)}**" for c in culprits) + "\n")
    if not result.culprits:
        w("None: no pass disabled alone loses the predicate with the MFMA count unchanged"
          + (" (stages ablated: " + ", ".join(STAGE_SHORT[s] for s in result.stages) + ")." if result.stages
             else ".") + "\n")
    for outcome, title in (("worse", "Without these it spills more (the predicate still holds)"),
                           ("lost-mfma", "Without these the predicate no longer holds, but the MFMA count changes"),
                           ("better", "Without these it spills less, and the predicate still holds")):
        rows = result.by_outcome(outcome)
        if rows:
            w(f"{title}:\n")
            w("\n".join(f"- {line(a)}" for a in rows) + "\n")

    if result.knobs:
        stage = result.knobs[0].stage
        out += render_knobs(result.knobs, result.baseline.get(side_of(stage)),
                            "llc" if stage == LLC_STAGE else f"the {STAGE_TITLES[stage]}", result.commands_from)
    if result.culprits:
        w("## Where it starts\n")
        if result.commands_from:
            w(f"The commands below run {result.commands_from}.\n")
    for c in result.culprits:
        w(f"### {STAGE_SHORT[c.stage]}: `{c.name}`\n")
        w(f"Without it: {_figures_line(c.figures, result.baseline.get(side_of(c.stage)))}.  ")
        w(f"Executions in this stage (opt-bisect indices): {', '.join(map(str, c.instances)) or '-'}; "
          f"{c.instance_note or 'not searched'}.\n")
        w(f"```sh\n{c.command}\n```")
        skip = c.enough[:1] or (c.together if len(c.together) < len(c.instances) else [])
        if skip and len(c.instances) > 1:
            opt = [f"-opt-bisect={skip_intervals(skip)}"]
            flag = shlex.join(_SourceBuilds.options(c.stage, opt) if src else opt)
            what = f"Execution {skip[0]} alone" if len(skip) == 1 else f"Executions {', '.join(map(str, skip))}"
            w(f"{what} skipped, in place of the -opt-disable: `{flag}`.\n")
        d = c.dump
        if d is None:
            continue
        if d.note:
            w(f"{d.note}\n")
        if d.before or d.after:
            diff = d.diff()
            plus = sum(1 for x in diff if x.startswith("+") and not x.startswith("+++"))
            minus = sum(1 for x in diff if x.startswith("-") and not x.startswith("---"))
            what = "MIR" if (d.before_header or d.after_header).startswith("#") else "IR"
            w(f"{what} of `{d.function}` just before and after execution {_cell(d.index)} "
              f"(`-print-before={d.print_name} -print-after={d.print_name} -filter-print-funcs={d.function}`): "
              f"{len(d.before.splitlines())} -> {len(d.after.splitlines())} lines, +{plus} -{minus}.")
            if dumps_dir:
                stem = d.file_stem(c.stage, c.name)
                w(f"Full dumps: [`{dumps_dir}/{stem}.before.txt`]({dumps_dir}/{stem}.before.txt), "
                  f"[`{dumps_dir}/{stem}.after.txt`]({dumps_dir}/{stem}.after.txt).")
            w("")
            shown = diff[:diff_lines]
            w("```diff\n" + "\n".join(shown) + ("\n... (" + str(len(diff) - len(shown)) + " more lines)"
                                                 if len(diff) > len(shown) else "") + "\n```\n")
    if result.lit_run and result.culprits:
        w("## For a lit test\n")
        w("RUN lines that pin each culprit beside the spill (the figures are the target kernel's without it):\n")
        lines = [f"; RUN: {result.lit_run} < %s | FileCheck %s"]
        for c in result.culprits:
            prefix = "NO-" + re.sub(r"[^A-Za-z0-9]+", "-", c.name).strip("-").upper()
            lines += [f"; RUN: {result.lit_run} {shlex.quote('-opt-disable=' + c.name)} < %s "
                      f"| FileCheck %s --check-prefix={prefix}",
                      f"; {prefix}: .name: {result.target}",
                      f"; {prefix}: .vgpr_spill_count: {_cell(c.figures.get('vgpr_spills'))}{{{{$}}}}"]
        w("```llvm\n" + "\n".join(lines) + "\n```\n")
    if result.bisects:
        w("## opt-bisect-limit search\n")
        for bis in result.bisects:
            w(f"- {STAGE_SHORT[bis['stage']]}: " + (f"pass {bis['index']} `{bis['name']}` on {bis['on']}: "
                                                     if bis.get("index") else "") + bis["note"])
        w("")

    w("## Ablation\n")
    w("Each pass name disabled alone in one stage (`-opt-disable=NAME` there), the other side as built. "
      "`skipped`: its executions the build skipped (on the kernel).\n")
    for stage in result.stages:
        rows = [a for a in result.ablations if a.stage == stage]
        changed = [a for a in rows if a.outcome not in ("same", "unknown")]
        w(f"### {STAGE_TITLES[stage]}: {len(rows)} names, {len(changed)} change the figures\n")
        base = result.baseline.get(side_of(stage)) or {}
        header = "| pass | skipped | " + " | ".join(FIGURES) + " | predicate | outcome |"
        w(header + "\n|" + "---|" * (len(FIGURES) + 4))
        w("| (as built) | | " + " | ".join(_cell(base.get(k)) for k in FIGURES) + " | holds | |")
        for a in sorted(rows, key=lambda a: OUTCOMES.index(a.outcome)):
            figs = a.figures or {}
            cells = [f"**{_cell(figs.get(k))}**" if figs.get(k) != base.get(k) and a.figures else _cell(figs.get(k))
                     for k in FIGURES]
            pred = "holds" if a.holds else ("error" if a.outcome == "error" else "no")
            w(f"| `{a.name}` | {a.disabled} ({a.on_kernel}) | " + " | ".join(cells) + f" | {pred} | {a.outcome} |")
        w("")

    if src:
        cmp = compare_pipelines(result)
        ex = cmp["executions"]
        w("## Pipelines\n")
        w(f"Optional pass executions on the kernel (or its module), from opt-bisect's log: no-LTO compile "
          f"{ex[NOLTO_STAGE]}; LTO pre-link compile {ex[PRELINK]} and LTO link {ex[LINK]}. Passes on other "
          "functions (before they are inlined) are in the ablation but not counted here.\n")
        for key, title in (("lto_only", "LTO runs, no LTO does not"),
                           ("more_under_lto", "LTO runs more often than no LTO (again in the link)"),
                           ("nolto_only", "no LTO runs, LTO does not")):
            rows = cmp[key]
            if rows:
                w(f"- {title}: " + ", ".join(f"`{r['name']}` ({r['nolto']} / {r['prelink']} + {r['link']})"
                                             for r in rows))
        w("\n(counts: no-LTO / pre-link + link)\n")
        w("<details><summary>Side by side</summary>\n\n```")
        w("\n".join(side_by_side(result)))
        w("```\n</details>\n")
    else:
        w("## Pipeline\n")
        w("```")
        w("\n".join(f"{first if n == 1 else f'{first}-{last}':>9} {name}" + (f" x{n}" if n > 1 else "")
                    for name, n, first, last in kernel_pipeline(result.pipelines.get(LLC_STAGE, []))))
        w("```\n")
    w("## How to reproduce\n")
    w("The builds as they are, with opt-bisect's log" + (f", {result.commands_from}" if result.commands_from else "")
      + ":\n")
    for stage, cmd in result.commands.items():
        w(f"- {STAGE_TITLES[stage]}:\n\n  ```sh\n  {cmd}\n  ```")
    if result.notes:
        w("\n## Notes\n")
        w("\n".join(f"- {n}" for n in result.notes))
    return "\n".join(out).rstrip() + "\n"


def write_explain(result: ExplainResult, directory: str | os.PathLike, json_too: bool = True) -> Path:
    """EXPLAIN.md, explain.json and the culprits' full dumps (dumps/) in `directory`; returns EXPLAIN.md."""
    import json

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    dumps = out / "dumps"
    for c in result.culprits:
        if c.dump and (c.dump.before or c.dump.after):
            dumps.mkdir(exist_ok=True)
            stem = c.dump.file_stem(c.stage, c.name)
            (dumps / f"{stem}.before.txt").write_text(c.dump.before_header + "\n" + c.dump.before)
            (dumps / f"{stem}.after.txt").write_text(c.dump.after_header + "\n" + c.dump.after)
    md = out / "EXPLAIN.md"
    md.write_text(render_markdown(result, "dumps" if dumps.exists() else None))
    if json_too:
        (out / "explain.json").write_text(json.dumps(result.to_json(), indent=1) + "\n")
    return md
