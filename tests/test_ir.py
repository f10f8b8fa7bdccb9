"""`reduce ir`: the IR oracle on real llc output, each bad input's error, and reductions end to end
with the real llvm-reduce, llc and FileCheck. Inputs are small (a 12-value pressure kernel capped
at 16 VGPRs; corpora/wgrad_c0_pos, whose LTO build compiles in a second, for the register budget),
and the reductions run a few delta passes only, so the file takes about a minute."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import ROOT, needs_clang22
from kernels import pressure

from interestingness.measure.metrics import METRIC_NAMES
from interestingness.measure.predicates import PredicateError
from interestingness.oracle.ir import LLC, IrInputError, IrOracle, default_predicate, find_llvm_tools, read_module
from interestingness.oracle.precodegen import build_precodegen
from reducer.ir.lit import verify
from reducer.ir.reduce import instruction_count
from reducer.ir.server import VerdictServer

pytestmark = needs_clang22

SPILL_KERNEL = "_Z5spillPfPKfi"
# 12 values live at once under a 16-VGPR cap: about 20 VGPRs spilled, ~200 lines of IR.
SMALL = pressure(12, "__attribute__((amdgpu_num_vgpr(8)))")
CALM_KERNEL = "__global__ void calm(float* a) { a[threadIdx.x] = 1.0f; }\n"
CALM_LL = """target triple = "amdgcn-amd-amdhsa"
define amdgpu_kernel void @calm(ptr addrspace(1) %a) {
  store float 1.0, ptr addrspace(1) %a
  ret void
}
"""
X86_LL = CALM_LL.replace("amdgcn-amd-amdhsa", "x86_64-unknown-linux-gnu").replace("amdgpu_kernel ", "")
# parses, but the verifier (run by llc) rejects it: kernels must return void
INVALID_LL = CALM_LL.replace("void @calm", "i32 @calm").replace("ret void", "ret i32 0")
FAST = "--delta-passes=instructions"  # one delta pass: a real llvm-reduce run in seconds, not minutes
C0 = ROOT / "corpora" / "wgrad_c0_pos"  # a convolution kernel: __launch_bounds__(256, 2), 256 VGPRs, spills 4


def reduce(*args, cwd: Path, env=None):
    return subprocess.run([sys.executable, "-m", "reducer.cli", "ir", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


@pytest.fixture(scope="module")
def tools():
    return find_llvm_tools()


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """The precodegen bitcode of SMALL and the LTO build's own figures."""
    d = tmp_path_factory.mktemp("ir")
    (d / "small.hip").write_text(SMALL)
    built = build_precodegen(d / "small.hip", [], timeout=120, tmp_dir=d)
    assert len(built.partitions) == 1
    (d / "small.bc").write_bytes(built.partitions[0])
    return d / "small.bc", built.lto


@pytest.fixture(scope="module")
def c0(tmp_path_factory):
    """The precodegen bitcode of corpora/wgrad_c0_pos (one partition) and its textual IR."""
    d = tmp_path_factory.mktemp("c0")
    built = build_precodegen(C0 / "repro.hip", shlex.split((C0 / "flags").read_text()), timeout=300, tmp_dir=d)
    assert len(built.partitions) == 1
    return read_module(built.partitions[0], find_llvm_tools())


def test_llc_on_precodegen_gives_the_lto_builds_code(tools, small):
    path, lto = small
    ran = IrOracle(tools).llc(LLC, path.read_bytes())
    assert set(ran.metrics) == {SPILL_KERNEL} == set(lto)
    assert ran.metrics[SPILL_KERNEL] == lto[SPILL_KERNEL]  # every metric, spills included
    assert lto[SPILL_KERNEL]["vgpr_spills"] > 0 and set(lto[SPILL_KERNEL]) == METRIC_NAMES


def test_the_allocation_is_held_where_the_unified_file_is_the_ceiling_reached():
    """A kernel that spills with all 256 architectural VGPRs and the unified file short of full
    (ck_tile's GEMM without LTO: 256 + 240 AGPRs at occupancy 1) reached the architectural
    ceiling: the AGPRs' share is free, the rest of the budget held; at the unified ceiling
    (256 of 256 at occupancy 2, or 16 VGPRs under amdgpu-num-vgpr) the allocation is held too."""
    budget = {"max_flat_workgroup_size": 256, "vgpr": 256, "occupancy": 1}
    arch = default_predicate(1, False, {**budget, "vgpr_total": 496})
    assert "llc.vgpr_total" not in arch
    assert all(f"llc.{m} == orig.llc.{m}" in arch for m in budget)
    for total, vgpr, occupancy in ((256, 256, 2), (16, 16, 8), (512, 248, 1)):
        held = default_predicate(1, False, {**budget, "vgpr": vgpr, "vgpr_total": total, "occupancy": occupancy})
        assert "llc.vgpr_total == orig.llc.vgpr_total" in held
    assert "calls" not in arch


def test_a_call_of_the_original_stays_a_call():
    """The figures are the kernel's call graph's: where the original calls the function that
    spills, a module with the callee folded into the kernel spills elsewhere (issue 44)."""
    budget = {"max_flat_workgroup_size": 512, "vgpr": 256, "vgpr_total": 256, "occupancy": 2}
    assert default_predicate(1, False, {**budget, "calls": 1}).endswith(" and llc.calls > 0")
    assert "calls" not in default_predicate(1, False, {**budget, "calls": 0})


def test_default_predicate_keeps_spill_mfma_count_and_budget(tools, small):
    bitcode = small[0].read_bytes()
    o = IrOracle(tools).resolve(bitcode)
    assert o.target == SPILL_KERNEL
    assert o.predicate == ("llc.vgpr_spills >= 1 and llc.spill_ops > 0 and llc.mfma == orig.llc.mfma"
                           " and llc.max_flat_workgroup_size == orig.llc.max_flat_workgroup_size"
                           " and llc.vgpr_total == orig.llc.vgpr_total and llc.vgpr == orig.llc.vgpr"
                           " and llc.occupancy == orig.llc.occupancy")
    assert o.bound_predicate().original == {"llc.mfma": 0, "llc.max_flat_workgroup_size": 1024, "llc.vgpr_total": 16,
                                            "llc.vgpr": 16, "llc.occupancy": 8}  # the original's, in the identity too
    assert o.identity()["original"] == o.bound_predicate().original
    assert {k: v for k, v in o.budget.items() if k != "target-features"} == {
        "amdgpu-agpr-alloc": "0", "amdgpu-flat-work-group-size": "1,1024", "amdgpu-num-vgpr": "8",
        "target-cpu": "gfx950"}
    assert o.test(bitcode).interesting
    calm, _ = read_module(CALM_LL.encode(), tools)
    v = o.test(calm)
    assert not v.interesting and v.reason == f"budget guard: {SPILL_KERNEL}'s register budget is not the original's " \
        "(the kernel is not defined)"
    v = replace(o, budget=None).test(calm)
    assert not v.interesting and v.reason == f"kernel {SPILL_KERNEL} missing (llc)"
    renamed, _ = read_module(CALM_LL.replace("@calm", f"@{SPILL_KERNEL}").encode(), tools)
    v = replace(o, budget=None).test(renamed)
    assert not v.interesting and "llc.vgpr_spills >= 1 [llc.vgpr_spills=0]" in v.reason
    with pytest.raises(IrInputError, match="holds for no kernel") as e:
        IrOracle(tools, min_spills=10_000).resolve(bitcode)
    assert e.value.kind == "not-interesting"


def test_a_module_without_its_launch_bound_is_refused_before_llc(tools, c0):
    """Issue 43 on a real kernel: without `amdgpu-flat-work-group-size` llc assumes 1024 work-items,
    gives the kernel 128 VGPRs instead of 256, and it spills more: the old predicate (spills, and
    the original's MFMA count) accepted that. The budget guard refuses it without running llc;
    without the guard the predicate refuses it on the launch bound."""
    bitcode, text = c0
    o = IrOracle(tools).resolve(bitcode)
    assert o.budget["amdgpu-flat-work-group-size"] == "1,256" and o.budget["amdgpu-waves-per-eu"] == "2"
    assert o.original[LLC]["vgpr_total"] == 256 and o.original[LLC]["occupancy"] == 2
    stripped, _ = read_module(text.replace('"amdgpu-flat-work-group-size"="1,256" ', "").encode(), tools)
    v = o.test(stripped)
    assert not v.interesting and v.details["llc"] == {}  # decided without compiling
    assert v.reason.endswith("register budget is not the original's (amdgpu-flat-work-group-size: 1,256 -> (none))")
    v = replace(o, budget=None).test(stripped)
    lost = v.details["llc"][LLC]["metrics"]
    assert lost["vgpr_total"] == 128 and lost["vgpr_spills"] > o.original[LLC]["vgpr_spills"]
    assert not v.interesting and "llc.max_flat_workgroup_size == orig.llc.max_flat_workgroup_size" in v.reason
    old = f"llc.vgpr_spills >= 1 and llc.spill_ops > 0 and llc.mfma == {o.original[LLC]['mfma']}"
    assert replace(o, budget=None, predicate=old).test(stripped).interesting  # the hole the guard closes
    # without `amdgpu-agpr-alloc`="0" the same 256 registers are split 128 VGPRs + 128 AGPRs: the
    # launch bound, .vgpr_count and occupancy are the original's, the architectural VGPRs are not
    shared, _ = read_module(text.replace('"amdgpu-agpr-alloc"="0" ', "").encode(), tools)
    v = o.test(shared)
    assert not v.interesting and v.details["llc"] == {} and "amdgpu-agpr-alloc: 0 -> (none)" in v.reason
    v = replace(o, budget=None).test(shared)
    split = v.details["llc"][LLC]["metrics"]
    assert split["vgpr"] < 256 and split["agpr"] > 0 and split["vgpr_spills"] > o.original[LLC]["vgpr_spills"]
    assert (split["vgpr_total"], split["occupancy"], split["max_flat_workgroup_size"]) == (256, 2, 256)
    assert not v.interesting and "llc.vgpr == orig.llc.vgpr" in v.reason
    # the attribute written on the define line instead of in its group is the same budget
    inline = re.sub(r"(define [^\n]*) #0 comdat \{", r'\1 #0 "amdgpu-num-vgpr"="64" comdat {', text, count=1)
    assert 'define protected amdgpu_kernel' in inline and '"amdgpu-num-vgpr"="64" comdat' in inline
    v = o.test(read_module(inline.encode(), tools)[0])
    assert not v.interesting and "amdgpu-num-vgpr: (none) -> 64" in v.reason and v.details["llc"] == {}


def test_differential_compiles_alt_only_when_needed(tools, small):
    bitcode = small[0].read_bytes()
    # -O0 uses the fast register allocator: it spills far more than -O3's greedy one
    o = IrOracle(tools, "llc.vgpr_spills > 0 and alt.vgpr_spills > llc.vgpr_spills", alt_flags=("-O0",))
    o = o.resolve(bitcode)
    assert "-O0" in o.command("alt") and "-O3" not in o.command("alt") and "-O3" in o.command(LLC)
    v = o.test(bitcode)
    assert v.interesting and v.details["llc"]["alt"]["metrics"]["vgpr_spills"] > 0
    calm, _ = read_module(CALM_LL.replace("@calm", f"@{SPILL_KERNEL}").encode(), tools)
    v = replace(o, budget=None).test(calm)  # no spill at -O3: decided without the alt side (and budget guard)
    assert not v.interesting and v.details["llc"]["alt"] == {"skipped": True}
    with pytest.raises(PredicateError, match="no alt llc flags"):
        IrOracle(tools, "alt.spill_ops > 0")
    assert o.identity() != replace(o, alt_flags=("-O1",)).identity() != replace(o, flags=("-O1",)).identity()


def test_server_answers_llvm_reduces_test_and_remembers(tools, small, tmp_path):
    bitcode = small[0].read_bytes()
    (tmp_path / "calm.bc").write_bytes(read_module(CALM_LL.encode(), tools)[0])
    with VerdictServer(IrOracle(tools).resolve(bitcode), None, tmp_path) as server:
        def ask(candidate: Path, script: Path = server.script) -> int:
            return subprocess.run([script, candidate], cwd=tmp_path).returncode

        assert ask(small[0]) == 0 and ask(tmp_path / "calm.bc") == 1 and ask(small[0]) == 0
        assert server.counters.tests == 2 and server.counters.memo_hits == 1
        forged = tmp_path / "forged.sh"  # the right port, the wrong token: no answer, not interesting
        forged.write_text(server.script.read_text().replace("printf '%s %s\\n' ", "printf '%s %s\\n' x"))
        forged.chmod(0o700)
        assert ask(small[0], forged) == 1 and server.counters.memo_hits == 1


@pytest.mark.parametrize("content, code, message", [
    (b"this is not IR\n", 11, "neither LLVM bitcode nor textual LLVM IR"),
    (b"BC\xc0\xde" + b"\x00" * 64, 11, "not valid LLVM bitcode"),
    (X86_LL.encode(), 12, "is for x86_64-unknown-linux-gnu, not for AMDGPU"),
    (INVALID_LL.encode(), 13, "llc rejects the module"),
    (CALM_LL.encode(), 5, "holds for no kernel (does it spill?): calm: llc.vgpr_spills >= 1"),
])
def test_bad_input_is_one_clear_error(tmp_path, content, code, message):
    (tmp_path / "in.ll").write_bytes(content)
    r = reduce("in.ll", "-q", cwd=tmp_path)
    assert r.returncode == code, r.stderr
    assert message in r.stderr and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "in.reduced.ll").exists()


def test_reduce_ir_writes_a_lit_test_that_passes(tmp_path, small):
    shutil.copy(small[0], tmp_path / "small.bc")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    # llvm-reduce's `attributes` pass would drop the budget attributes: the guard keeps them
    r = reduce("small.bc", "-j", 2, "--llvm-reduce-flags", "--delta-passes=attributes",
               "--first-delta-passes", "instructions", cwd=tmp_path, env={"TMPDIR": str(tmp)})
    assert r.returncode == 0, r.stderr
    out = tmp_path / "small.reduced.ll"
    text = out.read_text()
    assert "; RUN: llc -mtriple=amdgcn-amd-amdhsa -mcpu=gfx950 -O3 < %s | FileCheck %s" in text
    assert "; CHECK: scratch_store" in text and "; CHECK: ; ScratchSize: {{[1-9][0-9]*}}" in text
    # the budget it spills against: occupancy, the launch bound, the VGPR allocation at the ceiling
    assert "; CHECK: ; Occupancy: 8{{$}}" in text and "; CHECK: .max_flat_workgroup_size: 1024{{$}}" in text
    assert "; CHECK: .vgpr_count: 16{{$}}" in text and "; CHECK: ; NumVgprs: 16{{$}}" in text
    assert '; register budget, kept from the original: "amdgpu-agpr-alloc"="0", ' in text
    attrs = "\n".join(line for line in text.splitlines() if line.startswith("attributes #"))
    assert '"amdgpu-flat-work-group-size"="1,1024"' in attrs and '"amdgpu-num-vgpr"="8"' in attrs
    assert "nounwind" not in attrs  # the attributes pass ran: what decides no budget went
    before = instruction_count(read_module(small[0].read_bytes(), find_llvm_tools())[1])
    assert instruction_count(text) < before / 2
    assert f"instructions {before} -> {instruction_count(text)}" in r.stderr
    # the first passes ran by themselves, before the full list: the instructions went first
    steps = re.search(r"; isolate (\d+) .*; llvm-reduce \(first passes\) (\d+) .*; llvm-reduce (\d+) ", r.stderr)
    assert steps and int(steps.group(3)) <= int(steps.group(2)) < int(steps.group(1)), r.stderr
    # where the run went, per delta pass, the instructions after the one that saved the most
    passes = re.search(r"llvm-reduce's passes that ran tests:\n((?:  .*\n)+)", r.stderr)
    assert passes, r.stderr
    rows = {m.group(1): m for m in re.finditer(r"  ([a-z-]+): (\d+) tests, \d+s(?:, (\d+) saved)?"
                                               r"(?:, (\d+) instructions after)?", passes.group(1))}
    assert set(rows) <= {"instructions", "attributes"} and int(rows["instructions"].group(2)) > 0
    assert int(rows["instructions"].group(3)) > 0 and int(rows["instructions"].group(4)) < before
    assert ("held   the original's max_flat_workgroup_size 1024, mfma 0, occupancy 8, vgpr 16, vgpr_total 16; "
            "budget attributes amdgpu-agpr-alloc, amdgpu-flat-work-group-size, amdgpu-num-vgpr") in r.stderr
    assert verify(out, str(Path(find_llvm_tools().llc).parent)) is None
    assert not any(tmp.iterdir())  # llvm-reduce's candidates and our run directory are gone
    lit = shutil.which("lit") or shutil.which("lit", path=str(Path(find_llvm_tools().llc).parent))
    if lit:  # the real lit, as an LLVM developer would run the test
        (tmp_path / "lit.cfg.py").write_text("import lit.formats\nconfig.name = 'ir'\nconfig.suffixes = ['.ll']\n"
                                             "config.test_format = lit.formats.ShTest(True)\n")
        env = {**os.environ, "PATH": f"{Path(find_llvm_tools().llc).parent}:{os.environ['PATH']}"}
        res = subprocess.run([lit, "-v", str(out)], cwd=tmp_path, capture_output=True, text=True, env=env)
        assert res.returncode == 0 and "PASS" in res.stdout, res.stdout + res.stderr
    # the CHECK lines can fail: without the VGPR cap nothing spills
    out.write_text(text.replace('"amdgpu-num-vgpr"="8"', ""))
    failed = verify(out, str(Path(find_llvm_tools().llc).parent))
    assert failed.startswith("RUN line failed (1)") and "error: CHECK" in failed
    # and at another launch bound the same spill is another budget
    out.write_text(text.replace('"amdgpu-flat-work-group-size"="1,1024"', '"amdgpu-flat-work-group-size"="1,256"'))
    failed = verify(out, str(Path(find_llvm_tools().llc).parent))
    assert failed.startswith("RUN line failed (1)") and "CHECK: .max_flat_workgroup_size: 1024" in failed


def test_from_source_reduces_the_partition_with_the_spill(tmp_path):
    (tmp_path / "two.hip").write_text(SMALL + CALM_KERNEL)
    r = reduce("--from-source", "two.hip", "-j", 2, "--llvm-reduce-flags", "--delta-passes=module-data",
               cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "precodegen IR: 2 partition(s)" in r.stderr and "llc reproduces the LTO build's figures exactly" in r.stderr
    text = (tmp_path / "two.reduced.ll").read_text()
    assert f"@{SPILL_KERNEL}(" in text and "@_Z4calmPf" not in text
    assert "; CHECK: .vgpr_count: 16{{$}}" in text and '"amdgpu-num-vgpr"="8"' in text
    assert "budget guard: amdgpu-agpr-alloc, amdgpu-flat-work-group-size, amdgpu-num-vgpr" in r.stderr
    r = reduce("--from-source", "missing.hip", cwd=tmp_path)
    assert r.returncode == 3 and "no such file" in r.stderr


def test_a_stop_during_llvm_reduce_keeps_its_best_as_a_passing_lit_test(tmp_path, small):
    """SIGTERM (as a job scheduler sends it) while llvm-reduce runs: exit 130, and the output is
    llvm-reduce's best module so far under a lit header that passes, not the isolated input."""
    import signal
    import time
    shutil.copy(small[0], tmp_path / "small.bc")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "reducer.cli", "ir", "small.bc", "-j", "2", "--no-cache"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp)})

    isolated: list[bytes] = []

    def saved_smaller() -> bool:  # llvm-reduce saved a module below its input (kept in `isolated`)
        for saved in tmp.glob("reduce-ir-*/llvm-reduce.bc"):
            try:
                if saved.stat().st_size < (saved.parent / "isolated.bc").stat().st_size:
                    isolated.append((saved.parent / "isolated.bc").read_bytes())
                    return True
            except OSError:
                pass
        return False

    deadline = time.monotonic() + 120
    while not saved_smaller() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert isolated, "llvm-reduce saved no smaller module within 2 minutes"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "as a passing lit test" in err
    out = tmp_path / "small.reduced.ll"
    text = out.read_text()
    module = "".join(line for line in text.splitlines(keepends=True) if not line.startswith(";"))
    # smaller than what llvm-reduce started from: its best, not the isolated input
    start = "".join(line for line in read_module(isolated[0], find_llvm_tools())[1].splitlines(keepends=True)
                    if not line.startswith(";"))
    assert text.startswith("; Reduced by `reduce ir`") and len(module) < len(start)
    assert verify(out, str(Path(find_llvm_tools().llc).parent)) is None
    assert not any(tmp.iterdir())


def test_time_budget_stops_with_the_best_so_far_as_a_passing_lit_test(tmp_path, small):
    shutil.copy(small[0], tmp_path / "small.bc")
    r = reduce("small.bc", "-j", 2, "--no-cache", "--time-budget", "1s", cwd=tmp_path)
    assert r.returncode == 7, r.stderr
    assert "time budget of 1s used: the best module so far" in r.stderr and "as a passing lit test" in r.stderr
    assert verify(tmp_path / "small.reduced.ll", str(Path(find_llvm_tools().llc).parent)) is None
    r = reduce("small.bc", "--time-budget", "soon", cwd=tmp_path)
    assert r.returncode == 2 and "not a duration" in r.stderr


def test_a_budget_inside_a_delta_pass_keeps_the_best_module_the_oracle_saw(tmp_path, c0):
    """Issue 43: llvm-reduce saves its output only when a delta pass ends, and one `instructions`
    pass over wgrad_c0_pos (3316 instructions) takes far longer than this budget; a stop used to
    fall back to the isolated input. Its candidates hold every reduction the pass kept, so the
    smallest one the oracle called interesting is the result, checked and written as a lit test."""
    bitcode, text = c0
    (tmp_path / "c0.bc").write_bytes(bitcode)
    r = reduce("c0.bc", "-j", 2, "--no-cache", "--time-budget", "12s", "--first-delta-passes", "instructions",
               "--llvm-reduce-flags", "--delta-passes=instructions", cwd=tmp_path)
    assert r.returncode == 7, r.stderr
    before, out = instruction_count(text), tmp_path / "c0.reduced.ll"
    after = instruction_count(out.read_text())
    assert after < before * 0.8, r.stderr
    assert "  instructions: " in r.stderr and " saved" not in r.stderr  # the pass never ended
    assert f"stopped (time budget of 12s used): c0.bc -> c0.reduced.ll (the best module so far; lit test passes" \
        in r.stderr and f"  instructions {before} -> {after}\n" in r.stderr
    assert re.search(rf"; llvm-reduce \(first passes\) \(stopped\) {after} \([1-9]\d* tests, \d", r.stderr), r.stderr
    assert verify(out, str(Path(find_llvm_tools().llc).parent)) is None
    assert "; CHECK: .vgpr_count: 256{{$}}" in out.read_text()


def test_undef_guard_refuses_a_module_with_a_poison_store_the_original_has_not(tools, small):
    bitcode = small[0].read_bytes()
    text = subprocess.run([tools.llvm_dis, "-", "-o", "-"], input=bitcode, capture_output=True).stdout.decode()
    store = next(line for line in text.splitlines() if line.lstrip().startswith("store float %"))
    value = store.split()[2].rstrip(",")
    poisoned, _ = read_module(text.replace(store, store.replace(value, "poison", 1) + "\n" + store).encode(), tools)
    o = IrOracle(tools, predicate="llc.vgpr_spills >= 1").resolve(bitcode)
    assert o.undef_limit == 0
    v = o.test(poisoned)
    assert not v.interesting and v.reason.startswith("undef guard: 1 loads, stores or MFMAs")
    assert IrOracle(tools, predicate="llc.vgpr_spills >= 1", undef_guard=False).resolve(bitcode).test(poisoned).interesting


def test_the_pass_log_follows_llvm_reduce_as_it_writes(tmp_path):
    """Passes read from llvm-reduce's log while it grows, a line cut by a read included; a pass's
    rounds merged; the instructions after a pass asked only when it saved a module."""
    from reducer.ir.passlog import PassLog
    path, counted = tmp_path / "llvm-reduce.log", []
    log = PassLog(path, lambda: counted.append(1) or 100 - 10 * len(counted))
    path.write_bytes(b"*** Reducing Functions (functions)...\n" + b"-" * 80 + b"\n*** Reducing Basic Bl")
    log.poll(1.0, 5)
    assert log.current == "functions"
    with open(path, "ab") as f:
        f.write(b"ocks (basic-blocks)...\n **** SUCCESS | Saved new best reduction to x.bc\n")
    log.poll(4.0, 30)
    assert log.current == "basic-blocks"
    with open(path, "ab") as f:
        f.write(b"*** Reducing Functions (functions)...\n")
    log.finish(6.0, 32)
    functions, blocks = log.passes
    assert (functions.name, functions.tests, functions.seconds, functions.saved, functions.instructions) == \
        ("functions", 25, 3.0, 0, None)
    assert (blocks.name, blocks.tests, blocks.seconds, blocks.saved, blocks.instructions) == \
        ("basic-blocks", 2, 2.0, 1, 90)
    assert len(counted) == 1
