"""A run's work directory: everything needed to resume it after a kill at any moment, and to
report on it while it runs or after it ended.

  run.json       the run's configuration (written once, before the first test)
  original.EXT   the input as it was at the start; start.EXT the text the engine starts from
                 (for a multi-file run: bundles of the main file and its headers, see
                 interestingness/base/bundle.py; state.json then names the set's tree)
  best.EXT       the best file so far
  state.json     schedule position, per-pass yield, counters, size history, how the run ended
                 (reducer/run/state.py)
  journal.jsonl  one line per oracle verdict (append-only; a torn last line is ignored)
  values.jsonl   one line per answer of the compiler to the passes' questions (reducer/text/values.py;
                 append-only, the same way)
  log.txt        the run's log
  pass-bugs/N/   what reproduces the N-th pass that raised (the run dropped it and went on)

Resuming replays the deterministic engine from start.EXT with the journal answering every test
it already ran and values.jsonl every question a pass already asked (notes/runs.md says why
replay rather than a snapshot of pass state).
Every file but the journals and the log is replaced atomically.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from ..engine.journal import CorruptJournal, Journal, append_only, read_records
from ..text.files import atomic_write
from .state import RunState

RUN_FILE, STATE_FILE, JOURNAL_FILE, LOG_FILE = "run.json", "state.json", "journal.jsonl", "log.txt"
VALUES_FILE = "values.jsonl"
PASS_BUGS = "pass-bugs"


class WorkDirError(Exception):
    pass


class WorkDir:
    def __init__(self, path: Path):
        self.path = path

    @classmethod
    def create(cls, path: Path, config: dict[str, Any], *, force: bool = False) -> WorkDir:
        """A fresh work directory. An existing one is replaced only with `force`, and only when it
        is a work directory (a run.json in it): nothing else of the user's is ever removed."""
        if path.is_symlink():
            raise WorkDirError(f"refusing a symlinked work directory: {path}")
        if path.exists():
            if not (path / RUN_FILE).is_file():
                raise WorkDirError(f"{path} exists and is not a work directory of this tool; choose another --workdir")
            if not force:
                raise WorkDirError(f"work directory {path} exists: continue it with `reduce resume {path}`, "
                                   "or pass --force to start over")
            shutil.rmtree(path)
        path.mkdir(mode=0o700, parents=True)
        wd = cls(path)
        wd._write_json(RUN_FILE, config)
        return wd

    @classmethod
    def open(cls, path: Path) -> WorkDir:
        if not (path / RUN_FILE).is_file():
            raise WorkDirError(f"not a work directory (no {RUN_FILE}): {path}")
        return cls(path)

    @property
    def config(self) -> dict[str, Any]:
        return json.loads((self.path / RUN_FILE).read_text())

    def update_config(self, **changes: Any) -> None:
        self._write_json(RUN_FILE, {**self.config, **changes})

    def state(self) -> RunState:
        try:
            return RunState.from_json(json.loads((self.path / STATE_FILE).read_text()))
        except FileNotFoundError:
            return RunState()

    def save_state(self, state: RunState) -> None:
        self._write_json(STATE_FILE, state.to_json())

    def file(self, role: str) -> Path:
        """original / start / best, with the input's extension (so compilers and editors know it)."""
        return self.path / f"{role}{Path(self.config['file']).suffix}"

    def read(self, role: str) -> bytes | None:
        try:
            return self.file(role).read_bytes()
        except FileNotFoundError:
            return None

    def write(self, role: str, content: bytes) -> None:
        atomic_write(self.file(role), content)

    def result(self) -> bytes:
        """The run's result: the final text, else the best so far, else what it started from."""
        return self.read("final") or self.read("best") or self.read("start") or self.read("original") or b""

    def pass_bug_dir(self, number: int) -> Path:
        return self.path / PASS_BUGS / str(number)

    def write_pass_bug(self, number: int, files: dict[str, bytes]) -> Path:
        """pass-bugs/NUMBER/ holding `files` (name -> content)."""
        where = self.pass_bug_dir(number)
        for d in (where.parent, where):
            if d.is_symlink():
                raise OSError(f"refusing a symlink planted in the work directory: {d}")
            d.mkdir(mode=0o700, exist_ok=True)
        for name, content in files.items():
            atomic_write(where / name, content)
        return where

    def journal(self) -> Journal:
        try:
            return Journal(self.path / JOURNAL_FILE)
        except CorruptJournal as e:
            raise WorkDirError(str(e)) from None

    def values_journal(self) -> ValuesJournal:
        try:
            return ValuesJournal(self.path / VALUES_FILE)
        except CorruptJournal as e:
            raise WorkDirError(str(e)) from None

    def log(self, line: str) -> None:
        """Best effort: a log line that cannot be written (disk full) must not stop the run."""
        try:
            fd = append_only(self.path / LOG_FILE)
            try:
                os.write(fd, f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}\n".encode())
            finally:
                os.close(fd)
        except OSError:
            pass

    def _write_json(self, name: str, data: dict[str, Any]) -> None:
        atomic_write(self.path / name, (json.dumps(data, indent=1, default=str) + "\n").encode())


class ValuesJournal:
    """Every answer this run got from the compiler to the passes' questions (reducer/text/values.py),
    failures included, keyed by a digest of the probed text: a resumed session's replay gets
    the answers the earlier sessions got, whatever the shared verdict cache holds by then and
    however the front end fares. The oracle cannot have changed in between (run/session.py checks its
    identity). `get_record`/`put_record` as the verdict cache's."""

    def __init__(self, path: Path):
        self.path = path
        self.known = {record["key"]: record["answer"] for record in read_records(path)}

    def get_record(self, content: bytes) -> dict | None:
        return self.known.get(_digest(content))

    def put_record(self, content: bytes, record: dict) -> None:
        key = _digest(content)
        self.known[key] = record
        fd = append_only(self.path)  # opened per answer: a front-end run costs far more
        try:
            os.write(fd, (json.dumps({"key": key, "answer": record}) + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)


def _digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()
