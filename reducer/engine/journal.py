"""The journal of a run's verdicts: one JSON line per oracle test, appended as it is made, so a
resumed session replays every test the earlier ones ran (the evaluator's memo is filled from it,
engine/verdicts.py). Append-only and torn-line tolerant: a kill while appending loses at most
the line being written. The run's work directory (run/workdir.py) decides where it lives."""
from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from interestingness.base.verdict import COMPILE_ERROR, UNKNOWN, Verdict


class CorruptJournal(Exception):
    """A journal line that is neither a record nor the torn last line: something else wrote there."""


def append_only(path: Path) -> int:
    """A descriptor for appending, never through a symlink planted in the work directory."""
    return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)


def record(key: str, verdict: Verdict, elapsed: float, *, by: str = "", check: bool = False, confirm: bool = False,
           shared: bool = False) -> dict[str, Any]:
    """The journal record of a test's verdict (`check`: not the candidate's verdict; `shared`:
    another process's test, awaited here), or with `confirm` of the confirmation of a candidate
    kept; `by` is the pass that asked."""
    return {"key": key, "interesting": verdict.interesting, "reason": verdict.reason[:300],
            "seconds": round(verdict.seconds, 3), "t": round(elapsed, 3), **({"check": True} if check else {}),
            **({"kind": verdict.kind} if verdict.kind != UNKNOWN and not confirm else {}),
            **({"confirm": True} if confirm else {}), **({"shared": True} if shared else {}),
            **({"by": by} if by else {})}


@dataclass
class Tally:
    """Tests and oracle seconds per pass that asked ("" outside passes), counted from journal
    records: by one rule for the records a resumed run reads back and those a session writes,
    so a pass is charged exactly what its journal lines say, whenever its tests end."""
    tests: Counter[str] = field(default_factory=Counter)
    compile_errors: Counter[str] = field(default_factory=Counter)  # of the tests, whose candidate did not compile
    build_known: Counter[str] = field(default_factory=Counter)  # of them, whose verdict said whether it compiled
    oracle_seconds: dict[str, float] = field(default_factory=dict)  # the oracle's, its confirmations' too

    def add(self, record: dict[str, Any]) -> None:
        by = record.get("by", "")
        if record.get("shared"):  # another process's test and seconds
            return
        self.oracle_seconds[by] = self.oracle_seconds.get(by, 0.0) + record["seconds"]
        if record.get("confirm"):  # not a test: the confirmation of a candidate kept
            return
        kind = record.get("kind", UNKNOWN)
        self.tests[by] += 1
        self.compile_errors[by] += kind == COMPILE_ERROR
        self.build_known[by] += kind != UNKNOWN


class Journal:
    """Verdicts of every test this run has made, keyed as the evaluator's memo is."""

    def __init__(self, path: Path):
        self.path = path
        self.known: dict[str, Verdict] = {}
        self.confirmed: dict[str, Verdict] = {}  # the oracle's confirmations of candidates kept
        self.earlier = Tally()    # what earlier sessions' records count
        self.elapsed = 0.0        # active seconds of earlier sessions, up to their last test
        self._load()
        self._fd = append_only(path)

    @property
    def tests(self) -> int:
        """Tests run in earlier sessions."""
        return sum(self.earlier.tests.values())

    def _load(self) -> None:
        for r in read_records(self.path):
            self.elapsed = max(self.elapsed, r["t"])
            self.earlier.add(r)
            if r.get("confirm"):
                self.confirmed[r["key"]] = Verdict(r["interesting"], r["reason"], seconds=r["seconds"])
            elif not r.get("check"):  # a stability check is not the candidate's verdict
                self.known[r["key"]] = Verdict(r["interesting"], r["reason"], seconds=r["seconds"],
                                               kind=r.get("kind", UNKNOWN))

    def append(self, record: dict[str, Any]) -> None:
        """A `record` (made by `record`)."""
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
