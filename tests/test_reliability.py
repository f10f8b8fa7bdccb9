"""What goes wrong in unattended runs, made to go wrong for real: flaky and hanging scripts, a
compiler that is killed, a script that accepts everything, a full disk, hostile file names,
planted symlinks."""
import hashlib
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from conftest import CLANG, ROOT, needs_clang22, write_script

REDUCE = [sys.executable, "-m", "reducer.cli"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
HIP_KERNEL = "#include <hip/hip_runtime.h>\n__global__ void k(float* p) {{ p[0] = {v}; }}\n"
CASE = "int unused(int a) { return a * 2; }\nint keep(int q) { return q + 1; }\nint main(void) { return keep(MARK); }\n"


def reduce(*args, cwd: Path, shell_prefix: str = ""):
    cmd = [*REDUCE, *map(str, args)]
    if shell_prefix:  # e.g. a ulimit, applied to the reducer only
        cmd = ["bash", "-c", f'{shell_prefix}; exec "$@"', "bash", *cmd]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=ENV)


def alternating(tmp_path: Path, condition: str) -> Path:
    """A real flaky test: when `condition` fails, it answers yes and no in turn."""
    return write_script(tmp_path / "flaky.sh", f"{condition} && exit 0\n"
                        f"exec 9>{tmp_path}/lock; flock 9\n"  # tests run in parallel: count under a lock
                        f"n=$(cat {tmp_path}/count 2>/dev/null || echo 0); echo $((n + 1)) > {tmp_path}/count\n"
                        "exit $((n % 2))\n")


def test_a_flaky_original_is_refused_with_its_verdicts(tmp_path):
    (tmp_path / "case.c").write_text(CASE)
    r = reduce("case.c", "--test", alternating(tmp_path, "false"), cwd=tmp_path)
    assert r.returncode == 9, r.stderr
    # the two runs go in parallel: which one takes the "yes" depends on the scheduler
    assert "not stable on the original" in r.stderr
    assert any(f"gave {both}" in r.stderr for both in ("interesting; not interesting (exit 1)",
                                                       "not interesting (exit 1); interesting"))


def test_a_candidate_interesting_once_is_never_committed(tmp_path):
    """Stable on the original (its marker), flaky on everything else: every candidate without the
    marker is interesting every other time, and none of them may become the result. (--allow-empty:
    the up-front test of the empty file would otherwise refuse this test, rightly, on its first yes.)"""
    (tmp_path / "case.c").write_text(CASE.replace("MARK", "MARK /* ORIGINAL_ONLY */"))
    test = alternating(tmp_path, "grep -q ORIGINAL_ONLY case.c")
    r = reduce("case.c", "--test", test, "-j", 1, "--allow-empty", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert b"ORIGINAL_ONLY" in (tmp_path / "case.reduced.c").read_bytes()
    summary = json.loads((tmp_path / "case.reduced.c.work" / "summary.json").read_text())
    assert summary["counters"]["flaky"] > 0
    r = reduce("case.c", "--test", test, "-j", 1, "--allow-empty", "--no-recheck", "-o", "unchecked.c", cwd=tmp_path)
    assert r.returncode == 0 and b"ORIGINAL_ONLY" not in (tmp_path / "unchecked.c").read_bytes()  # what recheck prevents


def test_a_hanging_test_is_killed_with_its_children(tmp_path):
    (tmp_path / "case.c").write_text(CASE)
    test = write_script(tmp_path / "hang.sh", "grep -q unused case.c || exec sleep 97.25\ngrep -q MARK case.c\n")
    r = reduce("case.c", "--test", test, "--timeout", "1", "-j", 2, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert b"unused" in (tmp_path / "case.reduced.c").read_bytes()
    left = subprocess.run(["pgrep", "-f", "sleep 97.25"], capture_output=True, text=True).stdout
    assert not left.strip()


EMPTY_REFUSED = "the test accepts an empty file: it is almost certainly broken (use --allow-empty if you mean it)"


def test_a_script_that_accepts_everything_is_refused_before_reducing(tmp_path):
    (tmp_path / "case.c").write_text(CASE)
    yes = write_script(tmp_path / "yes.sh", "exit 0\n")
    r = reduce("case.c", "--test", yes, cwd=tmp_path)
    assert r.returncode == 5 and r.stderr.strip().splitlines()[-1] == f"Error: {EMPTY_REFUSED}", r.stderr
    assert not (tmp_path / "case.reduced.c").exists() and not (tmp_path / "case.reduced.c.work").exists()
    r = reduce("case.c", "--test", yes, "--allow-empty", "-o", "empty.c", cwd=tmp_path)
    assert r.returncode == 0 and not (tmp_path / "empty.c").read_bytes().strip()
    # one test of the empty file per run, journalled as a check, and not again on resume
    marker = write_script(tmp_path / "t.sh", "grep -q MARK case.c\n")
    r = reduce("case.c", "--test", marker, "--max-tests", 5, "-o", "m.c", cwd=tmp_path)
    assert r.returncode == 7, r.stderr
    r = reduce("resume", "m.c.work", "--max-tests", 10_000, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    empty = hashlib.sha256(b"").hexdigest()
    records = [json.loads(line) for line in (tmp_path / "m.c.work" / "journal.jsonl").read_text().splitlines()]
    assert [r.get("check") for r in records if r["key"] == empty] == [True]


def test_the_evaluator_still_never_calls_an_empty_file_interesting():
    from interestingness.base.verdict import NoConfirmation, Verdict
    from reducer.engine.evaluate import Evaluator

    class Yes(NoConfirmation):
        ignores_layout = False
        tree = None

        def identity(self):
            return {}

        def test(self, content):
            return Verdict(True)

    with Evaluator(Yes()) as ev:
        assert not ev.test(b" \n\t").interesting and ev.counters.tests == 0
    with Evaluator(Yes(), allow_empty=True) as ev:
        assert ev.test(b"").interesting


def test_a_full_disk_stops_the_run_with_the_best_file_intact(tmp_path):
    """RLIMIT_FSIZE makes the run's own writes fail (EFBIG) the way a full disk does (ENOSPC)."""
    lines = [f"int f{i}(int a) {{ return a + {i}; }}" for i in range(60)] + ["int main(void) { return MARK; }"]
    (tmp_path / "case.c").write_text("\n".join(lines) + "\n")
    # keeping 40 of the 60 functions takes many tests: the journal outgrows the limit mid-run
    test = write_script(tmp_path / "t.sh", "[ $(grep -c 'int f' case.c) -ge 40 ] && grep -q MARK case.c\n")
    r = reduce("case.c", "--test", test, "-j", 1, cwd=tmp_path, shell_prefix="ulimit -f 8")
    assert r.returncode == 10, r.stdout + r.stderr
    assert "cannot write the run's files" in r.stderr and "intact" in r.stderr and "Traceback" not in r.stderr
    best = (tmp_path / "case.reduced.c").read_bytes()
    assert b"MARK" in best and best.count(b"int f") >= 40  # a whole accepted (interesting) file


def test_hostile_file_names_never_reach_a_shell(tmp_path):
    name = "-k $(touch PWNED) `touch PWNED2` 'q\";.c"
    (tmp_path / name).write_text(CASE)
    test = write_script(tmp_path / "t.sh", 'grep -q MARK -- "$1"\n')
    r = reduce(f"./{name}", "--test", test, "--test-arg", "-j", 2, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert not list(tmp_path.rglob("PWNED*"))
    assert (tmp_path / (name[:-2] + ".reduced.c")).exists()


@needs_clang22
def test_a_dash_named_hip_file_reaches_clang_as_a_file(tmp_path):
    name = "-x $(touch PWNED).hip"
    (tmp_path / name).write_text(HIP_KERNEL.format(v="1.0f"))
    r = reduce("check", f"./{name}", "--predicate", "lto.instructions > 0", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["interesting"] and not list(tmp_path.rglob("PWNED*"))


@needs_clang22
def test_a_compiler_killed_by_sigkill_is_retried_and_never_cached(tmp_path):
    """A clang wrapper that kills itself with SIGKILL once, when told to: a failure of the machinery."""
    from interestingness.oracle.spill import SpillSetup
    from reducer.engine.cache import RECORD_CONFIRMATION, VerdictCache
    from reducer.engine.evaluate import Evaluator

    kill = tmp_path / "kill-next-compile"
    wrapper = write_script(tmp_path / "clang++", f"""
case "$*" in *--offload-device-only*)
  rm {kill} 2>/dev/null && kill -9 $$ ;;
esac
exec {CLANG} "$@"
""")
    (tmp_path / "k.hip").write_text(HIP_KERNEL.format(v="1.0f"))
    oracle = SpillSetup("k.hip", [], str(wrapper), "lto.instructions > 0", cwd=tmp_path)
    oracle = oracle.resolve((tmp_path / "k.hip").read_bytes())
    kill.touch()
    verdict = oracle.test(HIP_KERNEL.format(v="2.0f").encode())
    assert verdict.infra_failure and "signal 9" in verdict.reason
    cache = VerdictCache(tmp_path / "cache", oracle.identity())
    kill.touch()
    content = HIP_KERNEL.format(v="3.0f").encode()
    with Evaluator(oracle, cache=cache) as ev:
        assert ev.test(content).interesting  # killed, then retried
        assert ev.counters.infra_retries == 1 and ev.counters.tests == 2
    # the retried verdict and its confirmation, never the killed one
    assert cache.get(content).interesting and cache.get_record(content, RECORD_CONFIRMATION) is not None
    assert cache.entries() == 2


def test_work_and_cache_directories_are_private_and_refuse_planted_symlinks(tmp_path):
    (tmp_path / "case.c").write_text(CASE)
    test = write_script(tmp_path / "t.sh", "grep -q MARK case.c\n")
    r = reduce("case.c", "--test", test, "--cache", "--cache-dir", "cache", "--max-tests", 3, cwd=tmp_path)
    assert r.returncode == 7, r.stderr
    workdir = tmp_path / "case.reduced.c.work"
    assert stat.S_IMODE(workdir.stat().st_mode) == 0o700 and stat.S_IMODE((tmp_path / "cache").stat().st_mode) == 0o700
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (workdir / "journal.jsonl").unlink()
    (workdir / "journal.jsonl").symlink_to(victim)
    r = reduce("resume", workdir, cwd=tmp_path)
    assert r.returncode != 0 and "Traceback" not in r.stderr and victim.read_text() == "precious\n"
    (tmp_path / "cache" / "verdicts.sqlite").unlink()
    (tmp_path / "cache" / "verdicts.sqlite").symlink_to(victim)
    r = reduce("case.c", "--test", test, "--cache", "--cache-dir", "cache", "-o", "x.c", cwd=tmp_path)
    assert r.returncode == 3 and "symlink" in r.stderr and victim.read_text() == "precious\n"


def test_leftovers_of_a_crashed_session_are_removed(tmp_path):
    (tmp_path / "case.c").write_text(CASE)
    test = write_script(tmp_path / "t.sh", "grep -q MARK case.c\n")
    assert reduce("case.c", "--test", test, "--max-tests", 3, cwd=tmp_path).returncode == 7
    junk = tmp_path / "case.reduced.c.work" / "tmp" / "reduce-crashed" / "test-1"
    junk.mkdir(parents=True)
    (junk / "case.c").write_text("x")
    assert reduce("resume", tmp_path / "case.reduced.c.work", "--max-tests", 1000, cwd=tmp_path).returncode == 0
    assert not (tmp_path / "case.reduced.c.work" / "tmp").exists()


def test_crlf_and_bom_survive(tmp_path):
    (tmp_path / "case.c").write_bytes(b"\xef\xbb\xbf" + CASE.encode().replace(b"\n", b"\r\n"))
    test = write_script(tmp_path / "t.sh", "grep -q MARK case.c\n")
    r = reduce("case.c", "--test", test, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = (tmp_path / "case.reduced.c").read_bytes()
    assert b"MARK" in out and b"\n" not in out.replace(b"\r\n", b"")


def test_hostile_sources_reduce_or_fail_clearly(tmp_path):
    """Binary, invalid UTF-8, a 280 KB single line, deep nesting, unterminated comments and strings:
    a reduction (here cut short by a test budget) or a one-line error, never a traceback."""
    line = b" ".join(b"int v%d = %d;" % (i, i % 97) for i in range(20_000)).replace(b"v10000 ", b"MARK ")
    cases = {
        "binary.c": bytes(range(256)) * 40 + b"MARK",
        "utf8.c": b"int \xff\xfe x; /* \xc3\x28 */ int MARK;\n",
        "line.c": line,
        "nested.c": b"void f() " + b"{" * 1000 + b"MARK;" + b"}" * 1000 + b"\n",
        "comment.c": b"int MARK; /* never closed\nint y;\n",
        "string.c": b'const char* s = "never closed;\nint MARK;\n',
    }
    test = write_script(tmp_path / "t.sh", 'grep -q MARK -- "$1"\n')
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        r = reduce(name, "--test", test, "--test-arg", "--max-tests", 30, "-j", 2, cwd=tmp_path)
        assert r.returncode in (0, 7), (name, r.stderr[-2000:])
        assert "Traceback" not in r.stderr, name
        out = (tmp_path / name.replace(".c", ".reduced.c")).read_bytes()
        assert b"MARK" in out and len(out) < len(data), name
