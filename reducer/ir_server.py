"""llvm-reduce's interestingness test, answered by this process.

llvm-reduce runs `TEST FILE` once per candidate and wants exit 0 for interesting. Starting Python
for each would cost about as much as the llc run it guards (measured: ~100 ms to import the
oracle, ~100 ms for llc on a small module), and most of a reduction's late tests are small
modules. So the test is a three-line bash script that hands the candidate's path to this server
over a loopback socket; the server answers from its memory or the persistent VerdictCache, and
otherwise runs the oracle. The socket takes a per-run token, kept in the 0700 script, so another
user on the machine cannot use it.
"""
from __future__ import annotations

import hashlib
import secrets
import socketserver
import threading
from pathlib import Path

from interestingness.verdict import Oracle, Verdict

from .cache import VerdictCache
from .evaluate import Counters


class VerdictServer:
    """Verdicts for llvm-reduce's tests and for our own passes, through one memory and one cache.

    Each llvm-reduce worker thread gets its own handler thread; oracle runs happen outside the
    lock, memory and cache accesses inside it."""

    def __init__(self, oracle: Oracle, cache: VerdictCache | None, directory: Path):
        self.oracle = oracle
        self.cache = cache
        self.counters = Counters()
        self._memo: dict[str, Verdict] = {}
        self._lock = threading.Lock()
        self._token = secrets.token_hex(16)
        server = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                token, _, path = self.rfile.readline().decode().rstrip("\n").partition(" ")
                if not secrets.compare_digest(token, server._token):
                    return
                try:
                    content = Path(path).read_bytes()
                except OSError:
                    self.wfile.write(b"no\n")
                    return
                self.wfile.write(b"yes\n" if server.verdict(content).interesting else b"no\n")

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        port = self._server.server_address[1]
        self.script = directory / "interesting.sh"
        self.script.write_text(
            "#!/bin/bash\n# written by `reduce ir`: asks the reducing process whether $1 is interesting\n"
            f"exec 3<>/dev/tcp/127.0.0.1/{port} || exit 2\n"
            f'printf \'%s %s\\n\' {self._token} "$(realpath "$1")" >&3\n'
            'read -r answer <&3\n[ "$answer" = yes ]\n')
        self.script.chmod(0o700)

    def __enter__(self) -> VerdictServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def verdict(self, content: bytes) -> Verdict:
        """The memory, else the cache, else the oracle; a failure of the machinery is retried once
        and never remembered (as in the evaluator)."""
        key = hashlib.sha256(content).hexdigest()
        with self._lock:
            known = self._memo.get(key)
            if known is not None:
                self.counters.memo_hits += 1
                return known
            known = self.cache.get(content) if self.cache is not None else None
            if known is not None:
                self.counters.cache_hits += 1
                self._memo[key] = known
                return known
        verdict = self.oracle.test(content)
        tests = 1
        if verdict.infra_failure:
            verdict = self.oracle.test(content)
            tests += 1
        with self._lock:
            self.counters.tests += tests
            self.counters.infra_retries += tests - 1
            self.counters.oracle_seconds += verdict.seconds
            if not verdict.infra_failure:
                self._memo[key] = verdict
                if self.cache is not None:
                    self.cache.put(content, verdict)
        return verdict
