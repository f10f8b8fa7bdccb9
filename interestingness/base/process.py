"""Run one external command the way every oracle must: own process group, hard timeout, no shell."""
from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from interestingness.base import forkserver


@dataclass(frozen=True)
class Completed:
    returncode: int | None  # None when killed by our timeout
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool

    @property
    def killed_by_signal(self) -> int | None:
        """The signal that ended the process (not our timeout), if any."""
        if self.returncode is not None and self.returncode < 0:
            return -self.returncode
        return None


def run(
    cmd: Sequence[str | os.PathLike],
    *,
    cwd: Path,
    timeout: float | None,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    stderr_path: Path | None = None,
    fork_server: bool = False,
) -> Completed:
    """Run `cmd` (an argument list, never a shell string) in its own session.

    On timeout the whole process group is killed, so a script's children (compilers it started)
    die with it instead of running on in the background. With `stderr_path` the command's stderr
    goes to that file as it is written (for a caller that follows a long run's progress), and
    `stderr` is the file's content at the end. With `fork_server`, a compiler tool (clang, lld,
    llc: an ELF executable) is started from its fork server (forkserver.py) where there is one.
    """
    start = time.monotonic()
    if fork_server and forkserver.serves(os.fspath(cmd[0])):
        done = _run_forked([os.fspath(c) for c in cmd], cwd, timeout, env, stdin, stderr_path, start)
        if done is not None:
            return done
    err_file = open(stderr_path, "wb") if stderr_path is not None else None
    try:
        proc = subprocess.Popen(
            [os.fspath(c) for c in cmd],
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=err_file if err_file is not None else subprocess.PIPE,
            start_new_session=True,
        )
    finally:
        if err_file is not None:
            err_file.close()  # the child has its own copy
    timed_out = False
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc.pid)
        out, err = proc.communicate()
    except BaseException:
        _kill_group(proc.pid)
        proc.wait()
        raise
    finally:
        _kill_group(proc.pid)  # reap stragglers the leader left behind
    if stderr_path is not None:
        err = Path(stderr_path).read_bytes()
    return Completed(
        returncode=None if timed_out else proc.returncode,
        stdout=out.decode("utf-8", "replace"),
        stderr=err.decode("utf-8", "replace"),
        seconds=time.monotonic() - start,
        timed_out=timed_out,
    )


def _run_forked(cmd: list[str], cwd: Path, timeout: float | None, env: Mapping[str, str] | None,
                stdin: bytes | None, stderr_path: Path | None, start: float) -> Completed | None:
    """`run` through the fork server of cmd[0]; None when it has none."""
    with tempfile.TemporaryFile() as inp, tempfile.TemporaryFile() as out, \
            open(stderr_path, "w+b") if stderr_path is not None else tempfile.TemporaryFile() as err:
        if stdin is not None:
            inp.write(stdin)
            inp.seek(0)
        job = forkserver.start(cmd, os.fspath(cwd), dict(os.environ if env is None else env),
                               (inp.fileno(), out.fileno(), err.fileno()))
        if job is None:
            return None
        try:
            code = job.wait(timeout)
            if code is None:
                _kill_group(job.pid)
                job.wait(None)
        except BaseException:
            _kill_group(job.pid)
            raise
        finally:
            _kill_group(job.pid)  # reap stragglers the leader left behind
        out.seek(0)
        err.seek(0)
        return Completed(returncode=code, stdout=out.read().decode("utf-8", "replace"),
                         stderr=err.read().decode("utf-8", "replace"), seconds=time.monotonic() - start,
                         timed_out=code is None)


def test_dir(prefix: str, parent: str | os.PathLike | None) -> Path:
    """A fresh private directory for one test. The parent is created if missing: on a Dask
    worker of another machine the client's run directory does not exist yet."""
    if parent is not None:
        os.makedirs(parent, mode=0o700, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=prefix, dir=parent))


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
