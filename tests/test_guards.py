"""Results that are still the bug: the init guard (no reads of uninitialised memory) and the
loop guard (no drift to straight-line spill code). Real clang on real kernels."""
import re

import pytest

from conftest import ROOT, needs_clang22
from interestingness.metrics import METRICS, parse_kernels
from interestingness.spill import SpillOracle, SpillSetup
from kernels import pressure_in_a_loop
from reducer.evaluate import Evaluator
from reducer.flatten import flatten, include_dirs

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
    looped, straight = pressure_in_a_loop().encode(), pressure_in_a_loop(runtime=False).encode()
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
