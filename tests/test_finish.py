"""The end of a run: hygiene rewrites and clang-format, each kept only when still interesting, and the
bug-report directory whose repro.sh, copied to another place, gives `reduce check`'s verdict."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import CLANG, ROOT, needs_clang22, needs_gxx
from kernels import SMALL, pressure_in_a_loop

from reducer.passes.hygiene import (
    bound_loops,
    drop_empty_attributes,
    drop_empty_statements,
    drop_unused_labels,
    initialise_scalars,
    sink_variants,
)
from reducer.run.finish import clang_format, finish
from reducer.text.edits import apply
from reducer.text.source import Source

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


NULL_SINKS = (b"__global__ void k(int n) {\n  __shared__ __attribute__(()) float s[4];\n  atomicAdd(0, 1.0f);\n"
              b"  ((float *)0)[n] = 2;\n  *(float *)16 = s[n];\n}\n")
SINKS_ORIGINAL = b"__global__ void k(int n, const float *in, float *__restrict__ dw) { atomicAdd(dw + n, in[n]); }"


def test_stores_through_null_become_stores_through_a_kernel_parameter():
    """A reduction reaches `atomicAdd(0, v)` because a literal is shorter than the output
    parameter; hygiene gives the kernel a pointer parameter in its place: the original's first."""
    (variants,) = sink_variants(Source(NULL_SINKS, "cuda"), Source(SINKS_ORIGINAL, "cuda"))
    assert apply(NULL_SINKS, variants[0]) == (b"__global__ void k(int n, float *__restrict__ dw) {\n  __shared__ "
                                              b"__attribute__(()) float s[4];\n  atomicAdd(dw, 1.0f);\n  dw[n] = 2;\n"
                                              b"  *dw = s[n];\n}\n")
    assert b"void k(int n, float *out)" in apply(NULL_SINKS, variants[1])  # then a new one, the cast's type first
    assert rewritten(drop_empty_attributes, NULL_SINKS) == NULL_SINKS.replace(b"__attribute__(()) ", b"")
    # an address the kernel's own parameter already provides, and an address that is no literal, stay as they are
    has = b"__global__ void k(float *o, int n) { atomicAdd(0, 1.0f); atomicAdd(o + n, 2.0f); }"
    (variants,) = sink_variants(Source(has, "cuda"), Source(has, "cuda"))
    assert apply(has, variants[0]) == b"__global__ void k(float *o, int n) { atomicAdd(o, 1.0f); atomicAdd(o + n, 2.0f); }"
    assert sink_variants(Source(b"__device__ void f() { atomicAdd(0, 1.0f); }", "cuda"), Source(b"", "cuda")) == []

    def interesting(parts):  # as if the original's parameter lost the bug
        return b"dw" not in parts[0]

    done = finish([NULL_SINKS], ["cuda"], [SINKS_ORIGINAL], interesting, format_with=None, style_file=Path("/tmp/f.hip"))
    assert b"void k(int n, float *out)" in done.parts[0] and b"atomicAdd(out, 1.0f)" in done.parts[0]
    assert b"__attribute__" not in done.parts[0] and done.rules["sinks"] == 1 and done.rules["drop-empty-attributes"] == 1
    refused = finish([NULL_SINKS], ["cuda"], [SINKS_ORIGINAL], lambda parts: b"atomicAdd(0" in parts[0],
                     format_with=None, style_file=Path("/tmp/f.hip"))
    assert b"atomicAdd(0, 1.0f)" in refused.parts[0] and "null or a constant address is left" in refused.notes[0]


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
    from reducer.run.options import RunConfig
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
    # spill code in a loop, every figure has a value; the small kernel, and the explanation bounded (its
    # ~240 builds took half the test): what it left out is said
    (tmp_path / "k.hip").write_text(pressure_in_a_loop(n=SMALL[0], bound=SMALL[1]))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    predicate = ["--predicate", "lto.spill_ops > 0 and nolto.spill_ops > 0 and nolto.vgpr_total <= orig.nolto.vgpr_total"]
    r = subprocess.run([*REDUCE, "k.hip", "-q", "-j", "2", "--passes", "blank", "--explain-budget", "3s", *predicate,
                        "--"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    explained_once = (tmp_path / "k.reduced.hip.work" / "bundle" / "EXPLAIN.md").read_text()
    assert "not built (time bound)" in explained_once and "time bound passed" in explained_once
    again = subprocess.run([*REDUCE, "bundle", "k.reduced.hip.work"], cwd=tmp_path, env=env, capture_output=True,
                           text=True)  # the same result bundled again keeps its explanation
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "k.reduced.hip.work" / "bundle" / "EXPLAIN.md").read_text() == explained_once
    assert not (tmp_path / "k.reduced.hip.work" / "bundle.explanation").exists()
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
    readme = (elsewhere / "README.md").read_text()
    assert readme.count("clang++ -x hip") == 2
    # it reads as a report: no path of the machine it was made on, the figures before the commands
    assert not re.search(r"/(work|tmp|usr|home|root)/|interestingness/compiler/shim", readme), readme
    assert str(tmp_path) not in readme and str(ROOT) not in readme
    assert re.search(r"^\| (\*\*)?spill ops(\*\*)? \|", readme, re.M).start() < readme.index("```sh")
    assert "original, no LTO |" in readme and "orig.nolto.vgpr_total (" in readme
    assert re.search(r"nolto_vgpr_total <= \d+", (elsewhere / "repro.sh").read_text())  # the original's, a number
    # every file of the bundle speaks in its own paths: none of this machine's, none of the run's
    for f in (f for f in elsewhere.rglob("*") if f.is_file()):
        text = f.read_text(errors="replace")
        assert not [p for p in (str(tmp_path), str(ROOT), str(CLANG.parent), "/usr/lib/llvm") if p in text], f
    explained = json.loads((elsewhere / "explain.json").read_text())
    assert explained["file"] == "k.hip" and explained["commands_from"]
    # and EXPLAIN.md's builds run from a copy of it: the no-LTO compile with opt-bisect's log
    line = shlex.split(explained["commands"]["nolto"])
    assert line[0] == "clang++" and line[-1] == "k.hip" and line[line.index("-o") + 1] == "nolto.s"
    again = tmp_path / "again"
    shutil.copytree(elsewhere, again)
    built = subprocess.run([str(CLANG), *line[1:]], cwd=again, capture_output=True, text=True)
    assert built.returncode == 0 and "BISECT: running pass" in built.stderr, built.stderr[-2000:]
    assert "_Z5spillPfPKfi" in (again / "nolto.s").read_text()
