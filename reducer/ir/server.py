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

import secrets
import socketserver
import threading
from collections.abc import Callable
from pathlib import Path

from interestingness.base.verdict import Oracle, Verdict

from ..engine.cache import VerdictCache
from ..engine.evaluate import Evaluator


class VerdictServer:
    """Verdicts for llvm-reduce's tests and for our own passes, through one memory and one cache.

    Each llvm-reduce worker gets its own handler thread, which calls the evaluator's thread-safe
    single-test path. `on_interesting`, when set, is given each module found interesting (after
    llvm-reduce has its answer): what keeps the best so far within a delta pass."""

    def __init__(self, oracle: Oracle, cache: VerdictCache | None, directory: Path):
        self.oracle = oracle
        self.evaluator = Evaluator(oracle, cache=cache)  # one test at a time per thread: no pool
        self.counters = self.evaluator.counters
        self.on_interesting: Callable[[bytes], None] | None = None
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
                interesting = server.evaluator.test(content).interesting
                self.wfile.write(b"yes\n" if interesting else b"no\n")
                self.wfile.flush()
                if interesting:
                    server._offer(content)

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
        """The evaluator's memory, else the cache, else the oracle (a failure of the machinery
        retried once and never remembered)."""
        verdict = self.evaluator.test(content)
        if verdict.interesting:
            self._offer(content)
        return verdict

    def _offer(self, content: bytes) -> None:
        if (offer := self.on_interesting) is not None:
            offer(content)
