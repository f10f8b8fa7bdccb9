"""The journal of a run's verdicts: one JSON line per oracle test, appended as it is made, so a
resumed session replays every test the earlier ones ran (the evaluator's memo is filled from it,
engine/verdicts.py). Append-only and torn-line tolerant: a kill while appending loses at most
the line being written. The run's work directory (run/workdir.py) decides where it lives."""
from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

from interestingness.base.verdict import COMPILE_ERROR, UNKNOWN, Verdict


class CorruptJournal(Exception):
    """A journal line that is neither a record nor the torn last line: something else wrote there."""


def append_only(path: Path) -> int:
    """A descriptor for appending, never through a symlink planted in the work directory."""
    return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)


class Journal:
    """Verdicts of every test this run has made, keyed as the evaluator's memo is."""

    def __init__(self, path: Path):
        self.path = path
        self.known: dict[str, Verdict] = {}
        self.confirmed: dict[str, Verdict] = {}  # the oracle's confirmations of candidates kept
        self.tests = 0            # lines read back: tests run in earlier sessions
        self.tests_by: Counter[str] = Counter()  # of them, per pass that asked ("" outside passes)
        self.compile_errors_by: Counter[str] = Counter()  # of those, whose candidate did not compile
        self.build_known_by: Counter[str] = Counter()  # of those, whose verdict said whether it compiled
        self.oracle_seconds_by: dict[str, float] = {}  # the oracle's seconds per pass, its confirmations' too
        self.elapsed = 0.0        # active seconds of earlier sessions, up to their last test
        self._load()
        self._fd = append_only(path)

    def _load(self) -> None:
        for record in read_records(self.path):
            self.elapsed = max(self.elapsed, record["t"])
            by = record.get("by", "")
            self.oracle_seconds_by[by] = self.oracle_seconds_by.get(by, 0.0) + record["seconds"]
            if record.get("confirm"):  # not a test: the confirmation of a candidate kept
                self.confirmed[record["key"]] = Verdict(record["interesting"], record["reason"],
                                                        seconds=record["seconds"])
                continue
            self.tests += 1
            kind = record.get("kind", UNKNOWN)
            self.tests_by[by] += 1
            self.compile_errors_by[by] += kind == COMPILE_ERROR
            self.build_known_by[by] += kind != UNKNOWN
            if record.get("check"):  # a stability check, not the candidate's verdict
                continue
            self.known[record["key"]] = Verdict(record["interesting"], record["reason"], seconds=record["seconds"],
                                                kind=kind)

    def append(self, key: str, verdict: Verdict, elapsed: float, check: bool = False, by: str = "",
               confirm: bool = False) -> None:
        """A test's verdict (`check`: not the candidate's verdict), or with `confirm` the
        confirmation of a candidate kept."""
        record = {"key": key, "interesting": verdict.interesting, "reason": verdict.reason[:300],
                  "seconds": round(verdict.seconds, 3), "t": round(elapsed, 3), **({"check": True} if check else {}),
                  **({"kind": verdict.kind} if verdict.kind != UNKNOWN and not confirm else {}),
                  **({"confirm": True} if confirm else {}), **({"by": by} if by else {})}
        # One unbuffered append per record: the kernel keeps it across a kill of the run. No fsync:
        # it cost the engine 5 ms a verdict, and a power cut loses only records a resume tests again.
        os.write(self._fd, (json.dumps(record) + "\n").encode())

    def close(self) -> None:
        os.close(self._fd)


def read_records(path: Path) -> list[dict[str, Any]]:
    """The records of an append-only JSON-lines file, none when it does not exist. A kill while
    appending leaves a torn last line: it is dropped, from the file too."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
    except FileNotFoundError:
        return []
    with os.fdopen(fd, "rb+") as f:
        data = f.read()
        lines = data.split(b"\n")
        if lines[-1]:
            f.truncate(len(data) - len(lines[-1]))
    records = []
    for number, line in enumerate(lines[:-1], 1):
        try:
            records.append(json.loads(line))
        except ValueError:
            raise CorruptJournal(f"{path}: line {number} is not a journal record; the work directory "
                               "was changed by something else") from None
    return records
