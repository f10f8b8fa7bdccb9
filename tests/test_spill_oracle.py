from __future__ import annotations

import dataclasses
import json
import pickle
import shlex
from pathlib import Path

import pytest
from kernels import SMALL, pressure

from interestingness.compiler.compile import LTO, NOLTO, SIDES, prepare_flags
from interestingness.compiler.toolchain import DEFAULT_CLANG, find_toolchain
from interestingness.measure.predicates import (
    BUDGET_CLAUSE,
    CALL_CLAUSE,
    DEFAULT_EFFECT,
    DEFAULT_PREDICATE,
    SIZE_CLAUSE,
)
from interestingness.oracle.spill import OracleSetupError, SpillOracle, SpillSetup
from interestingness.tools.check import format_check, run_check
from reducer.engine.evaluate import Evaluator

REPO = Path(__file__).resolve().parent.parent

# Spills on both sides (16 live values under an 8-VGPR limit: pressure(140)'s spill, each build half as long).
SPILLY = pressure(*SMALL).encode()
# Same kernel signature, nothing to spill: what a reducer's over-eager cut produces.
CALM = b"""
#include <hip/hip_runtime.h>
__global__ void spill(float* __restrict__ a, const float* __restrict__ b, int n) { a[threadIdx.x] = b[n]; }
"""
RENAMED = CALM.replace(b"void spill(", b"void other(")
BROKEN = SPILLY.replace(b"float s = 0;", b"float s = ;")
TWO = b"""
#include <hip/hip_runtime.h>
__global__ void axpy(float* a, const float* b, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += s * b[i];
}
__global__ void gather(float* a, const float* b, int n) {
  int i = threadIdx.x;
  float p[64];
  for (int j = 0; j < 64; j++) p[j] = b[j * n + i];
  a[i] = p[(int)a[i] & 63];
}
__global__ void gather2(float* a, const float* b, int n) {
  int i = threadIdx.x;
  float p[64];
  for (int j = 0; j < 64; j++) p[j] = b[j * n + i] * 2.0f;
  a[i] = p[(int)a[i] & 63];
}
"""
BOTH_SPILL = "lto.spill_ops > 0 and nolto.spill_ops > 0"
SPILL_KERNEL = "_Z5spillPfPKfi"


def oracle(tmp_path, predicate=BOTH_SPILL, flags=(), **kw) -> SpillSetup:
    return SpillSetup("k.hip", list(flags), None, predicate, tmp_dir=tmp_path, cwd=tmp_path, **kw)


@pytest.fixture(scope="module")
def both_spill(tmp_path_factory):
    return oracle(tmp_path_factory.mktemp("o")).resolve(SPILLY)


def test_interesting_when_predicate_holds(both_spill):
    v = both_spill.test(SPILLY)
    assert v.interesting and not v.infra_failure and v.reason == ""
    assert set(v.details["compiles"]) == {LTO, NOLTO} and all(c["ok"] for c in v.details["compiles"].values())
    assert v.details["kernels"][SPILL_KERNEL][NOLTO]["spill_ops"] > 0


def test_compile_error_is_uninteresting_with_reason(both_spill):
    v = both_spill.test(BROKEN)
    assert not v.interesting and not v.infra_failure
    assert v.reason.startswith("compile error (lto): ") and "expected expression" in v.reason
    assert NOLTO not in v.details["compiles"]


def test_lazy_no_lto_compile_skipped_when_lto_decides(both_spill, tmp_path):
    v = both_spill.test(CALM)
    assert not v.interesting
    assert v.reason == f"predicate false for {SPILL_KERNEL}: lto.spill_ops > 0 [lto.spill_ops=0]"
    assert v.details["compiles"][NOLTO] == {"skipped": True}
    assert v.details["kernels"][SPILL_KERNEL].get(NOLTO) is None
    lto_only = oracle(tmp_path, "lto.spill_ops > 0").resolve(SPILLY)
    v = lto_only.test(SPILLY)
    assert v.interesting and v.details["compiles"][NOLTO] == {"skipped": True}


def test_missing_kernel(both_spill):
    v = both_spill.test(RENAMED)
    assert not v.interesting and v.reason == f"kernel {SPILL_KERNEL} missing (lto)"


def test_timeout_is_a_verdict(both_spill):
    quick = pickle.loads(pickle.dumps(both_spill))
    quick.compiler = dataclasses.replace(quick.compiler, timeout=0.01)
    v = quick.test(SPILLY)
    assert not v.interesting and not v.infra_failure and v.reason.startswith("timeout (lto)")
    assert quick.identity() != both_spill.identity()


def test_save_temps_never_reaches_clang(tmp_path):
    user = ["-save-temps", "--save-temps=obj", "-save-temps=cwd", "-Xarch_device", "-save-temps",
            "-Xoffload-linker", "-save-temps", "-Wl,-save-temps", "-c", "-S", "-o", "x.o",
            "-emit-llvm", "--offload-new-driver", "-std=c++17"]
    o = oracle(tmp_path, "lto.spill_ops > 0", user, keep_artifacts=True)
    assert list(o.dropped_flags) == user[:-1]
    for side in SIDES:
        for emit in ("asm", "obj"):
            cmd = o.compiler.command(side, emit)
            assert not any("save-temps" in a for a in cmd) and "--offload-new-driver" not in cmd
            assert "-std=c++17" in cmd
    v = o.resolve(SPILLY).test(SPILLY)
    assert v.interesting and Path(v.details["compiles"][LTO]["artifacts"]).parent == tmp_path
    kept = sorted(tmp_path.glob("reduce-*"))
    # resolve: both sides, then once with the lean shim and the shared front end together (one
    # directory for both sides, one build deciding both); the UB guard's sanitized build (IR);
    # then, with the shared front end, the init guard's zero and pattern builds (LTO); the guards'
    # builds from one front end (tools/variants: its run, then from the variants the sanitized IR
    # and the init guard's two LTO builds, compared with those above); test: the LTO side, which settles this predicate (the
    # guards' builds of a candidate are `confirm`'s, for a candidate kept)
    assert len(kept) == 11
    shared = {"k.hip", "fe.bc", "pre.bc", "out.s.lto.s"}
    for work in kept:
        # with -save-temps clang would have left .bc/.hipi/.o/.ll files beside the candidate (the
        # shared front end's fe.bc and the LTO pre-link's pre.bc are its own, named by the oracle;
        # out.ll is the sanitized build's IR, asked for)
        assert {p.name for p in work.iterdir()} in ({"k.hip", "out.s"}, {"k.hip", "out.s.lto.s"}, {"k.hip", "out.ll"},
                                                    shared, shared | {"out.s"}, shared - {"k.hip"},
                                                    {"fe.bc", "out.ll"}, {"k.hip", "ub.bc", "zero.bc", "pattern.bc"})


def test_temp_dirs_removed(tmp_path):
    (tmp_path / "work").mkdir()
    o = SpillSetup("k.hip", [], None, "lto.spill_ops > 0", tmp_dir=tmp_path / "work", cwd=tmp_path)
    o.resolve(SPILLY).test(CALM)
    # what stays is the IR memo, which the run's processes share (run/session.py removes the run's temp dir)
    assert [p.name for p in (tmp_path / "work").iterdir()] == ["ir-memo"]


def identity(tmp_path, *args, **kw) -> dict:
    """The identity of an oracle of the setup `oracle` makes, with SPILL_KERNEL as its target (no build)."""
    setup = oracle(tmp_path, *args, **kw)
    return SpillOracle(setup.compiler, setup.predicate, [SPILL_KERNEL], kernels=setup.kernels).identity()


def test_identity_decides_cache_keys(both_spill, tmp_path, monkeypatch):
    ident = identity(tmp_path)
    json.dumps(ident)  # cache keys are built from it
    assert ident == identity(tmp_path)
    assert ident["toolchain"]["sha256"] == find_toolchain().sha256 and ident["hip_headers"]["shim_sha256"]
    assert identity(tmp_path, flags=["-O2"]) != ident
    assert identity(tmp_path, flags=["-DX=1"]) != ident
    assert identity(tmp_path, "lto.spill_ops > 1") != ident
    assert identity(tmp_path, "lto.spill_ops>0  and  nolto.spill_ops >0") == ident  # cosmetic
    assert identity(tmp_path, kernels=["spill"]) != ident
    assert both_spill.identity()["targets"] == [SPILL_KERNEL]
    monkeypatch.setenv("CPLUS_INCLUDE_PATH", "/somewhere")
    assert identity(tmp_path) != ident
    monkeypatch.setenv("ROCM_PATH", "/opt/rocm")
    assert identity(tmp_path)["env"]["ROCM_PATH"] == "/opt/rocm"


def test_picklable(both_spill):
    copy = pickle.loads(pickle.dumps(both_spill))
    assert copy.identity() == both_spill.identity()
    assert copy.test(CALM).reason == both_spill.test(CALM).reason


def test_resolve_targets(tmp_path):
    scratch = "lto.scratch_ops > 0 and nolto.scratch_ops > 0"
    assert oracle(tmp_path, scratch).resolve(TWO).targets == ("_Z6gatherPfPKfi", "_Z7gather2PfPKfi")
    assert oracle(tmp_path, scratch, kernels=["_Z7gather2PfPKfi"]).resolve(TWO).targets == (
        "_Z7gather2PfPKfi",)
    # a demangled substring selects every kernel it matches
    assert len(oracle(tmp_path, scratch, kernels=["gather"]).resolve(TWO).targets) == 2
    with pytest.raises(OracleSetupError, match="no kernel matches 'nope'"):
        oracle(tmp_path, scratch, kernels=["nope"]).resolve(TWO)
    with pytest.raises(OracleSetupError, match="holds for none of its kernels.*lto.scratch_ops=0"):
        oracle(tmp_path, scratch, kernels=["axpy"]).resolve(TWO)
    with pytest.raises(OracleSetupError, match="does not compile with these flags"):
        oracle(tmp_path).resolve(BROKEN)


def test_every_target_must_hold(tmp_path):
    o = oracle(tmp_path, "lto.scratch_ops > 0 and nolto.scratch_ops > 0").resolve(TWO)
    fewer = TWO.replace(b"b[j * n + i] * 2.0f;\n  a[i] = p[(int)a[i] & 63]", b"b[j * n + i] * 2.0f;\n  a[i] = p[0]")
    assert fewer != TWO  # gather2 no longer needs its array in memory
    v = o.test(fewer)
    assert not v.interesting and v.reason.startswith("predicate false for _Z7gather2PfPKfi")


def test_default_predicate_is_false_when_both_sides_spill(tmp_path):
    with pytest.raises(OracleSetupError, match="nolto.spill_ops \\* 4 <= lto.spill_ops"):
        oracle(tmp_path, DEFAULT_PREDICATE).resolve(SPILLY)


def test_flags_prepared_for_a_temp_dir(tmp_path):
    flags, dropped = prepare_flags(["-Iinc", "-I", "a/b", "-isystem", "sys", "-iquoteq", "-I/abs",
                                    "--sysroot=root", "-std=c++20"], tmp_path)
    assert flags[:2] == ("--offload-arch=gfx950", "-O3") and not dropped
    assert flags[2:] == (f"-I{tmp_path}/inc", "-I", f"{tmp_path}/a/b", "-isystem", f"{tmp_path}/sys",
                         f"-iquote{tmp_path}/q", "-I/abs", f"--sysroot={tmp_path}/root", "-std=c++20")
    flags, _ = prepare_flags(["-O1", "--offload-arch=gfx942"], tmp_path)
    assert flags == ("-O1", "--offload-arch=gfx942")


def test_includes_resolve_from_the_temp_dir(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "include" / "defs").mkdir(parents=True)
    (tmp_path / "include" / "defs" / "defs.h").write_text("#define SCALE 3.0f\n")
    (tmp_path / "src" / "local.h").write_text("#define OFFSET 1\n")
    src = b'#include <hip/hip_runtime.h>\n#include <defs/defs.h>\n#include "local.h"\n' \
          b"__global__ void k(float* a) { a[threadIdx.x + OFFSET] *= SCALE; }\n"
    (tmp_path / "src" / "k.hip").write_bytes(src)
    o = SpillSetup("src/k.hip", ["-Iinclude"], None, "lto.instructions > 0", cwd=tmp_path)
    assert o.resolve(src).test(src).interesting


def test_affected_toolchain_builds_lto_without_the_flag(tmp_path):
    from test_toolchain import affected_wrapper  # pytest puts tests/ on sys.path

    (tmp_path / "bin").mkdir()
    affected = find_toolchain(affected_wrapper(tmp_path / "bin"))
    o = SpillSetup("k.hip", [], affected, BOTH_SPILL, cwd=tmp_path)
    assert "-foffload-lto=full" not in o.compiler.command(LTO)
    assert "-fno-offload-lto" in o.compiler.command(NOLTO)
    plain = oracle(tmp_path)
    assert o.measure(SPILLY).metrics == plain.measure(SPILLY).metrics


def test_check_report(tmp_path):
    (tmp_path / "k.hip").write_bytes(TWO)
    report = run_check(tmp_path / "k.hip", ["-save-temps"], predicate="lto.scratch_ops > 0")
    json.dumps(report)
    assert report["interesting"] is True and report["dropped_flags"] == ["-save-temps"]
    assert report["toolchain"] == {"clang": DEFAULT_CLANG, "version": find_toolchain().version,
                                   "commit": None, "affected": False}
    by_name = {k["name"]: k for k in report["kernels"]}
    assert by_name["_Z4axpyPfPKffi"]["demangled"] == "axpy(float*, float const*, float, int)"
    assert not by_name["_Z4axpyPfPKffi"]["interesting"] and by_name["_Z6gatherPfPKfi"]["interesting"]
    assert by_name["_Z6gatherPfPKfi"][LTO]["scratch_size"] == by_name["_Z6gatherPfPKfi"][NOLTO]["scratch_size"] > 0
    text = format_check(report)
    assert "gather(float*, float const*, int)" in text and "ScratchSize" in text and "INTERESTING" in text
    only_axpy = run_check(tmp_path / "k.hip", [], kernel="axpy", predicate="lto.scratch_ops > 0")
    assert only_axpy["interesting"] is False


def _corpus_cases() -> list[Path]:
    return sorted(p.parent for p in (REPO / "corpora").glob("*/flags"))


@pytest.mark.parametrize("case", _corpus_cases(), ids=lambda p: p.name)
def test_default_predicate_on_corpus(case, monkeypatch):
    """A case dir holds `flags` (clang flags, shell-quoted, paths relative to the repository root)
    and `repro.hip`; `*_pos` cases satisfy the default predicate, `*_neg` ones do not. The
    predicate's verdict alone: the guards' builds, 60% of each check's time, are the subject of
    tests of their own (test_guards.py and the UB guard's tests below)."""
    monkeypatch.chdir(REPO)
    report = run_check(case / "repro.hip", shlex.split((case / "flags").read_text()), timeout=600,
                       init_guard=False, ub_guard=False)
    assert report["interesting"] is case.name.endswith("_pos"), format_check(report)


def test_corpus_has_positive_and_negative_cases():
    names = [c.name for c in _corpus_cases()]
    assert sum(n.endswith("_pos") for n in names) >= 3 and sum(n.endswith("_neg") for n in names) >= 3


UNINIT = b"""
#include <hip/hip_runtime.h>
__global__ void sum(float* a, const float* b, int n) {
  float s = 0;
  for (int j = 0; j < n; j++) s += b[j * 64 + threadIdx.x];
  a[threadIdx.x] = s;
}
"""


def test_ub_guard_refuses_a_new_uninitialized_use(tmp_path):
    """A reduction that deletes `= 0` from a counter leaves undefined behaviour: not interesting."""
    broken = UNINIT.replace(b"int j = 0;", b"int j;")
    assert broken != UNINIT
    o = oracle(tmp_path, "lto.instructions > 0").resolve(UNINIT)
    assert o.uninitialized == 0 and o.identity()["uninitialized_limit"] == 0
    v = o.test(broken)
    assert not v.interesting and "uninitialized" in v.reason and "original has 0" in v.reason
    assert o.test(UNINIT).interesting
    # an original that already has the warning may keep it, and the guard can be turned off
    lenient = oracle(tmp_path, "lto.instructions > 0").resolve(broken)
    assert lenient.uninitialized == 1 and lenient.test(broken).interesting
    # a resumed run counts the original's warnings with a syntax-only run: the same figure
    assert oracle(tmp_path, "lto.instructions > 0").restore(lenient.settings(), broken).uninitialized == 1
    off = oracle(tmp_path, "lto.instructions > 0", ub_guard=False).resolve(UNINIT)
    assert off.uninitialized is None and off.test(broken).interesting  # the init guard sees it, on confirmation
    assert "init guard" in Evaluator(off).test(broken).reason
    off = oracle(tmp_path, "lto.instructions > 0", ub_guard=False, init_guard=False).resolve(UNINIT)
    assert off.test(broken).interesting
    assert run_check(tmp_path / "k.hip", [], content=broken, predicate="lto.instructions > 0")[
        "compiles"][LTO]["uninitialized"] == 1


def test_a_refused_candidate_names_the_false_clause_not_an_unknown_one(tmp_path, monkeypatch):
    """The README's first case against a reduction of it whose kernel grew (result_guarded.hip: three
    times the original's instructions). The LTO side alone decides, the no-LTO compile is skipped,
    and the reason is the size clause with its values, not the first clause over the skipped side."""
    monkeypatch.chdir(REPO)
    case = REPO / "corpora" / "wgrad_tiny_pos"
    setup = SpillSetup(case / "repro.hip", shlex.split((case / "flags").read_text()), None, DEFAULT_PREDICATE,
                       tmp_dir=tmp_path, ub_guard=False, init_guard=False)
    o = setup.resolve((case / "repro.hip").read_bytes())
    v = o.test((case / "result_guarded.hip").read_bytes())
    assert not v.interesting and v.details["compiles"][NOLTO] == {"skipped": True}
    grown = v.details["kernels"][o.targets[0]][LTO]["instructions"]
    assert v.reason == (f"predicate false for {o.targets[0]}: lto.instructions <= orig.lto.instructions "
                        f"[lto.instructions={grown}, orig.lto.instructions=1242]")


def test_a_resumed_run_keeps_the_predicate_it_started_with(tmp_path):
    """A default predicate that changes between two sessions (issue 42 added a clause reading
    another of the original's figures) does not change a resumed run: its settings say which."""
    o = oracle(tmp_path, "lto.spill_ops > 0 and nolto.vgpr_total <= orig.nolto.vgpr_total").resolve(SPILLY)
    later = oracle(tmp_path, "lto.spill_ops > 0 and lto.instructions <= orig.lto.instructions")
    restored = later.restore(o.settings(), SPILLY)
    assert restored.predicate.source == o.predicate.source and restored.identity() == o.identity()
    assert restored.test(SPILLY).interesting
    assert later.restore({k: v for k, v in o.settings().items() if k != "predicate"}, SPILLY).predicate.source == (
        later.predicate.source)  # settings of a run from before they recorded it


def test_default_predicate_keeps_the_launch_bounds(tmp_path):
    """Issue 43 in the source mode, on the first case's reduced kernel: the same code at 512
    work-items and 1 block per CU gets the same 256 VGPRs (2 waves per SIMD) and spills only with
    LTO as before, so the predicate without the budget holds; but it is another launch bound, so
    not the bug. One that asks for one wave per SIMD has 512 registers and spills nothing."""
    result = (REPO / "corpora" / "wgrad_tiny_pos" / "result.hip").read_bytes()
    assert result.count(b"__launch_bounds__(256, 2)") == 1
    wider = result.replace(b"__launch_bounds__(256, 2)", b"__launch_bounds__(512, 1)")
    o = oracle(tmp_path, DEFAULT_PREDICATE, ub_guard=False, init_guard=False).resolve(result)
    (kernel,) = o.targets
    figures = o.original_figures[kernel]
    assert (figures["lto.max_flat_workgroup_size"], figures["lto.occupancy"]) == (256, 2)
    v = o.test(wider)
    lto = v.details["kernels"][kernel][LTO]
    assert lto["vgpr_spills"] > 0 and lto["occupancy"] == 2 and lto["max_flat_workgroup_size"] == 512
    assert not v.interesting and "lto.max_flat_workgroup_size == orig.lto.max_flat_workgroup_size" in v.reason
    old = f"{DEFAULT_EFFECT} and {SIZE_CLAUSE}"  # the default before issue 43
    assert DEFAULT_PREDICATE == f"{DEFAULT_EFFECT} and {BUDGET_CLAUSE} and {CALL_CLAUSE} and {SIZE_CLAUSE}"
    assert oracle(tmp_path, old, ub_guard=False, init_guard=False).resolve(result).test(wider).interesting
    assert not o.test(result.replace(b"__launch_bounds__(256, 2)", b"__launch_bounds__(256, 1)")).interesting
