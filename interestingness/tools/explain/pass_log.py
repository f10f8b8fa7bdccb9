"""What the compiler says it ran: which pass gates the LLVM in use has (`-opt-disable`, `-opt-bisect`
intervals, `-opt-bisect-limit`, read from its `--help-hidden`), and their logs, one line an
execution of an optional pass, read as `PassRun`s of the target kernel; with the change report,
which executions changed nothing."""
from __future__ import annotations

import functools
import os
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from interestingness.base.process import run
from interestingness.tools.explain.knobs import option_names


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


BISECT_LINE = re.compile(r"^BISECT: (NOT )?running pass \((\d+)\) (.+?) on (.+)$")
_DISABLE_LOG = re.compile(r"^OptDisable: (NOT )?running pass (.+?) on (.+)$")
OPEN_END = 999_999_999  # the end of an open -opt-bisect interval


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
        if m := BISECT_LINE.match(line):
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


def pass_indices(log: Sequence[PassRun], name: str) -> list[int]:
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


# -print-changed over the whole module after every new-PM pass; with the pass manager's debug log
# (stages.change_report adds it: not an -mllvm option) it says which analyses each pass computed or invalidated
CHANGE_REPORT = ("-print-changed", "-print-module-scope")
_REPORT = re.compile(r"^\*\*\* IR Dump After .+? on .+?( omitted because no change)? \*\*\*$")
_NEW_PM_RUN = "Running pass: "
_ANALYSES = ("Running analysis: ", "Invalidating analysis: ", "Clearing all analysis results for: ")


def unchanged_executions(text: str) -> frozenset[int]:
    """The opt-bisect indices, in a log built with CHANGE_REPORT and the pass manager's debug log,
    of the new-PM pass executions that left the module's text as it was and computed or
    invalidated no analysis: after them the module and the analysis manager's results are what
    they would be had the pass been skipped. Machine and legacy IR passes never count (they print
    no `Running pass:`; a machine pass's effect can be state the MIR does not print, a register
    allocation hint); nor does an execution whose lines are not exactly its gate line, one
    `Running pass:` and its report."""
    quiet: set[int] = set()
    index: int | None = None
    runs, clean = 0, False
    for line in text.splitlines():
        if m := BISECT_LINE.match(line):
            index, runs, clean = (None if m.group(1) else int(m.group(2))), 0, True
        elif index is None:
            continue
        elif line.startswith(_NEW_PM_RUN):
            runs += 1
        elif line.startswith(_ANALYSES):
            clean = False
        elif line.startswith("*** IR ") and (m := _REPORT.match(line)):
            if clean and runs == 1 and m.group(1):
                quiet.add(index)
            index = None
    return frozenset(quiet)
