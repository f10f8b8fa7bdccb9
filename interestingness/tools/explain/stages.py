"""The stages `reduce explain` ablates and how each is built: the LTO pre-link compile, the LTO link
and the no-LTO compile of the spill oracle's two sides (`SourceBuilds`: each stage's options
placed where only that stage sees them), or llc for `reduce ir`'s oracle (`IrBuilds`); a build's
figures of the target kernel, and the line that builds it by hand."""
from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from interestingness.base.process import run
from interestingness.compiler.compile import LTO, NOLTO
from interestingness.measure.metrics import Metrics, call_graphs, figures
from interestingness.oracle.ir import ALT, LLC, IrOracle
from interestingness.oracle.spill import SpillOracle, by_target

PRELINK, LINK, NOLTO_STAGE, LLC_STAGE = "prelink", "link", "nolto", "llc"
SOURCE_STAGES = (LINK, PRELINK, NOLTO_STAGE)  # in the order they are ablated and shown
STAGE_TITLES = {PRELINK: "LTO pre-link compile", LINK: "LTO link", NOLTO_STAGE: "no-LTO compile", LLC_STAGE: "llc"}
STAGE_SHORT = {PRELINK: "pre-link", LINK: "LTO link", NOLTO_STAGE: "no-LTO", LLC_STAGE: "llc"}


@dataclass(frozen=True)
class ByHand:
    """How a report names the file it explains and writes a build of it by hand. By default as on
    this machine (the oracle's own command, absolute paths); a bug report's bundle gives its own
    (its copy of the file, `clang++` and flags relative to the bundle), so EXPLAIN.md and
    explain.json work from a copy of the bundle."""

    file: str
    line: Callable[[str, Sequence[str]], str]  # (side, extra options) -> a shell line building that side
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
