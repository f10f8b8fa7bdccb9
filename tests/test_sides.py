"""Sides as data: the two builds a spill differential compares, each a mode, its own flags and its
own compiler. The spec language; `reduce check` and the oracle's identity with two LTO builds that
differ in a scheduler knob (the tiny README case's result: default scheduling spills one VGPR, the
AMDGPU trackers none); and that pair reduced end to end from the command line, its bundle's
repro.sh rebuilding both sides as given."""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys

import pytest
from conftest import CLANG, ROOT, needs_clang22

from interestingness.compiler.sides import DEFAULT_SIDES, Side, SideError, default_predicate, parse_side, parse_sides
from interestingness.measure.predicates import DEFAULT_PREDICATE, Predicate
from interestingness.oracle.spill import SpillSetup

TINY = ROOT / "corpora" / "wgrad_tiny_pos" / "result.hip"
KNOB = "-Xoffload-linker -mllvm=-amdgpu-use-amdgpu-trackers"
PAIR = ["base=lto", f"trackers=lto {KNOB}"]


def test_a_side_spec_is_a_name_a_mode_its_flags_and_its_compiler():
    s = parse_side("new=lto --clang=/opt/llvm/bin/clang++ -Xoffload-linker '-mllvm=-x=a b'")
    assert s == Side("new", True, ("-Xoffload-linker", "-mllvm=-x=a b"), "/opt/llvm/bin/clang++")
    assert parse_side(s.spec()) == s
    assert parse_sides([]) == DEFAULT_SIDES and parse_sides(["a=nolto", "b=lto"])[0] == Side("a", False)
    for bad in ("x", "1a=lto", "a=thin", "lto=nolto", "orig=lto", "a=lto --clang=x --clang=y", "a=lto '"):
        with pytest.raises(SideError):
            parse_side(bad)
    for bad in (["a=lto"], ["a=lto", "a=nolto"], ["a=lto", "b=lto", "c=lto"]):
        with pytest.raises(SideError):
            parse_sides(bad)


def test_the_default_predicate_reads_the_first_side_as_lto_and_the_second_as_nolto():
    assert default_predicate(DEFAULT_SIDES) == DEFAULT_PREDICATE
    text = default_predicate((Side("base", True), Side("ilp", True)))
    assert text == DEFAULT_PREDICATE.replace("nolto.", "ilp.").replace("lto.", "base.")
    p = Predicate(text, ("base", "ilp"))
    assert "ilp.vgpr_total" in p.original_names and all(n.split(".")[0] in ("base", "ilp")
                                                         for n in (*p.names, *p.original_names))
    budget = {"max_flat_workgroup_size": 256, "occupancy": 2, "calls": 0}  # the budget and call clauses (43, 44)
    spills = {"vgpr_spills": 4, "spill_ops": 6, "scratch_size": 20, "mfma": 24, "vgpr_total": 256, "instructions": 900,
              **budget}
    clear = {"vgpr_spills": 0, "spill_ops": 0, "scratch_size": 0, "mfma": 24, "vgpr_total": 252, "instructions": 880,
             **budget}
    original = {"base": spills, "ilp": clear}
    assert p.bind(original).evaluate(spills, clear) is True
    assert p.bind(original).evaluate(clear, spills) is False


@needs_clang22
def test_check_compares_two_flag_sets_and_the_identity_holds_each_side(tmp_path):
    res = subprocess.run([sys.executable, "-m", "reducer.cli", "check", str(TINY), "--json", "--no-init-guard",
                          "--no-ub-guard", *(a for s in PAIR for a in ("--side", s)), "--", "-std=gnu++20"],
                         cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    k = next(k for k in report["kernels"] if k["selected"])
    assert k["interesting"] and k["base"]["vgpr_spills"] > 0 and k["trackers"]["vgpr_spills"] == 0
    assert "-mllvm=-amdgpu-use-amdgpu-trackers" in report["compiles"]["trackers"]["command"]
    assert "-mllvm=-amdgpu-use-amdgpu-trackers" not in report["compiles"]["base"]["command"]
    assert report["predicate"].startswith("base.vgpr_spills > 0")
    # the oracle's identity (the cache key) has each side's flags and, for a side with its own, its compiler
    own = (Side("base", True), Side("trackers", True, ("-Xoffload-linker", "-mllvm=-amdgpu-use-amdgpu-trackers"),
                                    str(CLANG)))
    oracle = SpillSetup(TINY, ["-std=gnu++20"], sides=own, tmp_dir=tmp_path, ub_guard=False, init_guard=False,
                        loop_guard=False).resolve(TINY.read_bytes())
    ident = oracle.identity()
    assert set(ident["commands"]) == {"base", "trackers"} and ident["side_toolchains"]["trackers"]["version"]
    assert ident["commands"]["trackers"][0] == str(CLANG) and "-mllvm=-amdgpu-use-amdgpu-trackers" in \
        ident["commands"]["trackers"]
    assert oracle.test(TINY.read_bytes()).interesting and not oracle.compiler.shared_front_end


@needs_clang22
def test_a_two_flag_set_differential_reduces_end_to_end_and_its_bundle_rebuilds_both_sides(tmp_path):
    case = tmp_path / "tiny.hip"
    case.write_bytes(TINY.read_bytes())
    res = subprocess.run([sys.executable, "-m", "reducer.cli", str(case), "-j", "2", "--max-tests", "40",
                          "--no-explain", *(a for s in PAIR for a in ("--side", s)), "--", "-std=gnu++20"],
                         cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         timeout=600)
    assert res.returncode in (0, 7), res.stderr[-3000:]  # 7: the test budget ran out first
    assert "building both sides (base=lto, trackers=lto" in res.stderr
    result = tmp_path / "tiny.reduced.hip"
    assert len(result.read_bytes()) < len(TINY.read_bytes())
    bundle = tmp_path / "tiny.reduced.hip.work" / "bundle"
    script = (bundle / "repro.sh").read_text()
    assert "-mllvm=-amdgpu-use-amdgpu-trackers" in script and "-o base.s" in script and "-o trackers.s" in script
    rerun = subprocess.run(["bash", str(bundle / "repro.sh")], capture_output=True, text=True,
                           env={**os.environ, "CLANG": str(CLANG)}, timeout=300)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert re.search(r"vgpr_spills\s+[1-9]\d* \| 0\n", rerun.stdout) and "verdict: INTERESTING" in rerun.stdout
    report = (tmp_path / "tiny.reduced.hip.work" / "report.md").read_text()
    assert "original base" in report and "result trackers" in report


BIAS = "-Xoffload-linker -mllvm=-amdgpu-schedule-metric-bias=0"  # changes nothing on TINY (tests/test_knobs.py)
FLAG_PAIR = [f"base=lto {BIAS}", f"trackers=lto {KNOB}"]


def test_the_flags_two_sides_differ_by_are_whole_options_and_changes_to_the_spilling_side():
    from interestingness.tools.explain.side_diff import Change, applied, changes, flag_units

    assert flag_units(["-O3", "-Xclang", "-mllvm", "-Xclang", "-x=1", "-Xoffload-linker", "-mllvm=-y", "-DA"]) == \
        [("-O3",), ("-Xclang", "-mllvm", "-Xclang", "-x=1"), ("-Xoffload-linker", "-mllvm=-y"), ("-DA",)]
    a, b = parse_side("a=lto -O3 -DA -DA"), parse_side("b=lto -DA -O2")
    assert changes(a, b) == [Change(False, ("-O3",)), Change(False, ("-DA",)), Change(True, ("-O2",))]
    assert applied(a, changes(a, b)).flags == ("-DA", "-O2")
    assert str(Change(True, ("-Xoffload-linker", "-mllvm=-y"))) == "add -Xoffload-linker -mllvm=-y"


@needs_clang22
def test_explain_names_the_flag_that_moves_the_spill_between_two_flag_sets(tmp_path):
    """`reduce explain --side --side`: of the two flags the sides differ by, the trackers alone remove
    base's spill (the bias changes nothing), each said from a build; the stages are named by side."""
    res = subprocess.run([sys.executable, "-m", "reducer.cli", "explain", str(TINY), "-j", "2", "-o", "out",
                          "--no-knobs", "--no-dumps", "--no-search", "--stages", "base.link", "--passes", "gvn",
                          *(a for s in FLAG_PAIR for a in ("--side", s)), "--", "-std=gnu++20"],
                         cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    data = json.loads((tmp_path / "out" / "explain.json").read_text())
    diff = data["sides_diff"]
    assert diff["spilling"] == "base" and diff["differ"] == ["flags"] and diff["alone"]
    assert diff["cause"] == [f"add {KNOB}"], diff
    by = {tuple(t["changes"]): t for t in diff["tries"]}
    assert by[(f"remove {BIAS}",)]["outcome"] == "same" and by[(f"add {KNOB}",)]["figures"]["vgpr_spills"] == 0
    assert data["sides"] == ["base", "trackers"] and data["stages"] == ["base.link"]
    assert {a["stage"] for a in data["ablations"]} == {"base.link"}
    assert "flags that move the spill: add " + KNOB in res.stderr
    md = (tmp_path / "out" / "EXPLAIN.md").read_text()
    assert "## The sides" in md and f"**Cause**: `add {KNOB}` alone" in md and "LTO link of base" in md


@needs_clang22
def test_a_side_pairs_explain_in_a_bundle_runs_from_a_copy(tmp_path):
    """As a --side run's end writes it: EXPLAIN.md's commands are the bundle's (clang++, its copy of
    the file), and from a copy of the bundle each side's build and the cause's give the figures it says."""
    import shutil
    import types

    from interestingness.tools.check import run_check
    from interestingness.tools.explain import explain_file
    from interestingness.tools.explain.report import write_explain
    from reducer.run import bugreport

    sides = parse_sides(FLAG_PAIR)
    report = run_check(TINY, ["-std=gnu++20"], init_guard=False, ub_guard=False, sides=sides)
    files = [("result.hip", TINY.read_bytes())]
    bundle = bugreport.write(types.SimpleNamespace(path=tmp_path), report, files)
    r = explain_file(TINY, ["-std=gnu++20"], jobs=2, passes=[], dumps=False, search=False, knobs=[], sides=sides,
                     by_hand=bugreport.by_hand(report, files), workdir=tmp_path / "w")
    write_explain(r, bundle)
    copy = shutil.copytree(bundle, tmp_path / "elsewhere")
    md = (copy / "EXPLAIN.md").read_text()
    section = md[md.index("## The sides"):md.index("## Culprits")]
    commands = re.findall(r"^\s*(clang\+\+ .*)$", section, re.M)
    assert len(commands) == 3 and not any(str(ROOT) in c or str(tmp_path) in c for c in commands), commands
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "clang++").symlink_to(CLANG)
    spills = []
    for command in commands:  # base, trackers, base with the cause
        out = subprocess.run(["bash", "-c", f"rm -f *.s.lto*.s; {command} && cat *.s.lto*.s"], cwd=copy,
                             capture_output=True, text=True, timeout=120,
                             env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"})
        assert out.returncode == 0, out.stderr
        meta = out.stdout[re.search(rf"\.name:\s+{re.escape(r.target)}\n", out.stdout).start():]
        spills.append(int(re.search(r"\.vgpr_spill_count:\s+(\d+)", meta).group(1)))
    assert spills[0] == r.baseline["base"]["vgpr_spills"] > 0 and spills[1:] == [0, 0]


class _Rule:
    """A stand-in for explain's Explainer over two LTO sides: the spilling side `a` keeps its spill
    unless both -A and -B are gone from its flags (the search's logic, no compiler)."""

    def __init__(self, a: Side, b: Side):
        from interestingness.tools.explain.stages import Build

        self.Build, self.built = Build, []
        sides = {s.name: s for s in (a, b)}
        self.b = types_namespace(compiler=types_namespace(side=sides.__getitem__), sides=("a", "b"),
                                 stages=("a.link", "a.prelink", "b.link", "b.prelink"),
                                 side=lambda st: st.split(".")[0],
                                 clang=lambda st: sides[st.split(".")[0]].clang or str(CLANG),
                                 by_hand=lambda st, opts=(), side=None: shlex.join((side or sides["a"]).flags))

    def build(self, stage, opts, side):
        self.built.append(side.flags)
        spills = 0 if not {"-A", "-B"} & set(side.flags) else 2
        return self.Build(True, {"vgpr_spills": spills, "spill_ops": spills, "mfma": 4}, 0.1)

    def verdict(self, stage, figures, base):
        return figures["spill_ops"] > 0, ""

    def map(self, fn, items, phase):
        return [fn(i) for i in items]


def types_namespace(**kw):
    import types
    return types.SimpleNamespace(**kw)


def test_when_no_flag_moves_the_spill_alone_the_fewest_that_do_together_are_found_and_each_built():
    from interestingness.tools.explain.side_diff import render, side_diff

    ex = _Rule(parse_side("a=lto -A -C -B"), parse_side("b=lto"))
    base = {"a": {"vgpr_spills": 2, "spill_ops": 2, "mfma": 4}, "b": {"vgpr_spills": 0, "spill_ops": 0, "mfma": 4}}
    diff = side_diff(ex, "a.link", base)
    assert diff.differ == ["flags"] and diff.changes == ["remove -A", "remove -C", "remove -B"]
    assert diff.cause == ["remove -A", "remove -B"] and not diff.alone
    assert ("-C",) in ex.built and len(ex.built) == len(set(ex.built)) == len(diff.tries)  # each set built once
    md = "\n".join(render(diff))
    assert "**Cause**: `remove -A`, `remove -B` together" in md and "```sh\n-C\n```" in md  # the set's build
    # a compiler of its own on one side: said, not searched
    ex = _Rule(parse_side("a=lto --clang=/opt/llvm-main/bin/clang++"), parse_side("b=lto"))
    diff = side_diff(ex, "a.link", base)
    assert diff.differ == ["compiler"] and not ex.built and not diff.cause
    assert "**A compiler difference**" in "\n".join(render(diff)) and "cannot be bisected here" in "\n".join(render(diff))
