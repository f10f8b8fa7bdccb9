"""A pass that raises cannot kill a run: real `reduce` processes with a deliberately broken pass
(tests/broken_pass.py), a real script, real kills and resumes."""
import json
import subprocess
import sys
from pathlib import Path

from conftest import ROOT
from test_runs import ENV, journal_keys, kill_when, setup_case

BROKEN = [sys.executable, str(ROOT / "tests" / "broken_pass.py")]
PASSES = ["--passes", "broken,lines"]


def broken(mode: str, *args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*BROKEN, mode, *map(str, args)], cwd=cwd, capture_output=True, text=True, env=ENV)


def interesting(test: Path, result: Path, tmp: Path) -> bool:
    """The case's own test, run as the reducer runs it: in a directory holding only the file."""
    d = tmp / "check"
    d.mkdir()
    (d / "case.c").write_bytes(result.read_bytes())
    return subprocess.run([str(test)], cwd=d).returncode == 0


def test_a_pass_raising_on_its_input_is_contained_reported_and_replayed_on_resume(tmp_path):
    ref = tmp_path / "ref"
    test = setup_case(ref)
    r = broken("items", "case.c", "--test", test, "-j", 2, *PASSES, cwd=ref)
    assert r.returncode == 0, r.stderr
    workdir = ref / "case.reduced.c.work"
    bug = workdir / "pass-bugs" / "1"
    assert sorted(p.name for p in (workdir / "pass-bugs").iterdir()) == ["1"]  # once: the pass is dropped
    assert (bug / "pass").read_text() == "broken\n"
    assert "ValueError: deliberately broken on a file below 700 bytes" in (bug / "traceback.txt").read_text()
    given = (bug / "input.c").read_bytes()
    assert len(given) < 700 and b"foo(" in given  # the exact text the pass was given: an accepted best
    assert r.stderr.count("BUG in pass broken") == 1 and str(bug) in r.stderr
    report = (workdir / "report.md").read_text()
    assert report.count("**pass bug**: `broken` raised `ValueError") == 1 and "broken (dropped: bug 1)" in report
    state = json.loads((workdir / "state.json").read_text())
    assert [b["pass"] for b in state["pass_bugs"]] == ["broken"] and state["dropped_passes"] == ["broken"]
    assert state["per_pass"]["lines"]["accepted"] > 0  # the run went on with the other passes
    reference = (ref / "case.reduced.c").read_bytes()
    assert len(reference) < len(given) and interesting(test, ref / "case.reduced.c", tmp_path)

    # stopped by its budget before the bug, killed after it: each session replays the same decision
    run = tmp_path / "run"
    test = setup_case(run)
    workdir = run / "case.reduced.c.work"
    bugs = workdir / "pass-bugs"
    r = broken("items", "case.c", "--test", test, "-j", 2, *PASSES, "-q", "--max-tests", 4, cwd=run)
    assert r.returncode == 7 and not bugs.exists(), r.stderr
    proc = subprocess.Popen([*BROKEN, "items", "resume", str(workdir), "-q", "--max-tests", "100000"], cwd=run,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    assert kill_when(proc, lambda: bugs.exists() and len(journal_keys(workdir)) > 8)
    assert (bugs / "1" / "input.c").read_bytes() == given
    r = broken("items", "resume", workdir, cwd=run)
    assert r.returncode == 0, r.stderr
    assert (run / "case.reduced.c").read_bytes() == reference
    assert sorted(p.name for p in bugs.iterdir()) == ["1"] and "BUG in pass" not in r.stderr  # said once
    assert "dropped again where it raised" in (workdir / "log.txt").read_text()
    assert json.loads((workdir / "state.json").read_text())["dropped_passes"] == ["broken"]
    keys = journal_keys(workdir)
    assert len(keys) == len(set(keys))  # no test ran twice


def test_a_chunk_that_cannot_be_applied_is_a_pass_bug_too(tmp_path):
    test = setup_case(tmp_path)
    r = broken("apply", "case.c", "--test", test, *PASSES, "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    bug = tmp_path / "case.reduced.c.work" / "pass-bugs" / "1"
    assert "TypeError" in (bug / "traceback.txt").read_text() and "apply" in (bug / "traceback.txt").read_text()
    edits = json.loads((bug / "edits.json").read_text())
    assert {"start": 0, "end": 1, "replacement": "not bytes"} in edits
    assert "applying its items" in (bug / "README.md").read_text()
    assert interesting(test, tmp_path / "case.reduced.c", tmp_path)
