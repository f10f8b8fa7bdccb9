"""The fork server (tools/forkserver, interestingness/base/forkserver.py): a command it starts
behaves as one started by exec (arguments, environment, directory, streams, exit codes,
timeouts), a compile through it builds the same code, and without it everything still runs."""
from __future__ import annotations

import shutil
import signal
import time
from pathlib import Path

import pytest
from conftest import needs_clang22
from kernels import SMALL, pressure

from interestingness.base import forkserver
from interestingness.base.process import run
from interestingness.compiler.compile import LTO, NOLTO, Compiler, prepare_flags
from interestingness.compiler.toolchain import find_toolchain

pytestmark = pytest.mark.skipif(not forkserver.LIBRARY.is_file(), reason="run `bash scripts/setup.sh` first")


def _served(executable: str) -> bool:
    server = forkserver._servers.get(executable)
    return server is not None and server.process.poll() is None


def test_arguments_environment_directory_and_streams_reach_the_child(tmp_path):
    env = shutil.which("env")
    res = run([env, "ONE=1"], cwd=tmp_path, timeout=30, env={"TWO": "2"}, fork_server=True)
    assert _served(env)
    assert res.returncode == 0 and res.stdout.splitlines() == ["TWO=2", "ONE=1"]
    pwd = shutil.which("pwd")
    assert run([pwd], cwd=tmp_path, timeout=30, fork_server=True).stdout.strip() == str(tmp_path.resolve())
    cat = shutil.which("cat")
    assert run([cat], cwd=tmp_path, timeout=30, stdin=b"in\0put", fork_server=True).stdout == "in\0put"
    ls = shutil.which("ls")
    res = run([ls, "no-such-file"], cwd=tmp_path, timeout=30, fork_server=True)
    assert res.returncode == 2 and "no-such-file" in res.stderr and res.stdout == ""


def test_a_timeout_kills_the_child_and_what_it_started(tmp_path):
    sh = Path(shutil.which("bash")).resolve()
    marker = tmp_path / "late"
    start = time.monotonic()
    res = run([str(sh), "-c", f"(sleep 3; touch {marker}) & sleep 30"], cwd=tmp_path, timeout=0.5,
              fork_server=True)
    assert _served(str(sh))
    assert res.timed_out and res.returncode is None and time.monotonic() - start < 10
    time.sleep(3.5)
    assert not marker.exists()  # the grandchild died with its group


def test_a_signal_shows_as_subprocess_shows_it(tmp_path):
    sh = str(Path(shutil.which("bash")).resolve())
    res = run([sh, "-c", "kill -SEGV $$"], cwd=tmp_path, timeout=30, fork_server=True)
    assert res.returncode == -signal.SIGSEGV and res.killed_by_signal == signal.SIGSEGV


def test_a_script_is_run_by_exec_and_a_lost_server_falls_back(tmp_path):
    script = tmp_path / "tool.sh"
    script.write_text("#!/bin/sh\necho \"$@\"\n")
    script.chmod(0o755)
    assert run([str(script), "a", "b"], cwd=tmp_path, timeout=30, fork_server=True).stdout == "a b\n"
    assert forkserver._servers.get(str(script)) is None  # not an ELF executable: no server
    echo = shutil.which("echo")
    assert run([echo, "x"], cwd=tmp_path, timeout=30, fork_server=True).stdout == "x\n"
    forkserver._servers[echo].process.kill()
    forkserver._servers[echo].process.wait()
    assert run([echo, "y"], cwd=tmp_path, timeout=30, fork_server=True).stdout == "y\n"  # by exec
    assert forkserver._servers[echo] is None


@needs_clang22
def test_a_compile_through_the_fork_server_builds_the_same_code(tmp_path, monkeypatch):
    """Both ways a side is built: one shared front end and each side's pipeline from its
    bitcode (cc1, lld), and a whole compile through the driver."""
    compiler = Compiler(find_toolchain(None), prepare_flags(["-std=c++17"], tmp_path)[0], "k.hip", str(tmp_path),
                        timeout=300)
    content = pressure(*SMALL).encode()

    def builds() -> list:
        front_end = compiler.front_end(content)
        return [compiler.backend(LTO, front_end), compiler.backend(NOLTO, front_end), compiler.compile(LTO, content)]

    served = builds()
    assert any(_served(e) for e in forkserver._servers if Path(e).name.startswith("clang")), "no fork server for clang"
    assert any(_served(e) for e in forkserver._servers if Path(e).name.startswith(("lld", "ld.lld")))
    monkeypatch.setenv(forkserver.DISABLE, "1")
    for built, again in zip(served, builds(), strict=True):
        assert built.ok and again.ok
        assert built.asm == again.asm
