"""The script oracle and the process runner under it, with real scripts."""
import os
import time

from interestingness.base.process import run
from interestingness.oracle.script import ScriptOracle


def test_timeout_kills_the_whole_process_group(tmp_path):
    pidfile = tmp_path / "child.pid"
    done = run(["bash", "-c", f"sleep 60 & echo $! > {pidfile}; wait"], cwd=tmp_path, timeout=0.5)
    assert done.timed_out and done.returncode is None
    child = int(pidfile.read_text())
    time.sleep(0.2)
    assert not os.path.exists(f"/proc/{child}") or "Z" in open(f"/proc/{child}/stat").read().split()[2]


def test_candidate_under_original_name_in_a_fresh_dir(tmp_path, script):
    test = script('[ "$#" -eq 0 ] && [ "$(cat repro.cpp)" = "int x;" ] && [ "$TMPDIR" = "$PWD" ]\n')
    oracle = ScriptOracle.create(test, "repro.cpp", tmp_root=tmp_path)
    assert oracle.test(b"int x;").interesting
    assert not oracle.test(b"int y;").interesting
    assert list(tmp_path.iterdir()) == [test]  # every test dir removed


def test_exit_status_and_timeout_become_verdicts(tmp_path, script):
    oracle = ScriptOracle.create(script("exit 3\n"), "a.c", tmp_root=tmp_path)
    assert oracle.test(b"").reason == "exit 3"
    slow = ScriptOracle.create(script("sleep 5\n", "slow.sh"), "a.c", tmp_root=tmp_path, timeout=0.3)
    verdict = slow.test(b"")
    assert not verdict.interesting and not verdict.infra_failure and "timeout" in verdict.reason


def test_script_killed_by_sigkill_is_an_infrastructure_failure(tmp_path, script):
    oracle = ScriptOracle.create(script("kill -9 $$\n"), "a.c", tmp_root=tmp_path)
    verdict = oracle.test(b"")
    assert verdict.infra_failure and not verdict.interesting


def test_identity_follows_the_script_content(tmp_path, script):
    test = script("exit 0\n")
    before = ScriptOracle.create(test, "a.c").identity()
    test.write_text("#!/bin/bash\nexit 1\n")
    assert ScriptOracle.create(test, "a.c").identity() != before
