"""`reduce explain`: the log and dump parsing on real log lines, and explain end to end with the real
clang and llc on a reduced corpus kernel (corpora/wgrad_tiny_pos/result.hip), with the ablation
restricted to a few pass names so the file takes well under a minute. Whether a culprit really is
one is checked by builds the test makes itself, read by the test's own regexes, not the tool's."""
from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import CLANG, ROOT, needs_clang22

from interestingness.compiler.compile import LTO, Compiler
from interestingness.compiler.sides import DEFAULT_SIDES, default_predicate
from interestingness.measure.predicates import DEFAULT_EFFECT
from interestingness.oracle.spill import SpillSetup
from interestingness.tools import explain as ex
from interestingness.tools.explain import ExplainError, explain_file, explain_ir
from interestingness.tools.explain.dumps import Dump, pick_dumps
from interestingness.tools.explain.pass_log import (
    OPEN_END,
    PassGates,
    legacy_arguments,
    parse_log,
    pass_names,
    skip_intervals,
    unchanged_executions,
)
from interestingness.tools.explain.report import (
    ExplainResult,
    compare_pipelines,
    render_markdown,
    side_by_side,
    write_explain,
)
from interestingness.tools.explain.stages import LINK, NOLTO_STAGE, PRELINK, SourceBuilds, default_stages

K = "_Z12wgrad_kernel10ConvParams"
TINY = ROOT / "corpora" / "wgrad_tiny_pos" / "result.hip"
FLAGS = ["-std=gnu++20"]
# LTO-link passes of the tiny kernel: a culprit (2 executions, the second enough alone), one without which it
# spills far more (408 VGPRs), one that changes nothing
LINK_PASSES = ["early-machinelicm", "amdgpu-attributor", "globaldce"]

LOG = """\
warning: something the front end said
BISECT: running pass (1) annotation2metadata on [module]
BISECT: running pass (4) lower-expect on _Z10block_tileR10ConvParams
BISECT: running pass (103) inline on (_Z10block_tileR10ConvParams)
BISECT: running pass (104) inline on (_Z1fv, _Z12wgrad_kernel10ConvParams)
BISECT: running pass (189) licm on loop %<unnamed loop> in function _Z12wgrad_kernel10ConvParams
BISECT: running pass (694) amdgpu-preload-kernel-arguments on module (ld-temp.o)
BISECT: running pass (700) amdgpu-image-intrinsic-opt on function (_Z12wgrad_kernel10ConvParams)
BISECT: NOT running pass (710) Loop Invariant Code Motion on loop
BISECT: running pass (711) amdgpu-image-intrinsic-opt on function (_Z1gv)
BISECT: running pass (712) Loop Invariant Code Motion on loop
"""


def test_parse_log_reads_every_kind_of_target():
    runs = parse_log(LOG, K)
    assert [r.index for r in runs] == [1, 4, 103, 104, 189, 694, 700, 710, 711, 712]
    assert [r.kernel for r in runs] == [True, False, False, True, True, True, True, True, False, False]
    assert runs[1].function == "_Z10block_tileR10ConvParams" and runs[4].function == K
    assert runs[7].name == "Loop Invariant Code Motion" and not runs[7].ran
    assert runs[9].function == "_Z1gv"  # a legacy loop pass belongs to the function that ran last
    assert pass_names(runs)[:3] == ["annotation2metadata", "lower-expect", "inline"]


def test_parse_log_reads_optdisables_own_log():
    runs = parse_log("OptDisable: NOT running pass gvn on function (_Z1fv)\n"
                     "OptDisable: running pass sroa on _Z1fv\n", "_Z1fv")
    assert [(r.index, r.name, r.ran, r.kernel) for r in runs] == [(None, "gvn", False, True),
                                                                  (None, "sroa", True, True)]


# a stage's log with the change report (clang 22.1.8's lines; dumps cut to one line)
CHANGES = """\
BISECT: running pass (3) inferattrs on [module]
Running pass: InferFunctionAttrsPass on [module]
Running analysis: TargetLibraryAnalysis on llvm.lifetime.start.p5
Invalidating analysis: InnerAnalysisManagerProxy<FunctionAnalysisManager, Module> on [module]
*** IR Dump After InferFunctionAttrsPass on [module] ***
define void @f() {
BISECT: running pass (5) simplifycfg on _Z1fv
Running pass: SimplifyCFGPass on _Z1fv (47 instructions)
*** IR Dump After SimplifyCFGPass on _Z1fv ***
BISECT: running pass (7) early-cse on _Z1fv
Running pass: EarlyCSEPass on _Z1fv (13 instructions)
Running analysis: TargetLibraryAnalysis on _Z1fv
*** IR Dump After EarlyCSEPass on _Z1fv omitted because no change ***
BISECT: running pass (8) callsite-splitting on _Z1fv
Running pass: CallSiteSplittingPass on _Z1fv (13 instructions)
*** IR Dump After CallSiteSplittingPass on _Z1fv omitted because no change ***
Invalidating analysis: DominatorTreeAnalysis on _Z1fv
*** IR Pass PassManager<Function> on _Z1fv ignored ***
BISECT: running pass (97) InvalidateAnalysisPass<llvm::AAManager> on _Z1fv
Running pass: InvalidateAnalysisPass<llvm::AAManager> on _Z1fv (13 instructions)
*** IR Dump After InvalidateAnalysisPass<llvm::AAManager> on _Z1fv omitted because no change ***
BISECT: running pass (98) InvalidateAnalysisPass<llvm::AAManager> on _Z1gv
Running pass: InvalidateAnalysisPass<llvm::AAManager> on _Z1gv (3 instructions)
Invalidating analysis: AAManager on _Z1gv
*** IR Dump After InvalidateAnalysisPass<llvm::AAManager> on _Z1gv omitted because no change ***
BISECT: running pass (106) amdgpu-promote-kernel-arguments on _Z1fv
BISECT: running pass (107) amdgpu-promote-kernel-arguments on function (_Z1fv)
*** IR Dump After AMDGPUPromoteKernelArgumentsPass on _Z1fv omitted because no change ***
BISECT: running pass (142) loop-unroll-full on loop %<unnamed loop> in function _Z1fv
Running pass: LoopFullUnrollPass on loop %<unnamed loop> in function _Z1fv
Clearing all analysis results for: <unnamed loop>
*** IR Pass LoopFullUnrollPass invalidated ***
BISECT: running pass (124) early-tailduplication on function (_Z1fv)
*** IR Dump After Early Tail Duplication (early-tailduplication) on _Z1fv omitted because no change ***
"""


def test_only_new_pm_executions_that_changed_nothing_and_kept_the_analyses_count():
    # 7 ran an analysis, 98 invalidated one, 3 both; 5 changed the module; 106/107 are one pass's two gate
    # lines; 142 deleted its loop; 124 is a machine pass (its MIR can hide state: it is always built)
    assert unchanged_executions(CHANGES) == {8, 97}


def test_skip_intervals_run_everything_but_the_given_executions():
    assert skip_intervals([706]) == f"1-705,707-{OPEN_END}"
    assert skip_intervals([1]) == f"2-{OPEN_END}"
    assert skip_intervals([2, 3, 9]) == f"1,4-8,10-{OPEN_END}"


def test_gates_are_read_from_the_option_list():
    help22 = "  --opt-bisect=<string>  - x\n  --opt-bisect-limit=<int> - y\n  --opt-disable=<string> - z\n" \
             "  --opt-disable-enable-verbosity - w\n"
    assert PassGates.from_help(help22) == PassGates(True, True, True, True)
    assert PassGates.from_help("  --opt-bisect-limit=<int> - y\n") == PassGates(False, False, False, True)


def test_dumps_are_picked_around_the_execution_in_either_pass_manager():
    new_pm = ("BISECT: running pass (5) gvn on f\n; *** IR Dump Before GVNPass on f ***\nA\n"
              "; *** IR Dump After GVNPass on f ***\nB\nBISECT: running pass (6) sroa on f\n"
              "BISECT: running pass (7) gvn on f\n; *** IR Dump Before GVNPass on f ***\nC\n"
              "; *** IR Dump After GVNPass on f ***\nD\n")
    d = Dump(7, "f", "gvn")
    pick_dumps(new_pm, 7, d)
    assert (d.before, d.after) == ("C\n", "D\n")
    legacy = ("BISECT: running pass (8) x on function (f)\n"
              "# *** IR Dump Before SI Fold Operands (si-fold-operands) ***:\nM1\n"
              "BISECT: running pass (9) si-fold-operands on function (f)\n"
              "# *** IR Dump After SI Fold Operands (si-fold-operands) ***:\nM2\n"
              "BISECT: running pass (10) y on function (f)\n")
    d = Dump(9, "f", "si-fold-operands")
    pick_dumps(legacy, 9, d)
    assert (d.before, d.after) == ("M1\n", "M2\n") and d.after_header.startswith("# *** IR Dump After")


def test_the_diff_ignores_renumbering():
    before = "define void @f() {\n  %1 = add i32 %0, 1\n  %2 = mul i32 %1, 2\n  ret void\n}\n"
    after = "define void @f() {\n  %1 = shl i32 %0, 3\n  %2 = add i32 %0, 1\n  %3 = mul i32 %2, 2\n  ret void\n}\n"
    diff = Dump(1, "f", "x", before=before, after=after).diff()
    changed = [line for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert changed == ["+  %1 = shl i32 %0, 3"]


def test_pipelines_side_by_side_show_what_lto_runs_and_no_lto_does_not():
    def log(*names):
        return parse_log("".join(f"BISECT: running pass ({i}) {n} on {K}\n" for i, n in enumerate(names, 1)), K)

    r = ExplainResult("source", "f.hip", K, K, "clang", "p", ("lto", "nolto"), {}, {}, PassGates(1, 1, 1, 1), [],
                         {NOLTO_STAGE: log("sroa", "gvn", "amdgpu-isel"), PRELINK: log("sroa", "gvn"),
                          LINK: log("internalize", "gvn", "gvn", "amdgpu-isel")})
    cmp = compare_pipelines(r)
    assert [x["name"] for x in cmp["lto_only"]] == ["internalize"]
    assert [(x["name"], x["nolto"], x["prelink"], x["link"]) for x in cmp["more_under_lto"]] == [("gvn", 1, 1, 2)]
    rows = side_by_side(r)[2:]
    assert [row.split()[-1] for row in rows] == ["sroa", "gvn", "internalize", "x2", "amdgpu-isel"]
    assert " + " in rows[2] and "gvn x2" in rows[3]


@needs_clang22
def test_legacy_descriptions_map_to_print_arguments():
    assert legacy_arguments(str(CLANG.parent))["Loop Invariant Code Motion"] == "licm"


# ---------------------------------------------------------------- with the real toolchain


def _build(side: str, extra: list[str], tmp: Path) -> dict:
    """The test's own build and reading of the target kernel's figures (not the tool's)."""
    out = tmp / f"{side}-{len(list(tmp.iterdir()))}"
    out.mkdir()
    common = [str(CLANG), "-x", "hip", "-nogpuinc", "-nogpulib", "--offload-arch=gfx950", "-O3", *FLAGS,
              "-isystem", str(ROOT / "interestingness" / "compiler" / "shim"), "--offload-device-only",
              "--no-gpu-bundle-output"]
    if side == "lto":
        cmd = [*common, "-foffload-lto=full", "-c", "-Xoffload-linker", "--lto-emit-asm", *extra, "-o", "out.s"]
    else:
        cmd = [*common, "-fno-offload-lto", "-S", *extra, "-o", "out.s"]
    subprocess.run([*cmd, str(TINY)], cwd=out, check=True, capture_output=True)
    asm = "".join(p.read_text() for p in sorted(out.glob("out.s*")))
    body = asm[asm.index(f"{K}:"):asm.index(".Lfunc_end0")]
    meta = asm[re.search(rf"\.name:\s+{K}", asm).start():]
    return {"vgpr_spills": int(re.search(r"\.vgpr_spill_count:\s+(\d+)", meta).group(1)),
            "scratch_size": int(re.search(r"\.private_segment_fixed_size:\s+(\d+)", meta).group(1)),
            "spill_ops": len(re.findall(r"Folded (?:Spill|Reload)", body)),
            "mfma": len(re.findall(r"^\s+v_mfma", body, re.M))}


def _default_predicate(lto: dict, nolto: dict) -> bool:
    """What explain asks passes about (the default predicate without its size clause), written out again."""
    return (lto["vgpr_spills"] > 0 and lto["spill_ops"] > 0 and nolto["spill_ops"] * 4 <= lto["spill_ops"]
            and nolto["vgpr_spills"] * 4 <= lto["vgpr_spills"] and nolto["scratch_size"] * 4 <= lto["scratch_size"]
            and lto["mfma"] > 0 and lto["mfma"] == nolto["mfma"])


def _counted(real, kind: str, built: list[str]):
    """`real` (Compiler.compile or .backend), noting `kind` for each of explain's builds: those
    that keep the compiler's stderr (the target's resolution keeps none)."""
    def wrapper(self, *args, **kwargs):
        if kwargs.get("keep_stderr"):
            built.append(kind)
        return real(self, *args, **kwargs)
    return wrapper


@pytest.fixture(scope="module")
def link_run(tmp_path_factory):
    """explain of the tiny kernel's LTO link (a few names), and how many of its builds ran through
    the driver and how many from the shared front end's bitcode."""
    built: list[str] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Compiler, "compile", _counted(Compiler.compile, "driver", built))
        mp.setattr(Compiler, "backend", _counted(Compiler.backend, "split", built))
        result = explain_file(TINY, FLAGS, jobs=2, stages=[LINK], passes=[*LINK_PASSES, "no-such-pass"],
                              workdir=tmp_path_factory.mktemp("explain"), knobs=())  # the knobs: test_knobs.py
    return result, Counter(built)


@pytest.fixture(scope="module")
def link_result(link_run):
    return link_run[0]


@needs_clang22
def test_a_listed_culprit_really_loses_the_predicate(link_result, tmp_path):
    r = link_result
    assert r.target == K and r.culprits, r.ablations
    assert {a.name for a in r.ablations} == set(LINK_PASSES)
    culprit = r.culprits[0]
    assert culprit.stage == LINK
    lto, nolto = _build("lto", [], tmp_path), _build("nolto", [], tmp_path)
    assert _default_predicate(lto, nolto)
    without = _build("lto", ["-Xoffload-linker", f"-mllvm=-opt-disable={culprit.name}"], tmp_path)
    assert not _default_predicate(without, nolto) and without["mfma"] == lto["mfma"]
    assert without["vgpr_spills"] == culprit.figures["vgpr_spills"]
    # the execution said to be enough alone (or those enough together) are: only they skipped, it is lost too
    skip = culprit.enough[:1] or culprit.together
    assert skip and set(skip) <= set(culprit.instances)
    alone = _build("lto", ["-Xoffload-linker", f"-mllvm=-opt-bisect={skip_intervals(skip)}"], tmp_path)
    assert not _default_predicate(alone, nolto) and alone["mfma"] == lto["mfma"]


@needs_clang22
def test_explain_reports_figures_dumps_and_notes(link_result, tmp_path):
    r = link_result
    outcomes = {a.name: a.outcome for a in r.ablations}
    assert outcomes == {"early-machinelicm": "culprit", "amdgpu-attributor": "worse", "globaldce": "same"}
    worse = next(a for a in r.ablations if a.outcome == "worse")
    assert worse.figures["vgpr_spills"] > 100 and worse.holds
    assert any("no-such-pass" in n for n in r.notes)
    assert all(a.disabled > 0 for a in r.ablations)
    d = r.culprits[0].dump
    assert d is not None and d.before and d.after and d.function == K
    assert d.after_header.startswith("# *** IR Dump After")  # a machine pass: MIR
    assert {PRELINK, LINK, NOLTO_STAGE} <= set(r.pipelines) and any(p.name == "amdgpu-isel" for p in r.pipelines[LINK])
    md = write_explain(r, tmp_path / "out")
    text = md.read_text()
    for heading in ("## Culprits", "## Where it starts", "## Ablation", "## Pipelines", "## How to reproduce"):
        assert heading in text
    assert (tmp_path / "out" / "dumps").is_dir() and json.loads((tmp_path / "out" / "explain.json").read_text())


@needs_clang22
def test_a_name_that_changed_nothing_is_settled_without_a_build_of_its_own(link_result, tmp_path):
    r = link_result
    unbuilt = [a for a in r.ablations if not a.built]
    assert [a.name for a in unbuilt] == ["globaldce"]  # the LTO link's globaldce removes nothing
    assert unbuilt[0].figures == r.baseline["lto"] and unbuilt[0].outcome == "same" and unbuilt[0].disabled
    assert _build("lto", ["-Xoffload-linker", "-mllvm=-opt-disable=globaldce"], tmp_path) == \
        _build("lto", [], tmp_path)
    assert "*not built*" in render_markdown(r)


@needs_clang22
def test_after_the_logs_every_build_runs_its_own_stage_alone(link_run):
    r, built = link_run
    assert r.split and "split check" in r.phases
    assert "one front end's bitcode" in render_markdown(r)
    # the three stages' log builds through the driver; the check of the split and all the rest from the bitcode
    assert built == {"driver": 3, "split": r.builds - 3}, built


def _runs(build) -> list[tuple]:
    """A build's pass executions but for what a loop is called: the split cc1 keeps the name of its header."""
    return [(r.index, r.name, r.ran, r.function, r.kernel) for r in parse_log(build.log, build.on(K))]


@needs_clang22
def test_each_stage_built_alone_from_the_shared_bitcode_is_the_drivers_build(tmp_path):
    source = TINY.read_bytes()
    oracle = SpillSetup(TINY, FLAGS, predicate=default_predicate(DEFAULT_SIDES, DEFAULT_EFFECT), tmp_dir=tmp_path,
                        ub_guard=False, init_guard=False, loop_guard=False).resolve(source, focus=True)
    b = SourceBuilds(oracle, source, str(TINY))
    assert oracle.compiler.shared_front_end and b.share() == ""
    for stage in b.stages:
        for opts in (["-opt-bisect-limit=-1"], ["-opt-disable=instcombine", "-opt-disable-enable-verbosity"]):
            driver, split = b.build(stage, opts, split=False), b.build(stage, opts, split=True)
            assert driver.ok and driver.figures == split.figures and driver.functions == split.functions, stage
            assert len(_runs(split)) > 100 and _runs(split) == _runs(driver), (stage, opts)
    # the link runs lld alone on the pre-link bitcode made once; an option of the pre-link compile runs that compile
    front_end, pre_link = b.shared
    link = b.compiler.backend(LTO, front_end, pre_link=pre_link, passes=b.options(LINK, ["-opt-bisect-limit=-1"]))
    assert link.ok and [Path(cmd[0]).name for cmd in link.pipeline] == ["lld"]
    assert "-plugin-opt=-opt-bisect-limit=-1" in link.pipeline[0]  # where the driver puts it
    pre = b.compiler.backend(LTO, front_end, pre_link=pre_link, passes=b.options(PRELINK, ["-opt-bisect-limit=-1"]))
    assert len(pre.pipeline) == 2 and "-opt-bisect-limit=-1" in pre.pipeline[0]


@needs_clang22
def test_split_builds_unlike_the_drivers_are_not_used(monkeypatch, tmp_path):
    real = Compiler.backend

    def one_more_execution(self, *args, **kwargs):
        c = real(self, *args, **kwargs)
        return dataclasses.replace(c, stderr=c.stderr + "BISECT: running pass (9999) made-up on [module]\n")

    monkeypatch.setattr(Compiler, "backend", one_more_execution)
    r = explain_file(TINY, FLAGS, jobs=2, stages=[LINK], passes=["early-machinelicm"], dumps=False, search=False,
                     workdir=tmp_path, knobs=())
    assert not r.split and any("through the clang driver" in n for n in r.notes)
    assert [(a.name, a.outcome) for a in r.ablations] == [("early-machinelicm", "culprit")]


@needs_clang22
def test_without_opt_disable_names_are_disabled_through_intervals(monkeypatch, tmp_path):
    monkeypatch.setattr(ex, "clang_gates", lambda clang: PassGates(False, False, True, True))
    r = explain_file(TINY, FLAGS, jobs=2, stages=[LINK], passes=LINK_PASSES[:1], dumps=False, workdir=tmp_path,
                     knobs=())
    assert any("no -opt-disable" in n for n in r.notes)
    assert [c.name for c in r.culprits] == LINK_PASSES[:1]


@needs_clang22
def test_a_file_that_is_not_interesting_is_refused_with_the_reason(tmp_path):
    calm = tmp_path / "calm.hip"
    calm.write_text("#include <hip/hip_runtime.h>\n__global__ void calm(float* a) { a[threadIdx.x] = 1.0f; }\n")
    with pytest.raises(ExplainError) as e:
        explain_file(calm, [], jobs=1, workdir=tmp_path / "w")
    assert e.value.kind == "not-interesting" and "predicate" in str(e.value)
    res = subprocess.run([sys.executable, "-m", "reducer.cli", "explain", str(calm), "--"], cwd=tmp_path,
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert res.returncode == 5 and "not interesting" in res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["calm.hip", "w"]  # nothing written beside the file


@needs_clang22
def test_cli_json_on_ir_with_the_lit_lines_that_pin_the_culprit(tmp_path):
    """The precodegen bitcode of the tiny kernel through llc: the LTO link's codegen culprit is found
    again, and the lit RUN lines explain writes for it pass with llc and FileCheck."""
    from interestingness.oracle.precodegen import build_precodegen
    from reducer.ir.lit import verify

    built = build_precodegen(TINY, FLAGS, timeout=120, tmp_dir=tmp_path)
    bc = tmp_path / "tiny.bc"
    bc.write_bytes(built.partitions[0])
    res = subprocess.run([sys.executable, "-m", "reducer.cli", "explain", str(bc), "--json", "-q", "-j", "2",
                          "--passes", ",".join(LINK_PASSES), "--no-knobs"], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["mode"] == "ir" and out["target"] == K
    # codegen's culprit is llc's too; the LTO pipeline's passes do not run in llc, and are said to be skipped
    assert [(c["stage"], c["name"]) for c in out["culprits"]] == [("llc", "early-machinelicm")]
    assert {a["name"] for a in out["ablations"]} < set(LINK_PASSES)
    assert any("amdgpu-attributor" in n for n in out["notes"])
    r = explain_ir(bc, passes=[out["culprits"][0]["name"]], dumps=False, search=False, workdir=tmp_path / "w",
                   knobs=())
    md = render_markdown(r)
    run_lines = md[md.index("```llvm\n") + 8:md.index("```", md.index("```llvm\n") + 8)]
    dis = subprocess.run([str(CLANG.parent / "llvm-dis"), str(bc), "-o", "-"], capture_output=True, text=True)
    lit = tmp_path / "pinned.ll"
    lit.write_text(run_lines.replace("| FileCheck %s\n", "| FileCheck %s --check-prefix=ANY\n") + "; ANY: .name\n"
                   + dis.stdout)
    assert verify(lit, str(CLANG.parent), 120) is None


@needs_clang22
def test_an_llvm_without_pass_gates_by_name_falls_back_to_a_limit_search(monkeypatch, tmp_path):
    from interestingness.oracle.precodegen import build_precodegen

    monkeypatch.setattr(ex, "llc_gates", lambda llc: PassGates(False, False, False, True))
    bc = tmp_path / "tiny.bc"
    bc.write_bytes(build_precodegen(TINY, FLAGS, timeout=120, tmp_dir=tmp_path).partitions[0])
    r = explain_ir(bc, dumps=False, workdir=tmp_path / "w", knobs=())
    assert any("nor -opt-bisect intervals" in n for n in r.notes) and not r.ablations
    assert r.bisects and r.bisects[0]["builds"] >= 2


def test_the_stages_ablated_by_default_follow_the_side_that_spills():
    assert default_stages({"lto": {"spill_ops": 4}, "nolto": {"spill_ops": 0}}) == (LINK, PRELINK)
    assert NOLTO_STAGE in default_stages({"lto": {"spill_ops": 0}, "nolto": {"spill_ops": 6}})  # the reverse predicate


@needs_clang22
def test_past_its_time_bound_explain_builds_only_the_logs_and_says_what_it_left_out(tmp_path):
    r = explain_file(TINY, FLAGS, jobs=2, stages=[LINK], passes=LINK_PASSES, workdir=tmp_path, time_budget=0.0)
    assert r.pipelines[LINK] and r.baseline["lto"] and r.split  # the logs and the split check: every build needs them
    assert r.builds == 2 * len(r.pipelines)  # and nothing after them
    assert sorted((a.name, a.outcome) for a in r.ablations) == sorted((n, "not built") for n in LINK_PASSES)
    assert not r.culprits and not r.knobs
    note = next(n for n in r.notes if "time bound" in n)
    assert f"{len(LINK_PASSES)} of the {len(LINK_PASSES)} pass names" in note and "backend options" in note
    md = render_markdown(r)
    assert f"{len(LINK_PASSES)} not built (the time bound had passed)" in md and "not built (time bound)" in md


def test_a_runs_explanation_is_bounded_by_what_is_left_of_its_time_budget():
    from reducer.run.session import EXPLAIN_BUDGET, explain_bound

    assert explain_bound(None, None) == EXPLAIN_BUDGET  # a default run on a real TU's result: not an hour more
    assert explain_bound(None, 5000.0) == 5000.0 and explain_bound(600.0, None) == 600.0
    assert explain_bound(600.0, 100.0) == 100.0 and explain_bound(None, 0.0) == 0.0


def test_a_duration_explain_cannot_read_is_a_usage_error(tmp_path):
    res = subprocess.run([sys.executable, "-m", "reducer.cli", "explain", str(TINY), "--time-budget", "soon", "--"],
                         cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert res.returncode == 2 and "not a duration" in res.stderr
