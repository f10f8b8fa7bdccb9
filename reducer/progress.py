"""Progress for people: a live line on a terminal, a plain log line every few seconds otherwise
(from a timer, so a long quiet stretch still shows the run is alive)."""
from __future__ import annotations

import sys
import threading
import time

from rich.console import Console
from rich.live import Live
from rich.text import Text

from .engine import Status
from .evaluate import Counters


def describe(status: Status, counters: Counters) -> str:
    removed = 1 - status.size / status.original_size if status.original_size else 0.0
    elapsed = time.monotonic() - status.started
    rate = counters.tests / elapsed if elapsed >= 1 else 0.0
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
        self._status: Status | None = None
        self._stop = threading.Event()
        self._timer: threading.Thread | None = None

    def __enter__(self) -> "Progress":
        if self.quiet:
            return self
        if self.console.is_terminal:
            self._live = Live(Text("starting"), console=self.console, refresh_per_second=4, transient=True)
            self._live.__enter__()
        else:
            self._timer = threading.Thread(target=self._log_periodically, daemon=True)
            self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._timer is not None:
            self._timer.join()
        if self._live is not None:
            self._live.__exit__(*exc)

    def event(self, kind: str, status: Status) -> None:
        self._status = status
        if self._live is not None:
            self._live.update(Text(describe(status, self.counters)))

    def _log_periodically(self) -> None:
        while not self._stop.wait(self.interval):
            if self._status is not None:
                print(f"[reduce] {describe(self._status, self.counters)}", file=sys.stderr, flush=True)

    def say(self, message: str) -> None:
        if not self.quiet:
            self.console.print(message, highlight=False, soft_wrap=True)
