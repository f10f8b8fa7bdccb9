"""Progress for people and scripts: a live line on a terminal, a plain log line every few seconds
otherwise (from a timer, so a long quiet stretch still shows the run is alive), JSON lines on
stdout with --json; every line also goes to the run's log."""
from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.live import Live
from rich.text import Text

from interestingness.base import bundle

from ..engine.budget import Budget, format_seconds
from ..engine.engine import Status
from ..engine.verdicts import Counters
from ..text.lexer import count_tokens
from .report import compile_failures_line, per_oracle_second, per_test


def describe(status: Status, counters: Counters, budget: Budget | None = None) -> str:
    removed = 1 - status.size / status.original_size if status.original_size else 0.0
    elapsed = time.monotonic() - status.started
    rate = counters.tests / elapsed if elapsed >= 1 else 0.0
    left = budget.remaining_seconds() if budget is not None else None
    return (f"{status.size} B ({removed:.0%} removed) | tests {counters.tests} ({rate:.2f}/s), "
            f"memo {counters.memo_hits}, replayed {counters.replayed}, pre-filtered {status.prefiltered} | "
            f"accepted {status.accepted} | sweep {status.sweep} pass {status.current_pass}"
            + (f" file {status.part + 1}/{status.parts}" if status.parts > 1 else "") + f" | {elapsed:.0f}s"
            + (f" | budget left {format_seconds(left)}" if left is not None else ""))


class Progress:
    def __init__(self, counters: Counters | None, *, quiet: bool = False, json_lines: bool = False,
                 interval: float = 5.0, log: Callable[[str], None] = lambda line: None, budget: Budget | None = None):
        self.counters = counters
        self.quiet, self.json_lines = quiet, json_lines
        self.interval = interval
        self.log, self.budget = log, budget
        self.console = Console(stderr=True)
        self._live: Live | None = None
        self._status: Status | None = None
        self._stop = threading.Event()
        self._timer: threading.Thread | None = None

    def __enter__(self) -> Progress:
        if self.console.is_terminal and not self.quiet:
            self._live = Live(Text("starting"), console=self.console, refresh_per_second=4, transient=True)
            self._live.__enter__()
        else:  # the log (and a non-terminal's stderr) gets a line every few seconds
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
            self._live.update(Text(describe(status, self._counted(), self.budget)))
        if kind == "accept":
            self.log(f"accepted: {status.size} B ({status.current_pass})")
        if self.json_lines:
            self._emit({"event": kind, "size": status.size, "pass": status.current_pass, "sweep": status.sweep,
                        "tests": self._counted().tests, "accepted": status.accepted})

    def _log_periodically(self) -> None:
        while not self._stop.wait(self.interval):
            if self._status is not None:
                line = describe(self._status, self._counted(), self.budget)
                self.log(line)
                if not self.quiet:
                    print(f"[reduce] {line}", file=sys.stderr, flush=True)

    def say(self, message: str) -> None:
        self.log(message)
        if not self.quiet:
            self.console.print(message, highlight=False, soft_wrap=True)

    def summary(self, file: Path, output: Path, original: bytes, start: bytes, result: bytes, outcome: str,
                report: Path, files: list[dict] | None = None, tree: Path | None = None,
                finished: dict | None = None, per_pass: dict[str, dict] | None = None) -> None:
        """`start` is what the engine reduced: the original with its project headers flattened in.
        A file set (`files`: bytes per file; `tree`: where they went) is reported per file and in total.
        `per_pass` is each pass's yield over all sessions (run/session.py); else this session's."""
        if files is not None:
            original, start, result = map(bundle.joined, (original, start, result))
        c = self._counted()
        if per_pass is None:
            per_pass = {name: asdict(y) for name, y in (self._status.per_pass if self._status else {}).items()}
        passes_line = ", ".join(f"{name} -{y['bytes_removed']}B/{y['tests']}t/{y['seconds']:.0f}s"
                                f" ({per_test(y)} B/test, {per_oracle_second(y)} B/oracle-s)"
                                for name, y in sorted(per_pass.items(), key=lambda kv: -kv[1]["bytes_removed"])
                                if y["tests"] or y["bytes_removed"])
        elapsed = self.budget.elapsed() if self.budget else 0.0
        lines = [
            f"{outcome}: {file} -> {output}",
            f"  bytes  {len(start)} -> {len(result)} ({1 - len(result) / max(1, len(start)):.1%} removed)"
            + (f"; {len(original)} before flattening" if start != original else ""),
            f"  tokens {count_tokens(start)} -> {count_tokens(result)}",
            *([f"  final  {finished['after_hygiene_bytes']} bytes after hygiene ("
               + (", ".join(f"{k} {v}" for k, v in finished["hygiene"].items()) or "none kept") + "), "
               + (f"{finished['formatted_bytes']} formatted" if finished["formatted_bytes"] else "not formatted")
               + f": the file written to {output}"] if finished else []),
            *([f"  files  {len(files)} -> {tree}/ (the main file also -> {output})"]
              + [f"    {f['file']}: {f['original']} -> {f['result']} bytes" for f in files] if files else []),
            f"  tests  {c.tests} run ({c.oracle_seconds:.0f}s of oracle time), {c.memo_hits} answered from memory, "
            f"{c.cache_hits} from the cache, {c.shared_waits} by a test in flight, {c.replayed} replayed from "
            f"the journal, {c.infra_retries} retried"
            + (f"; {c.speculated} on a core left idle, for the step after the one in flight, "
               f"{c.speculated_used} of them used" if c.speculated else ""),
            f"  wall   {elapsed:.1f}s (all sessions)",
            f"  passes {passes_line}",
            *([f"  {line}"] if (line := compile_failures_line(per_pass)) is not None else []),
            f"  report {report}",
        ]
        for line in lines:
            self.log(line)
        if self.json_lines:
            self._emit({"event": "end", "outcome": outcome, "output": str(output), "bytes": len(result),
                        "start_bytes": len(start), "original_bytes": len(original), "tests": c.tests,
                        "report": str(report), **({"files": files, "tree": str(tree)} if files else {})})
        else:  # the outcome is not progress: --quiet still shows it
            self.console.print("\n".join(lines), highlight=False, soft_wrap=True)

    def _counted(self) -> Counters:
        """The evaluator's counters, which are set before the engine reports anything (run/session.py)."""
        assert self.counters is not None, "Progress.counters is set before the first event"
        return self.counters

    def _emit(self, record: dict[str, Any]) -> None:
        print(json.dumps(record), flush=True)
