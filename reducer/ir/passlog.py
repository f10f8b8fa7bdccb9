"""Where llvm-reduce spends a run: its delta passes, read from its log as it writes it.

llvm-reduce announces each delta pass (`*** Reducing Basic Blocks (basic-blocks)...`) and each
smaller module it saves (` **** SUCCESS | Saved new best reduction to ...`). Following the log
while it runs gives the pass in the progress line and, per pass, the oracle's tests, the seconds
and the instructions left after it: what a backend engineer needs to see why a reduction is slow,
and what a change to the pass order is measured by.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

_PASS = re.compile(r"^\*\*\* .*\(([a-z0-9-]+)\)\.\.\.$")
_SAVED = "**** SUCCESS"


@dataclass
class DeltaPass:
    name: str
    seconds: float = 0.0
    tests: int = 0  # oracle runs (memory and cache hits not counted)
    saved: int = 0  # smaller modules it saved
    instructions: int | None = None  # left after it, when it saved one


class PassLog:
    """Follows one llvm-reduce log. `poll(now, tests)` reads what was added since the last call,
    `tests` being the oracle's count so far; `passes` merges a pass's rounds (llvm-reduce runs its
    pass list again while a round changes the module) in the order the passes first ran."""

    def __init__(self, path: Path, instructions: Callable[[], int | None]):
        self.path, self._instructions = path, instructions
        self._offset, self._partial = 0, b""
        self.rounds: list[DeltaPass] = []
        self._start: tuple[float, int] | None = None  # the running pass's start (time, tests), if one runs

    @property
    def current(self) -> str | None:
        return self.rounds[-1].name if self.rounds else None

    def poll(self, now: float, tests: int) -> None:
        try:
            with open(self.path, "rb") as f:
                f.seek(self._offset)
                data = f.read()
        except OSError:
            return
        self._offset += len(data)
        *lines, self._partial = (self._partial + data).split(b"\n")
        for raw in lines:
            line = raw.decode("utf-8", "replace").strip()
            if (m := _PASS.match(line)):
                self._close(now, tests)
                self.rounds.append(DeltaPass(m.group(1)))
                self._start = (now, tests)
            elif line.startswith(_SAVED) and self.rounds:
                self.rounds[-1].saved += 1

    def finish(self, now: float, tests: int) -> None:
        self.poll(now, tests)
        self._close(now, tests)

    def _close(self, now: float, tests: int) -> None:
        if self._start is None:
            return
        last = self.rounds[-1]
        last.seconds, last.tests = now - self._start[0], tests - self._start[1]
        self._start = None
        if last.saved:
            last.instructions = self._instructions()

    @property
    def passes(self) -> list[DeltaPass]:
        return merged(self.rounds)


def merged(rounds: list[DeltaPass]) -> list[DeltaPass]:
    """One entry a pass, in the order the passes first ran; the instructions after its last save."""
    by_name: dict[str, DeltaPass] = {}
    for r in rounds:
        m = by_name.setdefault(r.name, DeltaPass(r.name))
        m.seconds += r.seconds
        m.tests += r.tests
        m.saved += r.saved
        if r.instructions is not None:
            m.instructions = r.instructions
    return list(by_name.values())


def shown(passes: list[DeltaPass]) -> str:
    """The passes that ran a test, as one line each: name, tests, seconds, what they left."""
    rows = [f"{p.name}: {p.tests} tests, {p.seconds:.0f}s"
            + (f", {p.saved} saved, {p.instructions} instructions after" if p.instructions is not None
               else f", {p.saved} saved" if p.saved else "")
            for p in passes if p.tests]
    return "\n".join(rows)
