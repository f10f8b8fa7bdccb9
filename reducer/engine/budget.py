"""Budgets for unattended runs: wall time and oracle tests, counted across resumed sessions."""
from __future__ import annotations

import re
import time


class BudgetExhausted(Exception):
    """Raised instead of starting a test the budget has no room for."""


_DURATION = re.compile(r"(\d+(?:\.\d+)?)([dhms])")
_UNIT = {"d": 86400, "h": 3600, "m": 60, "s": 1}


def parse_duration(text: str) -> float:
    """'8h', '90m', '1h30m', '45s' or plain seconds."""
    text = text.strip().lower()
    try:
        return float(text)
    except ValueError:
        pass
    parts = _DURATION.findall(text)
    if not parts or "".join(a + b for a, b in parts) != text:
        raise ValueError(f"not a duration: {text!r} (use e.g. 8h, 90m, 1h30m, 45s)")
    return sum(float(n) * _UNIT[u] for n, u in parts)


class Budget:
    def __init__(self, seconds: float | None = None, tests: int | None = None, *,
                 spent_seconds: float = 0.0, spent_tests: int = 0):
        self.seconds, self.tests = seconds, tests
        self.spent_seconds, self.spent_tests = spent_seconds, spent_tests
        self._started = time.monotonic()

    def elapsed(self) -> float:
        """Active seconds of this run, earlier sessions included."""
        return self.spent_seconds + time.monotonic() - self._started

    def tests_left(self, run_now: int) -> int | None:
        return None if self.tests is None else max(0, self.tests - self.spent_tests - run_now)

    def check(self, run_now: int) -> None:
        if self.tests_left(run_now) == 0:
            raise BudgetExhausted(f"test budget of {self.tests} used")
        if self.seconds is not None and self.elapsed() >= self.seconds:
            raise BudgetExhausted(f"time budget of {format_seconds(self.seconds)} used")

    def remaining_seconds(self) -> float | None:
        return None if self.seconds is None else max(0.0, self.seconds - self.elapsed())


def format_seconds(seconds: float) -> str:
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s" if m else f"{s}s"
