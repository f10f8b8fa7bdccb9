"""The stages `reduce explain` ablates and how each is built: the LTO pre-link compile and the LTO
link of a side with full offload LTO, the compile of a side without (`SourceBuilds`: each stage's
options placed where only that stage sees them, each side with its own flags and clang), or llc
for `reduce ir`'s oracle (`IrBuilds`); a build's figures of the target kernel, and the line that
builds it by hand.

A stage is named by its kind (`prelink`, `link`, `nolto`) when one side only has that mode, as
in the default pair; else by its side too (`base.link`, `ilp.link`: two LTO sides).

With the oracle's shared front end, a stage's build can run its own step alone (`SourceBuilds.split`):
a stage's options reach no other step, so the front end's bitcode, and for the link the pre-link
compile's, are every build's; explain adopts that once it gives the driver's figures and logs."""
from __future__ import annotations

import dataclasses
import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from interestingness.base.process import run
from interestingness.compiler.compile import Compiled, Compiler, FrontEnd
from interestingness.compiler.sides import DEFAULT_SIDES, Side
from interestingness.measure.metrics import Metrics, call_graphs, figures
from interestingness.oracle.ir import ALT, LLC, IrOracle
from interestingness.oracle.spill import SpillOracle, by_target
from interestingness.tools.explain.pass_log import CHANGE_REPORT

PRELINK, LINK, NOLTO_STAGE, LLC_STAGE = "prelink", "link", "nolto", "llc"
SOURCE_STAGES = (LINK, PRELINK, NOLTO_STAGE)  # in the order they are ablated and shown
STAGE_TITLES = {PRELINK: "LTO pre-link compile", LINK: "LTO link", NOLTO_STAGE: "no-LTO compile", LLC_STAGE: "llc"}
STAGE_SHORT = {PRELINK: "pre-link", LINK: "LTO link", NOLTO_STAGE: "no-LTO", LLC_STAGE: "llc"}
_PRINT_IR = ("-print-before=", "-print-after=")  # a build whose IR dumps are read (Explainer.dump)


def stage_sides(sides: Sequence[Side]) -> dict[str, str]:
    """{stage: the side it builds}, in the order stages are ablated and shown: each side's in turn
    (an LTO side's link, then its pre-link compile). A stage is named by its kind when no other
    side has one of that kind, else `SIDE.KIND`."""
    kinds = {s.name: (LINK, PRELINK) if s.lto else (NOLTO_STAGE,) for s in sides}
    shared = {k for k in (LINK, NOLTO_STAGE) if sum(k in ks for ks in kinds.values()) > 1} | \
        ({PRELINK} if sum(s.lto for s in sides) > 1 else set())
    return {(f"{name}.{k}" if k in shared else k): name for name, ks in kinds.items() for k in ks}


def stage_kind(stage: str) -> str:
    """"base.link" -> "link"."""
    return stage.rsplit(".", 1)[-1]


def stage_title(stage: str) -> str:
    """"link" -> "LTO link", "base.link" -> "LTO link of base"."""
    side, _, kind = stage.rpartition(".")
    return STAGE_TITLES[kind] + (f" of {side}" if side else "")


def stage_short(stage: str) -> str:
    """"link" -> "LTO link", "base.link" -> "base LTO link"."""
    side, _, kind = stage.rpartition(".")
    return (f"{side} " if side else "") + STAGE_SHORT[kind]


@dataclass(frozen=True)
class ByHand:
    """How a report names the file it explains and writes a build of it by hand. By default as on
    this machine (the oracle's own command, absolute paths); a bug report's bundle gives its own
    (its copy of the file, `clang++` and flags relative to the bundle), so EXPLAIN.md and
    explain.json work from a copy of the bundle."""

    file: str
    line: Callable[[Side, Sequence[str]], str]  # (side, extra options) -> a shell line building that side
    where: str  # where the lines run, said before them


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


class SourceBuilds:
    """The source oracle's two sides, each stage's options placed where only that stage sees them."""

    def __init__(self, oracle: SpillOracle, content: bytes, path: str, shown: ByHand | None = None):
        self.oracle, self.compiler, self.content, self.path = oracle, oracle.compiler, content, path
        self.shown = shown
        self.target = oracle.targets[0]
        self.predicate = oracle.predicate_for(self.target)  # with the original's figures: its own
        self.sides = self.compiler.side_names
        self.stage_sides = stage_sides(self.compiler.sides)
        self.stages = tuple(self.stage_sides)
        self.shared: tuple[FrontEnd, FrontEnd] | None = None  # the front end's and pre-link's bitcode (share)
        self.split = False  # every build from `shared` (explain sets it once they give the driver's builds)

    def side(self, stage: str) -> str:
        return self.stage_sides[stage]

    def clang(self, stage: str) -> str:
        """The compiler that builds `stage`: its side's own, else the run's."""
        return self.compiler.side(self.side(stage)).clang or self.compiler.toolchain.clang

    @staticmethod
    def options(stage: str, opts: Sequence[str]) -> list[str]:
        if stage_kind(stage) == LINK:
            return [a for o in opts for a in ("-Xoffload-linker", f"-mllvm={o}")]
        return [a for o in opts for a in ("-Xclang", "-mllvm", "-Xclang", o)]

    @classmethod
    def change_report(cls, stage: str) -> list[str]:
        """What makes the stage's build say which new-PM pass executions changed nothing
        (pass_log.unchanged_executions): -print-changed over the module, and the pass manager's
        debug log, an option of cc1 and of lld, not of LLVM."""
        debug = ["-Xoffload-linker", "--lto-debug-pass-manager"] if stage_kind(stage) == LINK else \
            ["-Xclang", "-fdebug-pass-manager"]
        return [*cls.options(stage, CHANGE_REPORT), *debug]

    def spilling_stage(self, base: Mapping[str, Metrics | None]) -> str:
        return spilling_stage(base, self.compiler.sides)

    def default_stages(self, base: Mapping[str, Metrics | None]) -> tuple[str, ...]:
        return default_stages(base, self.compiler.sides)

    def _compiler(self, side: Side | None) -> Compiler:
        """The oracle's compiler, or one with `side` in place of the side of its name (its flags changed)."""
        if side is None:
            return self.compiler
        a, b = (side if s.name == side.name else s for s in self.compiler.sides)
        return dataclasses.replace(self.compiler, sides=(a, b))

    def share(self) -> str:
        """Make the shared intermediates (`shared`; the oracle has a shared front end): "" when
        made, else why not (the builds then stay on the driver's)."""
        front_end = self.compiler.front_end(self.content)
        pre_link = self.compiler.pre_link(front_end) if front_end.ok else front_end
        if not pre_link.ok:
            return f"the shared front end or pre-link compile failed ({pre_link.failure}: {pre_link.message})"
        self.shared = (front_end, pre_link)
        return ""

    def build(self, stage: str, opts: Sequence[str], side: Side | None = None, raw: Sequence[str] = (),
              split: bool | None = None) -> Build:
        """`stage` built with pass options `opts` (and compiler options `raw`, as change_report's);
        with `side`, its side built as that one says. `split` (default: the `split` attribute, but
        for a cc1 stage's IR dumps): only the stage's own step, from the shared intermediates."""
        compiler = self._compiler(side)
        passes = [*self.options(stage, opts), *raw]
        if split is None:  # a cc1 reading bitcode keeps the value names its passes give: its dumps are not the driver's
            split = self.split and (stage_kind(stage) == LINK or not any(o.startswith(_PRINT_IR) for o in opts))
        for _ in range(2):  # a machinery failure (a PCH gone stale) is retried once
            c = self._split(stage, passes) if side is None and split else \
                compiler.compile(self.side(stage), self.content, keep_stderr=True, passes=passes)
            if c.failure != "infra":
                break
        if not c.ok:
            return Build(False, None, c.seconds, f"{c.failure}: {c.message}", c.stderr)
        return _target_build(c.asm, self.target, c.seconds, c.stderr)

    def _split(self, stage: str, passes: Sequence[str]) -> Compiled:
        """The stage's own step from the shared bitcode: the link runs lld alone (its options leave
        the pre-link compile as made), the pre-link and no-LTO compiles their cc1 from the front end's."""
        assert self.shared is not None, "share() made them"
        front_end, pre_link = self.shared
        return self.compiler.backend(self.side(stage), front_end, keep_stderr=True, pre_link=pre_link, passes=passes)

    def by_hand(self, stage: str, opts: Sequence[str] = (), side: Side | None = None) -> str:
        compiler = self._compiler(side)
        if self.shown is not None:
            return self.shown.line(compiler.side(self.side(stage)), self.options(stage, opts))
        cmd = compiler.command(self.side(stage), extra=self.options(stage, opts))
        if compiler.tree is not None:
            return f"(in a directory holding the file set under src/) {shlex.join(cmd)}"
        return f'cd "$(mktemp -d)" && {shlex.join([*cmd[:-1], os.path.abspath(self.path)])}'


class IrBuilds:
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

    @staticmethod
    def change_report(stage: str) -> list[str]:
        """None: llc runs legacy passes only, whose ablations are always built (pass_log.unchanged_executions)."""
        return []

    @staticmethod
    def spilling_stage(base: Mapping[str, Metrics | None]) -> str:
        return LLC_STAGE

    @staticmethod
    def default_stages(base: Mapping[str, Metrics | None]) -> tuple[str, ...]:
        return (LLC_STAGE,)

    def command(self, opts: Sequence[str], side: str = LLC) -> list[str]:
        cmd = self.oracle.command(side)
        return [*cmd[:-3], *opts, *cmd[-3:]]  # before "-o - -"

    def build(self, stage: str, opts: Sequence[str], side: str = LLC) -> Build:
        res = run(self.command(opts, side), cwd=Path(self.work), timeout=self.oracle.timeout, stdin=self.module,
                  fork_server=True)
        if res.timed_out or res.returncode != 0:
            why = f"timeout after {self.oracle.timeout:g}s" if res.timed_out else _first_lines(res.stderr)
            return Build(False, None, res.seconds, f"error: {why}", res.stderr)
        return _target_build([res.stdout], self.target, res.seconds, res.stderr)

    def by_hand(self, stage: str, opts: Sequence[str] = ()) -> str:
        return f"{shlex.join(self.command(opts)[:-1])} {shlex.quote(os.path.abspath(self.path))}"


def _first_lines(text: str, n: int = 4) -> str:
    return " | ".join(line.strip() for line in text.strip().splitlines()[:n])


def spilling_side(base: Mapping[str, Metrics | None], sides: Sequence[Side] = DEFAULT_SIDES) -> str:
    """The side with the most spill code (the first on a tie)."""
    return max(sides, key=lambda s: ((base.get(s.name) or {}).get("spill_ops") or 0, s is sides[0])).name


def spilling_stage(base: Mapping[str, Metrics | None], sides: Sequence[Side] = DEFAULT_SIDES) -> str:
    """Where the spilling side's code is generated: its LTO link, or its compile without LTO (the
    no-LTO compile for the reverse predicate of the default pair)."""
    side = spilling_side(base, sides)
    return next(st for st, s in stage_sides(sides).items() if s == side and stage_kind(st) != PRELINK)


def default_stages(base: Mapping[str, Metrics | None], sides: Sequence[Side] = DEFAULT_SIDES) -> tuple[str, ...]:
    """The stages ablated unless asked: the first side's when it has the spill (the LTO side's link
    and pre-link by default); every stage for the reverse predicate, where the other side's passes
    are the suspects too."""
    stages = stage_sides(sides)
    side = spilling_side(base, sides)
    return tuple(st for st, s in stages.items() if s == side) if side == sides[0].name else tuple(stages)
