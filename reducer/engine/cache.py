"""A persistent verdict cache shared by every run of a user on this machine.

The lessons of the compile-cache reviews (shared/seeds) are the design:
- the key holds everything that decides a verdict: the oracle's identity (toolchain, flags,
  predicate, targets, headers, environment) plus the candidate's bytes and the cache version;
- the digest is only an index: a hit compares the full stored key, so two keys sharing a digest
  never share a verdict;
- only published verdicts are stored (an evaluation in flight is never in the table, so it
  cannot be evicted before it exists); an evaluation in flight is a claim in a table of its own,
  so a run that asks for a key another run is evaluating waits for that verdict instead of
  evaluating it again (claims of dead or stalled owners are taken over);
- failures of the machinery are never stored; compile errors and timeouts are verdicts and are;
- bounded by entries and bytes, least recently used first; 0 disables. Counting the table takes
  a scan of it, so a process checks the limits when it opens the cache and then once it has put
  1/64 of either limit since, and at most every 64th put: a put stays O(1) and each process
  writing may leave the cache up to 63 entries (and under 1/64 of each limit) over its limits.
SQLite makes concurrent runs safe without a lock protocol of our own.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import socket
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from interestingness.base.verdict import Verdict

CACHE_VERSION = 1
APP_NAME = "gpu-reduce"
RECORD_VALUES, RECORD_CONFIRMATION = "front-end values", "confirmation"
CHECK_EVERY = 64  # puts at most between two checks of the limits, and the share of a limit put between them


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / APP_NAME


def _locked(method):
    @functools.wraps(method)
    def call(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)
    return call


class VerdictCache:
    def __init__(self, directory: Path, identity: dict[str, Any], *, max_entries: int = 200_000,
                 max_bytes: int = 1 << 30, digest=None):
        self.enabled = max_entries > 0 and max_bytes > 0
        self.max_entries, self.max_bytes = max_entries, max_bytes
        self._prefix = json.dumps({"cache": CACHE_VERSION, "oracle": identity}, sort_keys=True,
                                  default=str).encode() + b"\0"
        # other records (the compiler's answers to reducer/text/values.py's probes, the oracle's
        # confirmations of candidates kept) under keys of their own kind
        self._identity = identity
        self._digest = digest or (lambda key: hashlib.sha256(key).hexdigest())
        self.collisions = 0
        self._lock = threading.RLock()
        # entries and bytes put since the limits were last checked, and how many of each call for a check
        self._since = (0, 0)
        self._slack = (max(1, min(CHECK_EVERY, max_entries // CHECK_EVERY)), max(1, max_bytes // CHECK_EVERY))
        if not self.enabled:
            return
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        database = directory / "verdicts.sqlite"
        for path in (directory, database):
            if path.is_symlink():
                raise OSError(f"refusing a symlink planted as the verdict cache: {path}")
        # one connection shared by the threads of a process (reduce ir's verdict server), one at a time
        self._db = sqlite3.connect(database, timeout=60, isolation_level=None, check_same_thread=False)
        self._use_wal(deadline=time.monotonic() + 60)
        self._db.execute("CREATE TABLE IF NOT EXISTS entries (digest TEXT PRIMARY KEY, key BLOB NOT NULL, "
                         "verdict TEXT NOT NULL, size INTEGER NOT NULL, used REAL NOT NULL)")
        # least recently used first, and the sizes to sum without reading the keys (a covering index)
        self._db.execute("CREATE INDEX IF NOT EXISTS by_use_size ON entries(used, size)")
        self._db.execute("DROP INDEX IF EXISTS by_use")  # its former index, by `used` alone
        self._db.execute("CREATE TABLE IF NOT EXISTS claims (digest TEXT PRIMARY KEY, key BLOB NOT NULL, "
                         "host TEXT NOT NULL, pid INTEGER NOT NULL, since REAL NOT NULL)")
        with self._db:  # limits lowered since the last run, or runs that left the cache over them
            self._db.execute("BEGIN IMMEDIATE")
            self._evict()

    def _use_wal(self, deadline: float) -> None:
        """Switch to WAL (persistent: once per database). SQLite refuses the switch at once, without its busy
        handler, while another process holds the new database, so two runs starting together retry it."""
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                # no fsync a commit (one a verdict): durable across a kill of the run, and a power
                # cut loses only the newest verdicts, which are tested again
                self._db.execute("PRAGMA synchronous=NORMAL")
                return
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    @_locked
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

    @_locked
    def put(self, content: bytes, verdict: Verdict) -> None:
        if not self.enabled or verdict.infra_failure:
            return
        key = self._prefix + content
        self._insert(key, json.dumps({"interesting": verdict.interesting, "reason": verdict.reason,
                                      "seconds": verdict.seconds, "details": verdict.details, "kind": verdict.kind},
                                     default=str))

    def _record_key(self, content: bytes, kind: str) -> bytes:
        return json.dumps({"cache": CACHE_VERSION, "record": kind, "oracle": self._identity}, sort_keys=True,
                          default=str).encode() + b"\0" + content

    @_locked
    def get_record(self, content: bytes, kind: str = RECORD_VALUES) -> dict | None:
        """A record of `kind` stored by `put_record` for exactly `content` (and this oracle identity)."""
        if not self.enabled:
            return None
        key = self._record_key(content, kind)
        digest = self._digest(key)
        row = self._db.execute("SELECT key, verdict FROM entries WHERE digest = ?", (digest,)).fetchone()
        if row is None or bytes(row[0]) != key:
            self.collisions += row is not None
            return None
        self._db.execute("UPDATE entries SET used = ? WHERE digest = ?", (time.time(), digest))
        return json.loads(row[1])

    @_locked
    def put_record(self, content: bytes, record: dict, kind: str = RECORD_VALUES) -> None:
        if not self.enabled:
            return
        self._insert(self._record_key(content, kind), json.dumps(record))

    def _insert(self, key: bytes, value: str) -> None:
        """A published verdict or record, then the limits checked when enough was put since."""
        size = len(key) + len(value)
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?)",
                             (self._digest(key), key, value, size, time.time()))
            self._since = (self._since[0] + 1, self._since[1] + size)
            if self._since[0] >= self._slack[0] or self._since[1] >= self._slack[1]:
                self._evict()

    @_locked
    def claim(self, content: bytes, stale_after: float) -> bool:
        """True when this process is to evaluate `content`; False when another live process has
        claimed it within `stale_after` seconds (wait for its verdict with `wait`)."""
        if not self.enabled:
            return True
        key = self._prefix + content
        digest, now = self._digest(key), time.time()
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            row = self._db.execute("SELECT key, host, pid, since FROM claims WHERE digest = ?", (digest,)).fetchone()
            if row is not None and bytes(row[0]) == key and now - row[3] < stale_after and _alive(row[1], row[2]):
                return (row[1], row[2]) == (_HOST, os.getpid())
            # free, ours, stale, or another key's under the same digest: evaluate it ourselves
            self._db.execute("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?, ?)",
                             (digest, key, _HOST, os.getpid(), now))
        return True

    @_locked
    def release(self, content: bytes) -> None:
        if self.enabled:
            self._db.execute("DELETE FROM claims WHERE digest = ? AND host = ? AND pid = ?",
                             (self._digest(self._prefix + content), _HOST, os.getpid()))

    def wait(self, content: bytes, stale_after: float, poll: float = 0.05) -> Verdict | None:
        """The verdict another process is producing, or None once its claim is gone or stale
        without one (it died, or its result was a failure of the machinery)."""
        key = self._prefix + content
        digest = self._digest(key)
        while True:
            verdict = self.get(content)
            if verdict is not None:
                return verdict
            with self._lock:
                row = self._db.execute("SELECT key, host, pid, since FROM claims WHERE digest = ?",
                                       (digest,)).fetchone()
            if row is None or bytes(row[0]) != key or time.time() - row[3] >= stale_after or not _alive(row[1], row[2]):
                return self.get(content)
            time.sleep(poll)

    def _evict(self) -> None:
        """The least recently used entries deleted until the limits hold (inside a write transaction)."""
        count, size = self._db.execute("SELECT COUNT(*), COALESCE(SUM(size), 0) FROM entries").fetchone()
        while count > self.max_entries or size > self.max_bytes:
            digest, entry_size = self._db.execute(
                "SELECT digest, size FROM entries ORDER BY used LIMIT 1").fetchone()
            self._db.execute("DELETE FROM entries WHERE digest = ?", (digest,))
            count, size = count - 1, size - entry_size
        self._since = (0, 0)

    @_locked
    def entries(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM entries").fetchone()[0] if self.enabled else 0


_HOST = socket.gethostname()



def _alive(host: str, pid: int) -> bool:
    """Whether a claim's owner runs; one on another host counts as alive until its claim is stale."""
    if host != _HOST:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
