"""A persistent verdict cache shared by every run of a user on this machine.

The lessons of the compile-cache reviews (shared/seeds) are the design:
- the key holds everything that decides a verdict: the oracle's identity (toolchain, flags,
  predicate, targets, headers, environment) plus the candidate's bytes and the cache version;
- the digest is only an index: a hit compares the full stored key, so two keys sharing a digest
  never share a verdict;
- only published verdicts are stored (an evaluation in flight is never in the table, so it
  cannot be evicted before it exists); the evaluator shares in-flight duplicates in memory;
- failures of the machinery are never stored; compile errors and timeouts are verdicts and are;
- bounded by entries and bytes, least recently used first; 0 disables.
SQLite makes concurrent runs safe without a lock protocol of our own.
"""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from interestingness.verdict import Verdict

CACHE_VERSION = 1
APP_NAME = "gpu-reduce"


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / APP_NAME


class VerdictCache:
    def __init__(self, directory: Path, identity: dict[str, Any], *, max_entries: int = 200_000,
                 max_bytes: int = 1 << 30, digest=None):
        self.enabled = max_entries > 0 and max_bytes > 0
        self.max_entries, self.max_bytes = max_entries, max_bytes
        self._prefix = json.dumps({"cache": CACHE_VERSION, "oracle": identity}, sort_keys=True,
                                  default=str).encode() + b"\0"
        self._digest = digest or (lambda key: hashlib.sha256(key).hexdigest())
        self.collisions = 0
        if not self.enabled:
            return
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        if directory.is_symlink():
            raise OSError(f"refusing a symlinked cache directory: {directory}")
        # check_same_thread=False: a caller sharing one cache between threads serializes its calls
        # (reducer/ir_server.py holds a lock)
        self._db = sqlite3.connect(directory / "verdicts.sqlite", timeout=60, isolation_level=None,
                                   check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS entries (digest TEXT PRIMARY KEY, key BLOB NOT NULL, "
                         "verdict TEXT NOT NULL, size INTEGER NOT NULL, used REAL NOT NULL)")
        self._db.execute("CREATE INDEX IF NOT EXISTS by_use ON entries(used)")

    def get(self, content: bytes) -> Verdict | None:
        if not self.enabled:
            return None
        key = self._prefix + content
        digest = self._digest(key)
        row = self._db.execute("SELECT key, verdict FROM entries WHERE digest = ?", (digest,)).fetchone()
        if row is None:
            return None
        if bytes(row[0]) != key:  # same digest, different key: never answer for another key
            self.collisions += 1
            return None
        self._db.execute("UPDATE entries SET used = ? WHERE digest = ?", (time.time(), digest))
        return Verdict(**json.loads(row[1]))

    def put(self, content: bytes, verdict: Verdict) -> None:
        if not self.enabled or verdict.infra_failure:
            return
        key = self._prefix + content
        record = json.dumps({"interesting": verdict.interesting, "reason": verdict.reason,
                             "seconds": verdict.seconds, "details": verdict.details}, default=str)
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?)",
                             (self._digest(key), key, record, len(key) + len(record), time.time()))
            self._evict()

    def _evict(self) -> None:
        count, size = self._db.execute("SELECT COUNT(*), COALESCE(SUM(size), 0) FROM entries").fetchone()
        while count > self.max_entries or size > self.max_bytes:
            digest, entry_size = self._db.execute(
                "SELECT digest, size FROM entries ORDER BY used LIMIT 1").fetchone()
            self._db.execute("DELETE FROM entries WHERE digest = ?", (digest,))
            count, size = count - 1, size - entry_size

    def entries(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM entries").fetchone()[0] if self.enabled else 0
