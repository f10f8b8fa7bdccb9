"""Results that are still the bug: the init guard (no reads of uninitialised memory), the UB
guard's sanitizer checks (no out-of-bounds or null accesses) and the loop guard (no drift to
straight-line spill code). Real clang on real kernels."""
import json
import re
import subprocess

import pytest
from conftest import CLANG, ROOT, needs_clang22
from kernels import SMALL, pressure_in_a_loop

from interestingness.measure.metrics import METRICS, parse_kernels
from interestingness.measure.predicates import DEFAULT_EFFECT, Predicate
from interestingness.oracle import ubsan
from interestingness.oracle.spill import SpillOracle, SpillSetup
from interestingness.tools.check import check_pair, format_check, run_check
from reducer.engine.evaluate import Evaluator
from reducer.text.flatten import flatten, include_dirs

pytestmark = needs_clang22
CASE = ROOT / "corpora" / "wgrad_c120_pos"
FLAGS = (CASE / "flags").read_text().split()


@pytest.fixture(scope="module")
def c120():
    """The README's case, flattened, and the same with its accumulators' zeroing deleted."""
    flat, _ = flatten(CASE / "repro.hip", (CASE / "repro.hip").read_bytes(), include_dirs(FLAGS, ROOT))
    no_init = re.sub(rb"(Acc acc\[S::kTaps\]\[C.rep_m\]\[C.rep_n\];).*?zero_acc<Acc>\(\);", rb"\1", flat,
                     count=1, flags=re.S)
    assert no_init != flat
    return flat, no_init


def oracle(tmp_path, **kw) -> SpillSetup:
    return SpillSetup(CASE / "repro.hip", FLAGS, cwd=ROOT, tmp_dir=tmp_path, **kw)


def kept(o: SpillOracle, content: bytes):
    """The verdict a run keeps `content` on: the test, then (the evaluator's call, for a candidate
    about to be kept) the confirmation."""
    return Evaluator(o).test(content)


def test_deleting_an_arrays_initialisation_is_refused_by_the_init_guard(tmp_path, c120):
    flat, no_init = c120
    guarded = oracle(tmp_path).resolve(flat)
    assert guarded.init_guard == "code" and not guarded.guards_off
    assert guarded.test(no_init).interesting  # the test alone passes it: the guard is in `confirm`
    verdict = kept(guarded, no_init)
    assert not verdict.interesting and "reads an automatic variable before writing it" in verdict.reason
    assert kept(guarded, flat).interesting
    # without the guard the same candidate keeps the spill differential: the guard is what refuses it
    unguarded = oracle(tmp_path, init_guard=False).resolve(flat)
    assert kept(unguarded, no_init).interesting
    assert guarded.identity() != unguarded.identity()  # a verdict of one is never the other's cache hit


def test_the_guard_falls_back_to_verdicts_when_the_originals_own_code_changes(tmp_path):
    """A runtime loop over a private array: -ftrivial-auto-var-init changes the code of a kernel
    that reads nothing uninitialised; the guard then asks only that the verdicts agree."""
    text = pressure_in_a_loop()
    (tmp_path / "k.hip").write_text(text)
    o = SpillSetup("k.hip", [], predicate="lto.spill_ops > 0", cwd=tmp_path, tmp_dir=tmp_path).resolve(
        text.encode())
    assert o.init_guard == "verdict" and "compares verdicts only" in o.guards_off[0]
    assert kept(o, text.encode()).interesting


def test_the_loop_guard_refuses_a_straight_line_spill_when_the_original_spills_in_a_loop(tmp_path):
    looped, straight = pressure_in_a_loop(True, *SMALL).encode(), pressure_in_a_loop(False, *SMALL).encode()
    (tmp_path / "k.hip").write_bytes(looped)
    o = SpillSetup("k.hip", [], predicate="lto.spill_ops > 0", cwd=tmp_path, tmp_dir=tmp_path).resolve(looped)
    assert o.loop_targets == ("_Z5spillPfPKfi",)
    verdict = o.test(straight)
    assert not verdict.interesting and "loop guard" in verdict.reason
    free = SpillSetup("k.hip", [], predicate="lto.spill_ops > 0", cwd=tmp_path, tmp_dir=tmp_path,
                      loop_guard=False).resolve(looped)
    assert free.test(straight).interesting


def test_loop_spill_ops_counts_spill_code_between_a_label_and_a_branch_back_to_it():
    asm = """\t.amdgpu_metadata
---
amdhsa.kernels:
  - .name:           k
    .symbol:         k.kd
...
\t.end_amdgpu_metadata
k:
\tscratch_store_dword off, v1, s0 offset:4 ; 4-byte Folded Spill
.LBB0_1:
\tv_add_f32 v0, v0, v1
\tscratch_load_dword v2, off, s0 offset:4 ; 4-byte Folded Reload
\ts_cbranch_scc1 .LBB0_1
.LBB0_2:
\tscratch_load_dword v3, off, s0 offset:8 ; 4-byte Folded Reload
\ts_cbranch_vccz .LBB0_3
\tv_mov_b32 v0, 0
.LBB0_3:
\ts_endpgm
.Lfunc_end0:
"""
    (k,) = parse_kernels(asm)
    figures = {m.name: m.compute(k) for m in METRICS}
    assert figures["spill_ops"] == 3 and figures["loop_spill_ops"] == 1  # a forward branch makes no loop


# The UB guard's sanitizer checks (interestingness/oracle/ubsan.py), on a small accumulator kernel whose
# original is clean, and candidates a reduction could reach from it. Each verdict is checked by a
# build the test makes itself (clang's sanitizer in trap mode, read by the test's own regexes).
SHIM = ROOT / "interestingness" / "compiler" / "shim"
ACCUMULATE = r"""#include <hip/hip_runtime.h>
__global__ void k(float *out, const float *in, int n) {
  float acc[4][3];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) acc[i][j] = 0.0f;
  for (int s = 0; s < n; ++s)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 3; ++j) acc[i][j] += in[s * 12 + i * 3 + j + threadIdx.x];
  float t = 0;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) t += acc[i][j];
  out[threadIdx.x] = t;
}
"""
ZEROING = "for (int i = 0; i < 4; ++i)\n    for (int j = 0; j < 3; ++j) acc[i][j] = 0.0f;"
# the README's first case's result did this: 16 stores into a row of 3 (here 12 into a row of 3)
OUT_OF_BOUNDS = ACCUMULATE.replace(ZEROING, "for (int e = 0; e < 12; ++e) acc[0][e] = 0.0f;")
# and this: a constant null pointer is shorter than the output parameter
NULL_STORES = {"atomic": ACCUMULATE.replace("out[threadIdx.x] = t;", "atomicAdd(0, t);"),
               "store": ACCUMULATE.replace("out[threadIdx.x] = t;", "((float *)0)[threadIdx.x] = t;")}
KERNEL = "_Z1kPfPKfi"


def sanitized_kernel(tmp_path, text: str, checks: str, name: str | None = KERNEL) -> str:
    """The optimised IR of kernel `name` (None: the first function) of `text`, built by the test
    itself with clang's `checks` in trap mode (at cc1 level: the driver drops -fsanitize for amdgcn)."""
    src = tmp_path / "sanitized.hip"
    src.write_text(text)
    ir = subprocess.run([str(CLANG), "-x", "hip", "--offload-arch=gfx950", "-O3", "-nogpuinc", "-nogpulib",
                         "-std=gnu++20", "-isystem", str(SHIM), "-fno-offload-lto", "--offload-device-only",
                         "--no-gpu-bundle-output", "-S", "-emit-llvm", "-Xclang", f"-fsanitize={checks}", "-Xclang",
                         f"-fsanitize-trap={checks}", "-o", "-", str(src)],
                        capture_output=True, text=True, check=True).stdout
    body = re.search(rf"^define [^\n]*@{name or '[^(]+'}\(.*?^}}", ir, re.M | re.S)
    assert body is not None, ir[:2000]
    return body.group(0)


def small(directory, original: str = ACCUMULATE, **kw) -> SpillOracle:
    """The oracle of a reduction of `original` (no init guard: these tests are the UB guard's)."""
    (directory / "k.hip").write_text(original)
    return SpillSetup("k.hip", [], predicate="lto.instructions > 0", cwd=directory, tmp_dir=directory,
                      init_guard=False, **kw).resolve(original.encode())


@pytest.fixture(scope="module")
def accumulate(tmp_path_factory):
    """The UB guard's oracle of ACCUMULATE, and the same restored from its settings as a resumed
    run would (no build), with the guard and without it."""
    d = tmp_path_factory.mktemp("accumulate")
    guarded = small(d)
    settings = json.loads(json.dumps(guarded.settings()))  # as a run's state.json holds them

    def restored(ub_guard: bool) -> SpillOracle:
        return SpillSetup("k.hip", [], predicate="lto.instructions > 0", cwd=d, tmp_dir=d, init_guard=False,
                          ub_guard=ub_guard).restore(settings, ACCUMULATE.encode())
    return guarded, restored(True), restored(False)


def test_the_ub_guard_is_a_confirmation_step_recorded_and_restored_without_a_build(accumulate):
    guarded, restored, unguarded = accumulate
    assert guarded.sanitized[KERNEL].returns and not guarded.sanitized[KERNEL].traps.get(18)
    assert not any("UB guard" in why for why in guarded.guards_off)  # the original passes: nothing to say
    assert guarded.confirm_steps == 1 and unguarded.confirm_steps == 0 and unguarded.sanitized is None
    assert restored.identity() == guarded.identity() != unguarded.identity()
    assert restored.sanitized == guarded.sanitized
    assert kept(guarded, ACCUMULATE.encode()).interesting


@pytest.mark.parametrize("name", ["out-of-bounds", *sorted(NULL_STORES)])
def test_the_ub_guard_refuses_what_a_sanitized_build_shows(accumulate, tmp_path, name):
    """Each candidate passes the test (the guard is the confirmation's) and is kept without the
    guard; with it, it is refused. The test's own sanitized build shows why."""
    guarded, _, unguarded = accumulate
    text = OUT_OF_BOUNDS if name == "out-of-bounds" else NULL_STORES[name]
    assert guarded.test(text.encode()).interesting
    verdict = kept(guarded, text.encode())
    assert not verdict.interesting and verdict.reason.startswith("UB guard: ")
    assert kept(unguarded, text.encode()).interesting
    if name == "out-of-bounds":  # the kernel becomes the trap alone; the original's has no bounds trap
        assert "every path" in verdict.reason and "array index out of bounds (ubsantrap 18)" in verdict.reason
        ir = sanitized_kernel(tmp_path, OUT_OF_BOUNDS, "array-bounds")
        assert "@llvm.ubsantrap(i8 18)" in ir and not re.search(r"^\s+ret\b", ir, re.M)
        clean = sanitized_kernel(tmp_path, ACCUMULATE, "array-bounds")
        assert "ubsantrap" not in clean and re.search(r"^\s+ret void", clean, re.M)
        return
    assert "null or constant address (1 load(s), store(s) or atomic(s), the original has 0)" in verdict.reason
    ir = sanitized_kernel(tmp_path, text, "null")
    assert re.search(r"^\s+ret void", ir, re.M)  # the kernel keeps its stores: AMDGPU does not exploit the UB
    if name == "atomic":  # the null check does not see an atomic: the IR does, an atomicrmw on null
        assert re.search(r"atomicrmw fadd ptr null,", ir)
    else:  # the check traps for thread 0 (address null); the optimiser already stores poison through null
        assert "@llvm.ubsantrap(i8 22)" in ir
        assert re.search(r"(%\d+) = getelementptr [^\n]*ptr null, .*\n\s+store float poison, ptr \1,", ir)


def test_an_original_with_undefined_behaviour_sets_what_is_allowed(tmp_path):
    """The original defines what is allowed: one that already traps on every path may be reduced
    (the run says so at the start), and its candidates may do so too."""
    o = small(tmp_path, OUT_OF_BOUNDS)
    assert not o.sanitized[KERNEL].returns
    assert any("trap on every path" in why for why in o.guards_off)
    assert kept(o, OUT_OF_BOUNDS.encode()).interesting


TINY = ROOT / "corpora" / "wgrad_tiny_pos"


def test_the_first_cases_result_passes_the_guard_where_the_earlier_one_did_not(tmp_path):
    """The README's first case reduced again with the guard and the headroom rule
    (result_guarded.hip), judged by `reduce check --against` its original, and by the test's own
    sanitized build; the result it gave before (result.hip) is the trap alone in that build (16
    stores into a row of 3). Its kernel's LTO code grew to three times the original's, which the
    size clause of the default predicate refuses now, and `reduce check` names that clause."""
    flags = ["-std=gnu++20", f"-I{TINY / 'include'}"]
    report = run_check(TINY / "result_guarded.hip", flags, against=TINY / "repro.hip", init_guard=False)
    (kernel,) = [k for k in report["kernels"] if k["selected"]]
    assert kernel["ub_guard_violation"] == ""
    assert kernel["nolto"]["vgpr_total"] <= kernel["original"]["nolto"]["vgpr_total"]  # its headroom
    grown, original = kernel["lto"]["instructions"], kernel["original"]["lto"]["instructions"]
    assert grown > 2 * original and not kernel["interesting"]
    assert kernel["reason"].endswith(f"lto.instructions <= orig.lto.instructions [lto.instructions={grown}, "
                                     f"orig.lto.instructions={original}]")
    effect = Predicate(DEFAULT_EFFECT).bind({s: kernel["original"][s] for s in ("lto", "nolto")})
    assert effect.evaluate(kernel["lto"], kernel["nolto"]) is True  # every other clause holds
    assert "lto.instructions <= orig.lto.instructions" in format_check(report)
    # a run's closing reports build each file once and say the same of it
    theirs, mine = check_pair(TINY / "repro.hip", flags, (TINY / "result_guarded.hip").read_bytes(),
                              (TINY / "repro.hip").read_bytes(), [kernel["name"]], init_guard=False)
    assert [k for k in mine["kernels"] if k["selected"]] == [kernel]
    (their_kernel,) = [k for k in theirs["kernels"] if k["name"] == kernel["original"]["name"]]
    assert {s: their_kernel[s] for s in ("lto", "nolto")} == {s: kernel["original"][s] for s in ("lto", "nolto")}
    assert their_kernel["interesting"] and "original" not in their_kernel
    checks = ",".join(ubsan.CHECKS)
    ir = sanitized_kernel(tmp_path, (TINY / "result_guarded.hip").read_text(), checks, name=None)
    assert re.search(r"^\s+ret void", ir, re.M) and "ubsantrap(i8 18)" not in ir
    assert not re.search(r"(load|store|atomicrmw)[^\n]* ptr null,", ir)
    earlier = sanitized_kernel(tmp_path, (TINY / "result.hip").read_text(), checks, name=None)
    assert not re.search(r"^\s+ret\b", earlier, re.M) and "@llvm.ubsantrap(i8 18)" in earlier


def test_closing_reports_without_the_ub_guard_build_no_sanitizer_check(tmp_path, monkeypatch):
    """`check_pair` with `ub_guard=False` (a run with `--no-ub-guard`): neither file gets the
    sanitizer build, and neither report says anything of one."""
    original, result = pressure_in_a_loop(True, *SMALL).encode(), pressure_in_a_loop(False, *SMALL).encode()
    (tmp_path / "k.hip").write_bytes(original)
    monkeypatch.setattr(SpillSetup, "sanitized", lambda *a: pytest.fail("a sanitizer build"))
    theirs, mine = check_pair(tmp_path / "k.hip", [], result, original, [], predicate="lto.instructions > 0",
                              ub_guard=False)
    for report in (theirs, mine):
        assert report["kernels"] and all("ub_guard" not in k and "ub_guard_violation" not in k
                                         for k in report["kernels"])
    assert all("original" in k for k in mine["kernels"]) and all(k["interesting"] for k in theirs["kernels"])
