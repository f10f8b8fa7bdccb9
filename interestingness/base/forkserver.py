"""Start compiler processes from a fork server instead of exec (tools/forkserver/).

A test runs two to four clang and lld processes, and each exec of them pays 10-25 ms of CPU
before any work: the loader relocating libLLVM and libclang-cpp, their static constructors. A
fork server is the executable started once with tools/forkserver's library preloaded; it stops
where `main` would begin and forks a child for each job, which runs `main` with the job's
arguments, environment, directory and streams: the state an exec reaches, already paid for.

One server per executable per process (each worker of the pool has its own), started on first
use and shared by its threads; it ends when this process does. Where the library is not built
or a server cannot start, `start` answers None and the caller execs as before.
"""
from __future__ import annotations

import logging
import os
import select
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

log = logging.getLogger(__name__)

LIBRARY = Path(__file__).resolve().parents[2] / "tools" / "forkserver" / "build" / "libforkserver.so"
DISABLE = "GPU_REDUCE_NO_FORK_SERVER"  # set (to anything) to exec every command

_servers: dict[str, _Server | None] = {}
_lock = threading.Lock()


class Job:
    """A child of a fork server: its pid (the leader of its own session) and its status pipe."""

    def __init__(self, pid: int, status: int, buffered: bytes):
        self.pid, self._status, self._buffer = pid, status, buffered

    def wait(self, timeout: float | None) -> int | None:
        """The return code as subprocess gives it (negative: killed by that signal); None when
        `timeout` seconds passed first (the child runs on: kill its group, then wait again)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"status " not in self._buffer:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return None
            if not select.select([self._status], [], [], left)[0]:
                return None
            chunk = os.read(self._status, 4096)
            if not chunk:  # the server died with the child running: it is the child's loss
                self._close()
                return -signal.SIGKILL
            self._buffer += chunk
        self._close()
        status = int(self._buffer.split(b"status ", 1)[1].split(b"\n", 1)[0])
        return os.waitstatus_to_exitcode(status)

    def _close(self) -> None:
        if self._status >= 0:
            os.close(self._status)
            self._status = -1

    def __del__(self) -> None:
        self._close()


class _Server:
    def __init__(self, executable: str):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # a user's own preload stays loaded in the children too (theirs after ours)
        preload = " ".join(filter(None, (str(LIBRARY), os.environ.get("LD_PRELOAD"))))
        env = dict(os.environ, LD_PRELOAD=preload, FORKSERVER_FD=str(theirs.fileno()))
        self.process = subprocess.Popen([executable], env=env, pass_fds=(theirs.fileno(),),
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        theirs.close()
        self.socket = ours

    def spawn(self, argv: Sequence[str], cwd: str, env: Mapping[str, str], fds: tuple[int, int, int]) -> Job:
        """Raises OSError when the server is gone or cannot fork."""
        message = b"\0".join([os.fsencode(cwd), str(len(argv)).encode(), *map(os.fsencode, argv),
                              str(len(env)).encode(), *(os.fsencode(f"{k}={v}") for k, v in env.items())]) + b"\0"
        read_end, write_end = os.pipe()
        try:
            socket.send_fds(self.socket, [message], [*fds, write_end])
        except OSError:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        buffered = b""
        while b"\n" not in buffered:
            chunk = os.read(read_end, 4096)
            if not chunk:
                os.close(read_end)
                raise OSError("the fork server ended")
            buffered += chunk
        first, _, rest = buffered.partition(b"\n")
        word, _, number = first.partition(b" ")
        if word != b"pid":
            os.close(read_end)
            raise OSError(int(number), f"the fork server could not fork: {os.strerror(int(number))}")
        return Job(int(number), read_end, rest)


def serves(executable: str) -> bool:
    """Whether `executable` may have a fork server: checked before a caller makes the files
    a forked job needs (a script, a disabled or lost server: exec at once)."""
    if DISABLE in os.environ or not os.path.isabs(executable) or not LIBRARY.is_file():
        return False
    with _lock:
        return _servers.get(executable, True) is not None


def start(argv: Sequence[str], cwd: str, env: Mapping[str, str], fds: tuple[int, int, int]) -> Job | None:
    """`argv` run from its executable's fork server, with `fds` as its stdin, stdout and stderr;
    None when there is none (not built, disabled, failed to start or gone), to exec instead."""
    executable = argv[0]
    if DISABLE in os.environ or not os.path.isabs(executable):
        return None
    with _lock:
        if executable not in _servers:
            _servers[executable] = _launch(executable)
        server = _servers[executable]
    if server is None:
        return None
    try:
        return server.spawn(argv, cwd, env, fds)
    except OSError as e:
        log.warning("fork server of %s: %s; running it by exec from now on", executable, e)
        with _lock:
            _servers[executable] = None
        return None


def _launch(executable: str) -> _Server | None:
    """A server for an ELF executable (a script's interpreter would serve the script's
    arguments as its own); a static one ignores the preload, runs its `main` and ends, and the
    first job finds the server gone."""
    if not LIBRARY.is_file() or not _elf(executable):
        return None
    try:
        return _Server(executable)
    except OSError as e:
        log.warning("no fork server for %s (%s): running it by exec", executable, e)
        return None


def _elf(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False
