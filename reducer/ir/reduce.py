"""`reduce ir`'s pipeline over bitcode, every test through one VerdictServer (memory, cache, oracle):

1. isolate: the target kernel and what it uses. The other kernels are deleted (llvm-extract
   --delete) and debug info and whatever became unreferenced is dropped (opt --strip-debug,
   globaldce). Extracting the target instead (llvm-extract --func --recursive) would turn the
   global variables it uses, its LDS block among them, into external declarations.
2. llvm-reduce -j N with the delta passes that remove instructions only (`first_flags`): llvm-reduce
   repeats its pass list only after all of them, so with every pass a round's operand passes
   (thousands of tests on a kernel's worth of instructions) come between one `instructions` pass
   and the next.
3. llvm-reduce -j N with all its delta passes (`llvm_reduce_flags`); its test asks the VerdictServer.
4. our own pass over what llvm-reduce leaves (see `drop_lines`).
Each step's output is checked by the oracle; a step that fails is skipped, never trusted. A
time budget (`deadline`) stops the step running when it is used up: BudgetExhausted, and
`stopped()` gives the best module so far (`BestModule`, the smallest one the oracle called
interesting, in the middle of a delta pass too), as after an interrupt.
"""
from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from interestingness.base.process import run
from interestingness.oracle.ir import IrOracle, kernel_names, transform

from ..engine.budget import BudgetExhausted, format_seconds
from .passlog import DeltaPass, PassLog, merged
from .server import VerdictServer

_LLVM_REDUCE_OUT = "llvm-reduce.bc"


@dataclass
class Step:
    name: str
    instructions: int  # after the step
    seconds: float
    tests: int  # oracle runs during the step (cache and memory hits not counted)
    note: str = ""


@dataclass
class IrReduction:
    module: bytes  # bitcode, current best
    text: str  # its textual IR
    steps: list[Step] = field(default_factory=list)
    delta_passes: list[DeltaPass] = field(default_factory=list)  # llvm-reduce's, merged over its rounds


def instruction_count(text: str) -> int:
    """Instructions in the function bodies of textual IR: labels, comments, blank lines and
    everything outside `define ... { }` do not count."""
    count, inside = 0, False
    for line in text.splitlines():
        code = _code(line)
        if line.startswith("define "):
            inside = True
        elif line.startswith("}"):
            inside = False
        elif inside and code and not code.endswith(":"):
            count += 1
    return count


def _code(line: str) -> str:
    return line.split(";", 1)[0].strip()


def measure(module: bytes, text: str) -> tuple[int, int, bytes]:
    """What "smaller" means for a stop's result: instructions (what every figure of `reduce ir`
    counts), then bytes, then the bytes themselves, so that a tie does not depend on which
    worker answered first."""
    return instruction_count(text), len(module), module


class BestModule:
    """The smallest module the oracle has called interesting so far, offered each one as the
    verdicts come (`VerdictServer.on_interesting`). llvm-reduce writes its output only when a delta
    pass ends, and one `instructions` pass over a kernel is thousands of tests (on ck_tile's GEMM
    more than a 20-minute budget); but each candidate it tests holds every reduction the pass has
    kept, so the best one tested is the pass's progress. Each better one goes to `on_better` (the
    output file, written atomically) at once, so a kill loses nothing."""

    def __init__(self, oracle: IrOracle, on_better: Callable[[str], None]):
        self.oracle, self.on_better = oracle, on_better
        self._best: tuple[bytes, str] | None = None
        self._size: tuple[int, int, bytes] | None = None
        self._seen: set[bytes] = set()  # digests of the modules measured
        self._closed = False
        self._lock = threading.Lock()

    def offer(self, module: bytes) -> None:
        digest = hashlib.sha256(module).digest()
        with self._lock:
            if digest in self._seen:
                return
            self._seen.add(digest)
        try:
            text = disassemble(self.oracle, module)
        except (OSError, RuntimeError):  # not ours to fail the run on: the step's own check decides
            return
        size = measure(module, text)
        with self._lock:
            if not self._closed and (self._size is None or size < self._size):
                self._best, self._size = (module, text), size
                self.on_better(text)  # under the lock: the file ends holding the best

    def get(self) -> tuple[bytes, str] | None:
        """(bitcode, textual IR) of the best so far, if any."""
        with self._lock:
            return self._best

    def close(self) -> None:
        """No more offers taken: the output is the lit test's from now on (a verdict server thread
        may still be measuring llvm-reduce's last candidates)."""
        with self._lock:
            self._closed = True

    @property
    def instructions(self) -> int | None:
        with self._lock:
            return None if self._size is None else self._size[0]


def disassemble(oracle: IrOracle, module: bytes) -> str:
    res = run([oracle.tools.llvm_dis, "-", "-o", "-"], cwd=Path("/"), timeout=oracle.timeout, stdin=module)
    if res.returncode != 0:
        raise RuntimeError(f"llvm-dis failed on a module llc accepted: {res.stderr.strip()[:500]}")
    return res.stdout


class IrReducer:
    def __init__(self, server: VerdictServer, work: Path, jobs: int, llvm_reduce_flags: tuple[str, ...],
                 say: Callable[[str], None], time_budget: float | None = None, first_flags: tuple[str, ...] = (),
                 started: float | None = None):
        """`time_budget` counts from `started` (time.monotonic(); default now): the run's start,
        before the build of `--from-source`."""
        self.server, self.work, self.jobs, self.say = server, work, jobs, say
        self.llvm_reduce_flags, self.first_flags = llvm_reduce_flags, first_flags
        self.time_budget = time_budget
        start = time.monotonic() if started is None else started
        self.deadline = None if time_budget is None else start + time_budget
        assert isinstance(server.oracle, IrOracle), "`reduce ir` serves the IR oracle"
        self.oracle = server.oracle
        self.state: IrReduction | None = None
        self.best: BestModule | None = None
        self.running: tuple[str, float, int] | None = None  # the step under way: name, start, tests before

    def reduce(self, module: bytes, text: str, on_best: Callable[[str], None]) -> IrReduction:
        """`on_best` gets each better module's text as it comes, within a step too."""
        self.state = state = IrReduction(module, text, [Step("input", instruction_count(text), 0.0, 0)])
        self.best = BestModule(self.oracle, on_best)
        self.server.on_interesting = self.best.offer
        steps = [("isolate", self.isolate), ("llvm-reduce", lambda m, t: self.llvm_reduce(m, self.llvm_reduce_flags)),
                 ("drop-lines", self.drop_lines)]
        if self.first_flags:
            steps.insert(1, ("llvm-reduce (first passes)", lambda m, t: self.llvm_reduce(m, self.first_flags)))
        try:
            for name, step in steps:
                self._check_budget()
                self.running = (name, time.monotonic(), self.server.counters.tests)
                candidate, note = step(state.module, state.text)
                if candidate is not None and candidate != state.module:
                    if self.server.verdict(candidate).interesting:
                        state.module, state.text = candidate, disassemble(self.oracle, candidate)
                    else:
                        note = "result not interesting, step skipped"
                state.steps.append(self._step(name, note))
                self.running = None
        finally:
            self.best.close()
        return state

    def _step(self, name: str, note: str = "") -> Step:
        assert self.state is not None and self.running is not None
        _, start, tests = self.running
        return Step(name, instruction_count(self.state.text), time.monotonic() - start,
                    self.server.counters.tests - tests, note)

    def _remaining(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def _check_budget(self) -> None:
        if self.time_budget is not None and self._remaining() == 0:
            raise BudgetExhausted(f"time budget of {format_seconds(self.time_budget)} used")

    def stopped(self) -> IrReduction:
        """The best so far once `reduce` was interrupted or ran out of time: the smallest module
        the oracle called interesting (`BestModule`), checked again, when it is smaller than the
        last step's result; within an llvm-reduce delta pass too, which saves nothing before it
        ends. The step cut short is reported with its seconds and tests."""
        state = self.state
        assert state is not None and self.best is not None, "stopped before reduce() began"
        best = self.best.get()
        if best is not None and measure(*best) < measure(state.module, state.text) \
                and self.server.verdict(best[0]).interesting:
            state.module, state.text = best
        if self.running is not None:
            state.steps.append(self._step(f"{self.running[0]} (stopped)"))
        return state

    def isolate(self, module: bytes, text: str) -> tuple[bytes | None, str]:
        others = [k for k in kernel_names(text) if k != self.oracle.target]
        note = f"deleted {len(others)} other kernel(s)" if others else ""
        if others:
            res, extracted = transform([self.oracle.tools.llvm_extract, "--delete", *(f"--func={k}" for k in others)],
                                       module, self.oracle.timeout)
            if extracted is None:
                return None, f"llvm-extract failed: {res.stderr.strip()[:300]}"
            module = extracted
        res, stripped = transform([self.oracle.tools.opt, "--strip-debug", "-passes=globaldce"], module,
                                  self.oracle.timeout)
        return stripped, note if stripped is not None else f"opt failed: {res.stderr.strip()[:300]}"

    def llvm_reduce(self, module: bytes, flags: tuple[str, ...]) -> tuple[bytes | None, str]:
        source, best = self.work / "isolated.bc", self.work / _LLVM_REDUCE_OUT
        source.write_bytes(module)
        best.unlink(missing_ok=True)  # an earlier run's best is not this one's
        cmd = [self.oracle.tools.llvm_reduce, f"-j={self.jobs}", f"--test={self.server.script}",
               *flags, "-o", str(best), str(source)]
        log = PassLog(self.work / "llvm-reduce.log", lambda: self._instructions_in(best))
        stop = threading.Event()
        ticker = threading.Thread(target=self._tick, args=(stop, log), daemon=True)
        ticker.start()
        try:
            # TMPDIR: llvm-reduce's candidate files stay in our run directory, removed with it
            res = run(cmd, cwd=self.work, timeout=self._remaining(), env={**os.environ, "TMPDIR": str(self.work)},
                      stderr_path=log.path)
        finally:
            stop.set()
            ticker.join()
            log.finish(time.monotonic(), self.server.counters.tests)
            assert self.state is not None
            self.state.delta_passes = merged(self.state.delta_passes + log.passes)
        if res.timed_out:  # (the time budget: llvm-reduce itself has no timeout)
            self._check_budget()
        if res.returncode != 0 or not best.exists():
            return None, f"llvm-reduce failed ({res.returncode}): {res.stderr.strip()[-500:]}"
        return best.read_bytes(), ""

    def _instructions_in(self, best: Path) -> int | None:
        try:
            return instruction_count(disassemble(self.oracle, best.read_bytes()))
        except (OSError, RuntimeError):  # gone, or torn by a write under way
            return None

    def _tick(self, stop: threading.Event, log: PassLog) -> None:
        """Follows llvm-reduce's log each second; progress every 5 s."""
        assert self.best is not None
        start, second = time.monotonic(), 0
        while not stop.wait(1.0):
            log.poll(time.monotonic(), self.server.counters.tests)
            second += 1
            if second % 5:
                continue
            c, best = self.server.counters, self.best.instructions
            self.say(f"[reduce ir] llvm-reduce{f' ({log.current})' if log.current else ''}: {c.tests} tests, "
                     f"{c.memo_hits + c.cache_hits} answered from memory/cache, best so far "
                     f"{'-' if best is None else best} instructions, {time.monotonic() - start:.0f}s")

    def drop_lines(self, module: bytes, text: str) -> tuple[bytes | None, str]:
        """ddmin over the lines of the textual IR, biggest chunks first, `jobs` candidates at a time
        (the first interesting one in order wins). What llvm-reduce leaves here is module-level,
        e.g. the datalayout and triple (the RUN line's -mtriple supplies both). A candidate
        llvm-as cannot parse costs no llc run."""
        lines = text.splitlines(keepends=True)
        best, dropped = None, 0
        size = max(1, len(lines) // 2)
        with ThreadPoolExecutor(self.jobs) as pool:
            while size >= 1:
                start = 0
                while start < len(lines):
                    self._check_budget()
                    cuts = [c for c in range(start, len(lines), size)][: self.jobs]
                    cuts = [c for c in cuts if any(_code(line) for line in lines[c:c + size])]
                    candidates = [lines[:c] + lines[c + size:] for c in cuts]
                    results = list(pool.map(self._interesting_text, candidates))
                    hit = next((k for k, r in enumerate(results) if r is not None), None)
                    if hit is None:
                        start += size * self.jobs
                        continue
                    dropped += len(lines) - len(candidates[hit])
                    lines, best, start = candidates[hit], results[hit], cuts[hit]
                size //= 2
        return best, f"dropped {dropped} line(s)" if dropped else ""

    def _interesting_text(self, lines: list[str]) -> bytes | None:
        """The candidate's bitcode when it parses and is interesting."""
        _, module = transform([self.oracle.tools.llvm_as], "".join(lines).encode(), self.oracle.timeout)
        return module if module is not None and self.server.verdict(module).interesting else None
