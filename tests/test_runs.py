"""Overnight runs as a user has them: killed with SIGKILL and resumed, stopped by budgets, batches
with a broken case, reports. Real processes, real scripts, real kills."""
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from xml.etree import ElementTree

from conftest import ROOT, write_script

REDUCE = [sys.executable, "-m", "reducer.cli"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def case_source() -> str:
    lines = [f"int f{i}(int a, int b) {{ int r = a + {i}; if (b > {i}) r -= b; return r * {i}; }}" for i in range(24)]
    lines += ["struct S { int x; int y; double z; };",
              "int main(void) {\n  struct S s = {1, 2, 3.0};\n  int v = f3(s.x, s.y) + f7(1, 2);\n  return foo(v);\n}"]
    return "\n".join(lines) + "\n"


def setup_case(d: Path, pause: bool = True) -> Path:
    """A C file, and a test that marks each test it is running and takes 50 ms (so a kill can land
    inside one). pause=False: the same verdicts at once, for runs that nothing stops mid-test."""
    d.mkdir(parents=True, exist_ok=True)
    (d / "case.c").write_text(case_source())
    (d / "marks").mkdir()
    sleep = "sleep 0.05\n" if pause else ""
    return write_script(d / "t.sh", f"touch {d}/marks/$$\n{sleep}grep -q 'foo(' case.c && grep -q f7 case.c\n"
                        f"s=$?; rm -f {d}/marks/$$; exit $s\n")


def reduce(*args, cwd: Path):
    return subprocess.run([*REDUCE, *map(str, args)], cwd=cwd, capture_output=True, text=True, env=ENV)


def journal_keys(workdir: Path) -> list[str]:
    path = workdir / "journal.jsonl"
    if not path.exists():
        return []
    records = [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]
    return [r["key"] for r in records if not r.get("check")]  # stability checks are not candidates' tests


def journal_lines(workdir: Path) -> int:
    return len((workdir / "journal.jsonl").read_text().splitlines())


def kill_when(proc: subprocess.Popen, ready, timeout: float = 60) -> bool:
    """SIGKILL `proc` once `ready()`; False when it ended first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if ready():
            proc.kill()
            proc.wait()
            return True
        time.sleep(0.005)
    proc.wait()
    return False


def test_sigkill_at_several_moments_then_resume_gives_the_uninterrupted_result(tmp_path):
    ref_dir, run_dir = tmp_path / "ref", tmp_path / "run"
    test = setup_case(ref_dir, pause=False)  # the reference run is not killed
    r = reduce("case.c", "--test", test, "-j", 2, "-q", cwd=ref_dir)
    assert r.returncode == 0, r.stderr
    reference = (ref_dir / "case.reduced.c").read_bytes()

    test = setup_case(run_dir)
    workdir = run_dir / "case.reduced.c.work"
    marks = run_dir / "marks"
    rng = random.Random(7)
    start = [*REDUCE, "case.c", "--test", str(test), "-j", "2", "-q"]
    moments = [
        ("between tests", lambda n: lambda: len(journal_keys(workdir)) >= n + 3),
        ("during a test", lambda n: lambda: len(journal_keys(workdir)) > n and any(marks.iterdir())),
    ] + [("at a random moment (often while state is written)", None)] * 4
    kills = 0
    for i, (moment, trigger) in enumerate(moments):
        cmd = start if i == 0 else [*REDUCE, "resume", str(workdir), "-q"]
        n = len(journal_keys(workdir))
        proc = subprocess.Popen(cmd, cwd=run_dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
        if trigger is None:
            t0 = time.monotonic()
            delay = rng.uniform(0.0, 0.4)
            ready = lambda: len(journal_keys(workdir)) > n and time.monotonic() - t0 > delay  # noqa: E731
        else:
            ready = trigger(n)
        kills += kill_when(proc, ready)
    assert kills >= 3  # the run was really cut several times before it could finish
    r = reduce("resume", workdir, cwd=run_dir)
    assert r.returncode == 0, r.stderr
    assert (run_dir / "case.reduced.c").read_bytes() == reference
    keys = journal_keys(workdir)
    assert len(keys) == len(set(keys))  # no test was run twice
    assert "replayed from the journal" in r.stderr
    assert not (workdir / "tmp").exists()


def test_budgets_stop_cleanly_and_resume_goes_on(tmp_path):
    test = setup_case(tmp_path)
    r = reduce("case.c", "--test", test, "-j", 1, "-q", "--max-tests", 5, "-o", "out.c", cwd=tmp_path)
    assert r.returncode == 7, r.stderr
    assert "budget" in r.stderr and "test budget of 5 used" in r.stderr
    workdir = tmp_path / "out.c.work"
    # 2 checks of the original and 3 candidate tests, a re-check of the last if it was interesting,
    # then 2 fresh tests of the result kept
    assert 5 + 2 <= journal_lines(workdir) <= 5 + 1 + 2
    state = json.loads((workdir / "state.json").read_text())
    assert state["outcome"].startswith("budget")
    assert len((tmp_path / "out.c").read_bytes()) < len(case_source())  # the best so far is kept
    r = reduce("resume", workdir, "--max-tests", 10_000, "--time-budget", "1h", "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "".join((tmp_path / "out.c").read_text().split()) == "f7foo();"
    r = reduce("case.c", "--test", test, "-q", "--time-budget", "0.5s", "-o", "t.c", cwd=tmp_path)
    assert r.returncode == 7 and "time budget" in r.stderr


def test_report_has_sizes_passes_and_a_plot(tmp_path):
    test = setup_case(tmp_path, pause=False)
    r = reduce("case.c", "--test", test, "-j", 2, "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    workdir = tmp_path / "case.reduced.c.work"
    r = reduce("report", workdir, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "| bytes | 1" in r.stdout and "## Yield per pass" in r.stdout and "![size over time](size.svg)" in r.stdout
    assert "| did not compile |" in r.stdout and "did not compile: " not in r.stdout  # a script cannot tell
    summary = json.loads((workdir / "summary.json").read_text())
    # the plot: one step a size of the history, each lower than the one before (y grows downwards)
    svg = ElementTree.parse(workdir / "size.svg").getroot()
    path = svg.find("{http://www.w3.org/2000/svg}path")
    assert path is not None
    ys = [float(v) for v in re.findall(r"V([\d.]+)", path.get("d", ""))]
    assert len(ys) == len(summary["history"]) - 1 >= 1 and ys == sorted(ys)
    assert summary["outcome"] == "done" and summary["bytes"]["result"] == len((tmp_path / "case.reduced.c").read_bytes())
    assert summary["tests"] == journal_lines(workdir)  # candidates, re-checks and stability checks
    assert sum(p["bytes_removed"] for p in summary["per_pass"].values()) == summary["bytes"]["original"] - summary["bytes"]["reduced"]


def test_the_share_of_candidates_that_did_not_compile_per_pass():
    from reducer.run.report import compile_failures, compile_failures_line
    per_pass = {"inline": {"tests": 12, "compile_errors": 7, "build_known": 12},
                "unused": {"tests": 57, "compile_errors": 30, "build_known": 57},
                "branches": {"tests": 33, "compile_errors": 0, "build_known": 33}}
    assert compile_failures(per_pass["inline"]) == "7 (58%)" and compile_failures({"tests": 3}) == "-"
    assert compile_failures_line(per_pass) == ("did not compile: 37 of 102 tested candidates (36%); "
                                               "unused 30 (53%), inline 7 (58%)")
    assert compile_failures_line({"lines": {"tests": 4}}) is None


def test_json_progress_lines(tmp_path):
    test = setup_case(tmp_path, pause=False)
    r = reduce("case.c", "--test", test, "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    records = [json.loads(line) for line in r.stdout.splitlines()]
    assert any(rec["event"] == "accept" for rec in records)
    assert records[-1]["event"] == "end" and records[-1]["outcome"] == "done"


def test_an_existing_workdir_is_never_clobbered(tmp_path):
    test = setup_case(tmp_path, pause=False)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("precious")
    r = reduce("case.c", "--test", test, "--workdir", "mine", "--force", cwd=tmp_path)
    assert r.returncode == 3 and "not a work directory" in r.stderr
    assert (tmp_path / "mine" / "notes.txt").read_text() == "precious"
    assert reduce("case.c", "--test", test, "-q", cwd=tmp_path).returncode == 0
    r = reduce("case.c", "--test", test, "-o", "other.c", "--workdir", "case.reduced.c.work", cwd=tmp_path)
    assert r.returncode == 3 and "reduce resume" in r.stderr


def test_a_failed_setup_leaves_no_workdir(tmp_path):
    setup_case(tmp_path)
    no = write_script(tmp_path / "no.sh", "exit 1\n")
    r = reduce("case.c", "--test", no, cwd=tmp_path)
    assert r.returncode == 5
    assert not (tmp_path / "case.reduced.c.work").exists() and not (tmp_path / "case.reduced.c").exists()


def test_batch_finishes_good_cases_reports_the_broken_one_and_resumes(tmp_path):
    for name in ("a", "b", "broken"):
        setup_case(tmp_path / name, pause=False)
    write_script(tmp_path / "broken" / "t.sh", "grep -q no_such_thing case.c\n")
    manifest = tmp_path / "cases.toml"
    manifest.write_text("parallel = 2\n[defaults]\njobs = 1\n" + "".join(
        f'[[case]]\nname = "{n}"\nfile = "{n}/case.c"\ntest = "{n}/t.sh"\n' for n in ("a", "broken", "b")))
    r = reduce("batch", manifest, cwd=tmp_path)
    assert r.returncode == 8, r.stderr
    out = tmp_path / "cases.toml.batch"
    assert "".join((out / "a.c").read_text().split()) == "f7foo();"
    assert "".join((out / "b.c").read_text().split()) == "f7foo();"
    rows = {line.split("|")[1].strip(): line for line in r.stdout.splitlines() if line.startswith("| ")}
    assert "done" in rows["a"] and "done" in rows["b"]
    assert "failed" in rows["broken"] and "original is not interesting" in rows["broken"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["a"]["summary"]["bytes"]["result"] < summary["a"]["summary"]["bytes"]["original"]
    r = reduce("batch", manifest, cwd=tmp_path)  # again: finished cases are not redone
    assert "a: finished in an earlier batch run" in r.stderr and "b: finished in an earlier batch run" in r.stderr


def test_sigterm_to_a_batch_stops_its_cases_and_a_rerun_resumes_them(tmp_path):
    """A scheduler's kill of the batch must reach its cases (they run in sessions of their own)."""
    setup_case(tmp_path / "a")
    manifest = tmp_path / "cases.toml"
    manifest.write_text('[defaults]\njobs = 1\n[[case]]\nname = "a"\nfile = "a/case.c"\ntest = "a/t.sh"\n')
    proc = subprocess.Popen([*REDUCE, "batch", str(manifest)], cwd=tmp_path, stderr=subprocess.PIPE, text=True, env=ENV)
    workdir = tmp_path / "cases.toml.batch" / "a"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(journal_keys(workdir)) < 5:
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "run the same command again to resume" in err, err
    assert json.loads((workdir / "state.json").read_text())["outcome"] == "interrupted"  # the case stopped too
    tests = journal_lines(workdir)
    time.sleep(0.5)
    assert journal_lines(workdir) == tests  # and nothing runs on
    r = reduce("batch", manifest, cwd=tmp_path)
    assert r.returncode == 0 and "a: resuming" in r.stderr, r.stderr
    assert "".join((tmp_path / "cases.toml.batch" / "a.c").read_text().split()) == "f7foo();"


def test_batch_manifest_errors_are_clear(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[case]]\nname = "x"\nfile = "x.c"\nbogus = 1\n')
    r = reduce("batch", bad, cwd=tmp_path)
    assert r.returncode == 3 and "unknown key(s) bogus" in r.stderr
    r = reduce("batch", tmp_path / "missing.toml", cwd=tmp_path)
    assert r.returncode == 3 and "no such manifest" in r.stderr


def test_sigterm_mid_run_is_resumable(tmp_path):
    test = setup_case(tmp_path)
    proc = subprocess.Popen([*REDUCE, "case.c", "--test", str(test), "-q"], cwd=tmp_path,
                            stderr=subprocess.PIPE, text=True, env=ENV)
    workdir = tmp_path / "case.reduced.c.work"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(journal_keys(workdir)) < 5:
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "reduce resume" in err
    assert json.loads((workdir / "state.json").read_text())["outcome"] == "interrupted"
    assert reduce("resume", workdir, "-q", cwd=tmp_path).returncode == 0


def journal_by_pass(workdir: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in (workdir / "journal.jsonl").read_text().splitlines():
        by = json.loads(line).get("by", "")
        counts[by] = counts.get(by, 0) + 1
    return counts


def journal_seconds_by_pass(workdir: Path) -> dict[str, float]:
    seconds: dict[str, float] = {}
    for line in (workdir / "journal.jsonl").read_text().splitlines():
        record = json.loads(line)
        seconds[record.get("by", "")] = seconds.get(record.get("by", ""), 0.0) + record["seconds"]
    return seconds


def test_every_test_is_counted_for_its_pass_across_budget_stops_kills_and_resumes(tmp_path):
    """A session stopped inside a pass, or killed, used to lose that pass's tests: a resumed run
    re-derived the accepts by replay, with the journal answering, and showed them with 0 tests."""
    test = setup_case(tmp_path)
    workdir = tmp_path / "case.reduced.c.work"
    r = reduce("case.c", "--test", test, "-j", 2, "--max-tests", 12, "--passes", "tree-delete,lines,tokens",
               cwd=tmp_path)
    assert r.returncode == 7, r.stderr
    stopped_in = json.loads((workdir / "state.json").read_text())["position"]["pass"]
    summary = json.loads((workdir / "summary.json").read_text())
    assert summary["per_pass"][stopped_in]["tests"] > 0
    assert f"{stopped_in} -" in r.stderr and f"{stopped_in} -0B/0t" not in r.stderr
    proc = subprocess.Popen([*REDUCE, "resume", str(workdir), "-q", "--max-tests", "100000"], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    kill_when(proc, lambda: len(journal_keys(workdir)) >= 25)
    r = reduce("resume", workdir, "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    summary = json.loads((workdir / "summary.json").read_text())
    by_pass, seconds_by_pass = journal_by_pass(workdir), journal_seconds_by_pass(workdir)
    for name, y in summary["per_pass"].items():
        assert y["tests"] == by_pass.get(name, 0), name
        assert y["accepted"] == 0 or y["tests"] > 0, name
        # the oracle's seconds too, earlier sessions' from the journal (which rounds each to a millisecond)
        assert abs(y["oracle_seconds"] - seconds_by_pass.get(name, 0.0)) <= 0.001 * by_pass.get(name, 0) + 0.01, name
    report = (workdir / "report.md").read_text()
    assert "| B/test | oracle s | B/oracle-s |" in report and "| rested |" in report and "B/oracle-s)" in r.stderr + r.stdout
    outside = by_pass.get("", 0)  # the original's checks, the empty file's, each session's result checks
    assert sum(y["tests"] for y in summary["per_pass"].values()) + outside == summary["tests"] == journal_lines(workdir)
    assert summary["per_pass"]["tokens"]["prefiltered"] > 0 and "| pre-filtered |" in (workdir / "report.md").read_text()


def test_skip_passes_is_recorded_and_honoured_by_resume_and_batch(tmp_path):
    test = setup_case(tmp_path, pause=False)
    workdir = tmp_path / "case.reduced.c.work"
    r = reduce("case.c", "--test", test, "--skip-passes", "tokens,lines, tree-delete", "--max-tests", 8, "-q",
               cwd=tmp_path)
    assert r.returncode == 7, r.stderr
    assert json.loads((workdir / "run.json").read_text())["skip_passes"] == ["tokens", "lines", "tree-delete"]
    r = reduce("resume", workdir, "--max-tests", 100000, "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    ran = json.loads((workdir / "state.json").read_text())["per_pass"]
    assert not {"tokens", "lines", "tree-delete"} & set(ran) and {"unused", "blank"} <= set(ran)
    assert set(journal_by_pass(workdir)) <= {"", *ran}
    r = reduce("case.c", "--test", test, "--skip-passes", "lines,no-such-pass", "-o", "x.c", cwd=tmp_path)
    assert r.returncode == 2 and "unknown pass(es): no-such-pass" in r.stderr and "tree-delete" in r.stderr
    assert not (tmp_path / "x.c.work").exists()

    manifest = tmp_path / "m.toml"
    manifest.write_text('[defaults]\nskip_passes = ["tokens", "lines"]\nmax_tests = 6\n'
                        '[[case]]\nname = "a"\nfile = "case.c"\ntest = "t.sh"\n'
                        '[[case]]\nname = "b"\nfile = "case.c"\ntest = "t.sh"\nskip_passes = "hoist"\n')
    reduce("batch", manifest, cwd=tmp_path)
    out = tmp_path / "m.toml.batch"
    assert json.loads((out / "a" / "run.json").read_text())["skip_passes"] == ["tokens", "lines"]
    assert json.loads((out / "b" / "run.json").read_text())["skip_passes"] == ["hoist"]
    manifest.write_text('[[case]]\nname = "a"\nfile = "case.c"\ntest = "t.sh"\nskip_passes = ["nope"]\n')
    r = reduce("batch", manifest, cwd=tmp_path)
    assert r.returncode == 3 and "unknown pass(es): nope" in r.stderr


def test_reduce_passes_lists_the_schedule_in_order_then_the_rest():
    from reducer import passes

    r = subprocess.run([*REDUCE, "passes"], capture_output=True, text=True, env=ENV)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    sections = [lines.index(title) for title in ("first:", "main:", "replace:", "last:")]
    rest = next(i for i, line in enumerate(lines) if line.startswith("not in the default schedule"))
    assert sections == sorted(sections) and rest > sections[-1]

    def names(start: int, end: int) -> list[str]:
        return [line.split()[0] for line in lines[start + 1:end] if line.startswith("  ")]

    assert names(sections[0], sections[1]) == list(passes.FIRST)
    assert names(sections[1], sections[2]) == list(passes.MAIN)
    assert names(sections[2], sections[3]) == list(passes.REPLACE)
    assert names(sections[3], rest) == list(passes.LAST)
    others = names(rest, len(lines))
    assert "rename" in others and "angles-contents" in others
    assert set(others) | {*passes.FIRST, *passes.MAIN, *passes.REPLACE, *passes.LAST} == set(passes.REGISTRY)
    for line in lines:
        if line.startswith("  "):
            name, summary = line.split(None, 1)
            assert summary == passes.REGISTRY[name].summary and summary
    assert r.stdout == passes.catalogue() + "\n"
    # the manual's usage page shows it as it is: its fenced block is exactly the catalogue
    usage = (ROOT / "docs" / "usage.md").read_text()
    shown = [block for block in fenced_blocks(usage) if block.startswith("The default schedule")]
    assert shown == [passes.catalogue()]


def fenced_blocks(markdown: str) -> list[str]:
    """The texts of the fenced code blocks of `markdown`, each without its fence's indentation."""
    blocks, indent, body = [], None, []
    for line in markdown.split("\n"):
        if indent is None:
            if (fence := re.fullmatch(r"( *)```\w*", line)) is not None:
                indent, body = fence.group(1), []
        elif line == indent + "```":
            blocks.append("\n".join(body))
            indent = None
        else:
            body.append(line.removeprefix(indent))
    return blocks
