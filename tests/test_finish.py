"""The end of a run: hygiene rewrites and clang-format, each kept only when still interesting, and the
bug-report directory whose repro.sh, copied to another place, gives `reduce check`'s verdict."""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import CLANG, ROOT, needs_clang22, needs_gxx
from kernels import pressure, pressure_in_a_loop
from reducer.finish import clang_format, finish
from reducer.hygiene import bound_loops, drop_empty_statements, drop_unused_labels, initialise_scalars
from reducer.edits import apply
from reducer.source import Source

REDUCE = [sys.executable, "-m", "reducer.cli"]
REDUCED = b"void f(int n) { int t; float x, y; int *p; static int s; for (int i; 4;) { ; } lbl: x = 1; }"
ORIGINAL = b"void f(int n) { for (int i = 0; i < 4; ++i) { n += i; } }"


def rewritten(rule, text=REDUCED, original=ORIGINAL) -> bytes:
    items = rule(Source(text, "cpp"), Source(original, "cpp"))
    return apply(text, [e for item in items for e in item])


def test_hygiene_rules_each_do_one_thing():
    assert rewritten(initialise_scalars) == (b"void f(int n) { int t = 0; float x = 0, y = 0; int *p{}; static int s; "
                                             b"for (int i = 0; 4;) { ; } lbl: x = 1; }")
    assert b"for (int i = 0; i < 4; ++i) { ; }" in rewritten(bound_loops)
    assert b"{  }" in rewritten(drop_empty_statements)
    assert rewritten(drop_unused_labels).endswith(b"{ ; } x = 1; }")
    assert rewritten(drop_unused_labels, REDUCED.replace(b"x = 1;", b"x = 1; goto lbl;")) == \
        REDUCED.replace(b"x = 1;", b"x = 1; goto lbl;")  # a label something jumps to stays


def test_a_rewrite_the_test_refuses_is_dropped_and_the_others_kept():
    tested = []

    def interesting(parts):  # as if `float x = 0` lost the bug
        tested.append(parts[0])
        return b"float x = 0" not in parts[0]

    done = finish([REDUCED], ["cpp"], [ORIGINAL], interesting, format_with=None, style_file=Path("/tmp/f.cpp"))
    assert b"for (int i = 0; i < 4; ++i)" in done.parts[0] and b"lbl:" not in done.parts[0]
    assert b"int t;" in done.parts[0] and "initialise-scalars" not in done.rules  # refused as a whole, kept out
    assert len(tested) == 1 + 4  # all rules at once, then one rule at a time
    assert done.after_hygiene != done.reduced and done.formatted is None


def test_hygiene_follows_the_oracle_initialising_and_bounding_only_when_asked():
    done = finish([REDUCED], ["cpp"], [ORIGINAL], lambda parts: True, format_with=None, style_file=Path("/tmp/f.cpp"),
                  initialise=False)
    assert set(done.rules) == {"drop-empty-statements", "drop-unused-labels"}
    assert b"int t;" in done.parts[0] and b"for (int i; 4;)" in done.parts[0] and b"lbl:" not in done.parts[0]
    assert done.after_hygiene < done.reduced  # a script's case only loses bytes
    from reducer.options import RunConfig
    script, builtin = (RunConfig(file="f", output="o", cwd="/", script=s) for s in ("t.sh", None))
    assert (script.initialises, builtin.initialises) == (False, True)  # the oracle decides...
    assert RunConfig(file="f", output="o", cwd="/", script="t.sh", initialise=True).initialises  # ...unless told


def test_clang_format_result_is_kept_only_when_interesting():
    tool = clang_format(str(CLANG))
    assert tool is not None, "clang-format-22 is installed by scripts/setup.sh"
    text = b"int main(){int a=1;\nreturn a;}\n"
    kept = finish([text], ["cpp"], [text], lambda parts: True, format_with=tool, style_file=Path("/tmp/x.cpp"))
    assert kept.parts[0] == b"int main() {\n  int a = 1;\n  return a;\n}\n" and kept.formatted == len(kept.parts[0])
    refused = finish([text], ["cpp"], [text], lambda parts: parts[0] == text, format_with=tool,
                     style_file=Path("/tmp/x.cpp"))
    assert refused.parts[0] == text and refused.formatted is None and "not interesting" in refused.notes[0]


@needs_gxx
def test_a_script_runs_result_is_formatted_and_no_format_keeps_the_raw_text(tmp_path, script):
    (tmp_path / "case.cpp").write_text("int keep(int a){return a+1;}\nint drop(){return 2;}\n"
                                       "int main(){int x=keep(1);return x;}\n")
    test = script("g++ -fsyntax-only case.cpp && grep -q 'int x' case.cpp && grep -q 'return x' case.cpp\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for out, extra in (("f.cpp", []), ("raw.cpp", ["--no-format"])):
        r = subprocess.run([*REDUCE, "case.cpp", "--test", test, "-q", "-o", out, *extra], cwd=tmp_path, env=env,
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    raw, formatted = (tmp_path / "raw.cpp").read_bytes(), (tmp_path / "f.cpp").read_bytes()
    again = subprocess.run([clang_format(str(CLANG)), "--style=LLVM"], input=formatted, capture_output=True).stdout
    assert formatted == again != raw and b"\n  " in formatted  # clang-format's own output, indentation and all
    state = json.loads((tmp_path / "f.cpp.work" / "state.json").read_text())
    assert state["finish"]["formatted_bytes"] == len(formatted) and state["finish"]["reduced_bytes"] == len(raw)
    assert "bytes formatted" in (tmp_path / "f.cpp.work" / "report.md").read_text()


@needs_clang22
def test_the_bug_report_runs_elsewhere_and_agrees_with_reduce_check(tmp_path):
    (tmp_path / "k.hip").write_text(pressure_in_a_loop())  # spill code in a loop: every figure has a value
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    predicate = ["--predicate", "lto.spill_ops > 0 and nolto.spill_ops > 0"]
    r = subprocess.run([*REDUCE, "k.hip", "-q", "-j", "2", "--passes", "blank", *predicate, "--"], cwd=tmp_path,
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    elsewhere = tmp_path / "elsewhere" / "report"
    shutil.copytree(tmp_path / "k.reduced.hip.work" / "bundle", elsewhere)
    (tmp_path / "k.reduced.hip.work").rename(tmp_path / "gone")  # nothing of the run is reachable any more
    ran = subprocess.run([str(elsewhere / "repro.sh")], cwd="/", capture_output=True, text=True,
                         env={**os.environ, "CLANG": str(CLANG)})
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "verdict: INTERESTING" in ran.stdout
    check = json.loads(subprocess.run([*REDUCE, "check", str(elsewhere / "k.hip"), "--json", "--no-init-guard",
                                       *predicate, "--"], cwd=tmp_path, env=env, capture_output=True,
                                      text=True).stdout)
    (kernel,) = [k for k in check["kernels"] if k["selected"]]
    shown = {m: (a, b) for m, a, b in re.findall(r"^  (\w+) +(\S+) \| (\S+)$", ran.stdout, re.M)}
    for metric, (lto, nolto) in shown.items():
        assert (lto, nolto) == tuple("-" if v is None else str(v) for v in (kernel["lto"][metric],
                                                                            kernel["nolto"][metric])), metric
    assert len(shown) == len(kernel["lto"]) and kernel["lto"]["loop_spill_ops"] > 0
    assert not (elsewhere / "lto.s").exists()  # the builds happen in a directory of their own
    assert (elsewhere / "README.md").read_text().count("clang++ -x hip") == 2
    assert "culprit" in (elsewhere / "EXPLAIN.md").read_text().lower()  # which compiler passes make the difference
