"""Progress for people: a live line on a terminal, a plain log line every few seconds otherwise."""
from __future__ import annotations

import sys
import time

from rich.console import Console
from rich.live import Live
from rich.text import Text

from .engine import Status
from .evaluate import Counters


def describe(status: Status, counters: Counters) -> str:
    removed = 1 - status.size / status.original_size if status.original_size else 0.0
    elapsed = time.monotonic() - status.started
    rate = counters.tests / elapsed if elapsed > 0 else 0.0
    return (f"{status.size} B ({removed:.0%} removed) | tests {counters.tests} ({rate:.2f}/s), "
            f"memo {counters.memo_hits}, pre-filtered {status.prefiltered} | accepted {status.accepted} | "
            f"pass {status.current_pass} | {elapsed:.0f}s")


class Progress:
    def __init__(self, counters: Counters, *, quiet: bool = False, interval: float = 5.0):
        self.counters = counters
        self.quiet = quiet
        self.interval = interval
        self.console = Console(stderr=True)
        self._live: Live | None = None
        self._last = 0.0

    def __enter__(self) -> "Progress":
        if not self.quiet and self.console.is_terminal:
            self._live = Live(Text("starting"), console=self.console, refresh_per_second=4, transient=True)
            self._live.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._live is not None:
            self._live.__exit__(*exc)

    def event(self, kind: str, status: Status) -> None:
        if self.quiet:
            return
        line = describe(status, self.counters)
        if self._live is not None:
            self._live.update(Text(line))
            return
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            print(f"[reduce] {line}", file=sys.stderr, flush=True)

    def say(self, message: str) -> None:
        if not self.quiet:
            self.console.print(message, highlight=False)
