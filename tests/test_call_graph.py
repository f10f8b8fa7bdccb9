"""A kernel's figures cover its call graph (issue 44): every function it can reach in the code
object. Checked against an independent reading of an object built with the same flags: the call
graph from `llvm-objdump -d` (each s_swappc_b64's target computed from the s_getpc_b64 and the
pc-relative literals before it, named through the symbol table), counts over those functions'
bytes, spill comments read from the assembly by function label. Then `reduce check`, the IR
oracle and its lit test, `reduce explain` (a culprit of a spill in a callee) and the bug report's awk."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import CLANG, ROOT, needs_clang22
from kernels import build_sides

from interestingness.base.process import run
from interestingness.compiler.compile import LTO, NOLTO, SIDES, Compiler, prepare_flags
from interestingness.compiler.toolchain import find_toolchain
from interestingness.measure.metrics import METRIC_NAMES, analyse, call_graphs
from interestingness.measure.predicates import Predicate
from interestingness.oracle.ir import IrOracle, find_llvm_tools
from interestingness.tools.check import format_check, run_check
from interestingness.tools.explain.pass_log import parse_log
from reducer.ir.lit import lit_test, verify
from reducer.run import bugreport
from reducer.run.report import metric_table
from reducer.run.workdir import WorkDir

CASE = ROOT / "corpora" / "callee_lto_pos"  # full LTO leaves the GEMM a call, the no-LTO build inlines it
BOTH = ROOT / "corpora" / "callee_spill_neg"  # __noinline__: a call on both sides

# A chain (kernel -> mid -> leaf, leaf called twice), a callee two kernels share, a call through
# a function pointer read from memory, and a kernel that calls nothing.
GRAPH = r"""
#include <hip/hip_runtime.h>
__device__ __noinline__ float leaf(float x) { return x * x + 1.0f; }
__device__ __noinline__ float mid(float x) { return leaf(x) + leaf(x + 1.0f); }
__global__ void chain(float* a) { a[threadIdx.x] = mid(a[threadIdx.x]); }
__global__ void direct(float* a) { a[threadIdx.x] = leaf(a[threadIdx.x]); }
typedef float (*op_t)(float);
__device__ float neg(float x) { return -x; }
__device__ float twice(float x) { return 2 * x; }
__device__ op_t ops[2] = {neg, twice};
__global__ void indirect(float* a, int which) { a[threadIdx.x] = ops[which & 1](a[threadIdx.x]); }
__global__ void plain(float* a) { a[threadIdx.x] += 1.0f; }
"""
SOURCES = {"case": ((CASE / "repro.hip").read_text(), shlex.split((CASE / "flags").read_text())), "graph": (GRAPH, [])}


@pytest.fixture(scope="module")
def built():
    """{(source, side): (asm texts, object path)}, each built once."""
    tc = find_toolchain()
    with tempfile.TemporaryDirectory() as tmp:
        out = {key: (asm.asm, obj) for key, (asm, obj) in build_sides(tc, SOURCES, tmp).items()}
        yield tc, out


# ---------------------------------------------------------------- the independent reading


def _functions(tc, obj: Path) -> dict[int, tuple[str, int]]:
    """{address: (name, size)} of the object's function symbols."""
    text = run([tc.readelf, "-s", "--wide", obj], cwd=obj.parent, timeout=60).stdout
    out = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 8 and f[0][:-1].isdigit() and f[3] == "FUNC" and int(f[2]):
            out[int(f[1], 16)] = (f[7], int(f[2]))
    return out


def _instructions(tc, obj: Path) -> list[tuple[int, str, list[str]]]:
    """(address, mnemonic, operands) of every instruction objdump decodes."""
    text = run([tc.objdump, "-d", "--mcpu=gfx950", obj], cwd=obj.parent, timeout=60).stdout
    out = []
    for line in text.splitlines():
        if m := re.match(r"^\s+(\S+)\s*(.*?)\s*// ([0-9A-F]+):", line):
            out.append((int(m.group(3), 16), m.group(1), [o.strip() for o in m.group(2).split(",") if o.strip()]))
    return out


def _value(operand: str) -> int | None:
    """A literal operand's low 32 bits; None for a register."""
    try:
        return int(operand.removeprefix("lit(").removesuffix(")"), 0) & 0xFFFFFFFF
    except ValueError:
        return None


def _low(pair: str) -> int:
    return int(re.match(r"s\[?(\d+)", pair).group(1))


def _graph_by_objdump(tc, obj: Path, kernel: str) -> tuple[list[list[tuple[int, str, list[str]]]], list[str], int]:
    """(each reached function's instructions, their names, indirect calls) from the object alone: a
    call's target is the address after its s_getpc_b64 plus the 64-bit offset its s_add_u32 and
    s_addc_u32 literals add (a register added to the pair instead, as real code does with other
    s_getpc_b64 results, forgets it); a call whose register pair no such sequence set is indirect."""
    functions = _functions(tc, obj)
    code = _instructions(tc, obj)
    start = next(a for a, (n, _) in functions.items() if n == kernel)
    seen, queue, bodies, names, indirect = {start}, [start], [], [], 0
    while queue:
        at = queue.pop(0)
        name, size = functions[at]
        body = [i for i in code if at <= i[0] < at + size]
        bodies.append(body)
        names.append(name)
        base: dict[int, int] = {}
        low: dict[int, int] = {}
        target: dict[int, int] = {}
        for address, mnemonic, ops in body:
            if mnemonic == "s_getpc_b64":
                base[_low(ops[0])] = address + 4
            elif mnemonic == "s_add_u32" and ops[0] == ops[1] and _low(ops[0]) in base:
                if (v := _value(ops[2])) is None:
                    del base[_low(ops[0])]
                else:
                    low[_low(ops[0])] = v
            elif mnemonic == "s_addc_u32" and ops[0] == ops[1] and _low(ops[0]) - 1 in low:
                r = _low(ops[0]) - 1
                if (v := _value(ops[2])) is None or r not in base:
                    del low[r]
                    continue
                offset = (v << 32) | low[r]
                target[r] = base[r] + offset - (1 << 64 if offset >> 63 else 0)
            elif mnemonic == "s_swappc_b64" or (mnemonic == "s_setpc_b64" and _low(ops[0]) in target):
                t = target.get(_low(ops[-1]))
                if t is None:
                    indirect += 1
                elif t not in seen:
                    seen.add(t)
                    queue.append(t)
    return bodies, names, indirect


def _spill_lines(asm: list[str], name: str) -> int:
    """Folded Spill/Reload comments between `name:` and the next .Lfunc_end, in the first asm file
    that defines it."""
    for text in asm:
        if m := re.search(rf"^{re.escape(name)}:(.*?)^\.Lfunc_end", text, re.M | re.S):
            return len(re.findall(r"Folded (?:Spill|Reload)", m.group(1)))
    raise AssertionError(f"{name} not in the assembly")


@needs_clang22
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("source", SOURCES)
def test_figures_cover_the_call_graph_objdump_reads(built, source, side):
    tc, out = built
    asm, obj = out[source, side]
    graphs = {k.name: k for k in call_graphs(asm)}
    figures = analyse(asm)
    assert graphs and set(graphs) == set(figures)
    for kernel, k in graphs.items():
        got = figures[kernel]
        assert set(got) == METRIC_NAMES
        bodies, names, indirect = _graph_by_objdump(tc, obj, kernel)
        assert [f.name for f in k.functions] == names, kernel
        assert k.indirect == indirect and not k.undefined, kernel
        code = [i for body in bodies for i in body]
        assert got["instructions"] == len(code), kernel
        assert got["mfma"] == sum(m.startswith("v_mfma") for _, m, _ in code), kernel
        assert got["scratch_ops"] == sum(m.startswith("scratch_") for _, m, _ in code), kernel
        assert got["vmcnt0"] == sum(m == "s_waitcnt" and "vmcnt(0)" in " ".join(o) for _, m, o in code), kernel
        assert got["calls"] == sum(m == "s_swappc_b64" for _, m, _ in code), kernel
        assert got["spill_ops"] == sum(_spill_lines(asm, n) for n in names), kernel


@needs_clang22
@pytest.mark.parametrize("side", SIDES)
def test_the_shapes_of_the_graph(built, side):
    """What each kernel of GRAPH and the corpus case reaches, by name, and what is said of it."""
    tc, out = built
    graphs = {k.name: k for k in call_graphs(out["graph", side][0])}
    reached = {n: [f.name for f in k.reached] for n, k in graphs.items()}
    assert reached == {"_Z5chainPf": ["_Z3midf", "_Z4leaff"], "_Z6directPf": ["_Z4leaff"],
                       "_Z8indirectPfi": [], "_Z5plainPf": []}
    figures = analyse(out["graph", side][0])
    assert [figures[k]["calls"] for k in ("_Z5chainPf", "_Z6directPf", "_Z8indirectPfi", "_Z5plainPf")] == [3, 1, 1, 0]
    assert graphs["_Z8indirectPfi"].indirect == 1 and not graphs["_Z8indirectPfi"].complete
    (case,) = call_graphs(out["case", side][0])
    got = analyse(out["case", side][0])[case.name]
    assert got["mfma"] == 144
    if side == LTO:  # the whole GEMM and all the spill code are the callee's; the kernel's own note says 0 spilled
        assert [f.name for f in case.reached] == ["_ZN4gemm14ImplementationILi12EE3runEPfPKDv4_DF16_S5_i"]
        assert case.meta["vgpr_spill_count"] == "0" and got["calls"] == 1
        assert got["spill_ops"] > 100 and got["vgpr_spills"] > 50 and got["sgpr_spills"] is None
    else:  # inlined
        assert not case.reached and got["calls"] == 0 and got["spill_ops"] == 0 == got["vgpr_spills"]
    assert got["scratch_size"] == (316 if side == LTO else 0)


# ---------------------------------------------------------------- reduce check


@needs_clang22
def test_check_names_the_functions_counted_and_their_figures(monkeypatch, tmp_path):
    """The issue's shape: interesting with the default predicate only because the callee is counted;
    the bug report names the callee, and its repro.sh, run elsewhere, reads the same."""
    monkeypatch.chdir(ROOT)
    report = run_check(CASE / "repro.hip", shlex.split((CASE / "flags").read_text()), ub_guard=False,
                       init_guard=False)
    assert report["interesting"] is True, format_check(report)
    (k,) = report["kernels"]
    graph = k["call_graph"][LTO]
    kernel, callee = graph["functions"]
    assert kernel["name"] == k["name"] and "Implementation<12>::run" in callee["demangled"]
    # each function alone; the counts sum to the kernel's
    for metric in ("instructions", "mfma", "spill_ops", "scratch_ops", "calls", "vmcnt0", "loop_spill_ops"):
        assert kernel["figures"][metric] + callee["figures"][metric] == k[LTO][metric], metric
    assert kernel["figures"]["spill_ops"] == 0 and callee["figures"]["mfma"] == 144 == k[NOLTO]["mfma"]
    assert kernel["figures"]["vgpr_spills"] == 0 and callee["figures"]["vgpr_spills"] == k[LTO]["vgpr_spills"] > 0
    assert k["call_graph"][NOLTO] is None and k[NOLTO]["spill_ops"] == 0  # inlined, no spill
    text = format_check(report)
    assert "summed over the kernel and the 1 function(s) it calls" in text and "(the kernel itself)" in text
    assert "gemm::Implementation<12>::run(float*" in text
    # "LTO still calls its helper, the no-LTO build does not" is a predicate
    assert Predicate("lto.calls > 0 and nolto.calls == 0").evaluate(k[LTO], k[NOLTO]) is True
    table = "\n".join(metric_table({"original": report, "result": report}))
    assert (f"Functions the kernel calls (its figures are summed over them): original lto: `{callee['demangled']}`; "
            f"result lto: `{callee['demangled']}`.") in table
    bundle = bugreport.write(WorkDir(tmp_path), report, [("repro.hip", (CASE / "repro.hip").read_bytes())])
    readme = (bundle / "README.md").read_text()
    assert ("With full offload LTO the kernel calls 1 function(s), and the figures are summed over them: the kernel "
            "itself (0 spill instructions, 0 `v_mfma`), ") in readme and "Without LTO the kernel" not in readme
    assert f"`{callee['demangled']}` ({callee['figures']['spill_ops']} spill instructions, 144 `v_mfma`)" in readme
    ran = subprocess.run([str(bundle / "repro.sh")], cwd="/", capture_output=True, text=True,
                         env={**os.environ, "CLANG": str(CLANG)})
    assert ran.returncode == 0 and "verdict: INTERESTING" in ran.stdout, ran.stdout + ran.stderr
    for metric, lto, nolto in (("calls", 1, 0), ("spill_ops", 156, 0), ("mfma", 144, 144)):
        assert re.search(rf"^  {metric} +{lto} \| {nolto}$", ran.stdout, re.M), ran.stdout


@needs_clang22
def test_check_says_an_indirect_call_is_not_counted(tmp_path):
    (tmp_path / "g.hip").write_text(GRAPH)
    report = run_check(tmp_path / "g.hip", [], kernel="indirect", predicate="lto.calls > 0",
                       ub_guard=False, init_guard=False)
    (k,) = [k for k in report["kernels"] if k["selected"]]
    assert report["interesting"] and k["call_graph"][LTO]["indirect"] == 1
    assert "1 indirect call(s) (a computed address): their targets are not counted" in format_check(report)
    assert all(k["call_graph"][s] is None for k in report["kernels"] if k["name"] == "_Z5plainPf" for s in SIDES)


# ---------------------------------------------------------------- IR mode and explain


@pytest.fixture(scope="module")
def case_ir():
    """The optimised no-LTO IR of the __noinline__ case: the kernel calls its implementation."""
    flags = shlex.split((BOTH / "flags").read_text())
    comp = Compiler(find_toolchain(), prepare_flags(flags, ROOT)[0], "repro.hip", str(BOTH), timeout=300)
    c = comp.compile(NOLTO, (BOTH / "repro.hip").read_bytes(), emit="ir")
    assert c.ok, c.message
    return c.asm[0].encode()


@needs_clang22
def test_ir_oracle_reads_llcs_call_graph_and_writes_a_lit_test_on_the_callee(case_ir, tmp_path):
    tools = find_llvm_tools()
    oracle = IrOracle(tools, "llc.calls > 0 and llc.spill_ops > 100 and llc.mfma == 144").resolve(case_ir)
    assert oracle.target == "_Z11gemm_kernelPfPKDv4_DF16_S2_i" and oracle.test(case_ir).interesting
    asm = oracle.llc("llc", case_ir).asm
    text = lit_test(oracle, case_ir.decode(), {"llc": asm})
    callee = next(f.name for f in call_graphs([asm])[0].reached)
    assert f"; CHECK-LABEL: {{{{^}}}}{callee}:" in text and "; CHECK-NOT: Folded Spill" in text
    path = tmp_path / "case.ll"
    path.write_text(text)
    assert verify(path, str(CLANG.parent), 300) is None


UNDEFINED = """
target triple = "amdgcn-amd-amdhsa"
declare float @external(float)
define amdgpu_kernel void @k(ptr addrspace(1) %a) {
  %v = load float, ptr addrspace(1) %a
  %r = call float @external(float %v)
  store float %r, ptr addrspace(1) %a
  ret void
}
"""


@needs_clang22
def test_a_call_the_module_does_not_define_is_named(tmp_path):
    tools = find_llvm_tools()
    asm = IrOracle(tools, "llc.calls > 0").llc("llc", UNDEFINED.encode()).asm
    (k,) = call_graphs([asm])
    assert k.undefined == ("external",) and not k.reached and analyse([asm])["k"]["calls"] == 1


@needs_clang22
def test_explain_counts_executions_on_a_callee_as_the_kernels(case_ir, tmp_path):
    """The explain's baseline build of the llc stage: the figures of the call graph, and pass
    executions on the callee are the kernel's in its pipeline."""
    from interestingness.tools.explain.stages import LLC_STAGE, IrBuilds

    tools = find_llvm_tools()
    oracle = IrOracle(tools, "llc.spill_ops > 100", undef_guard=False, loop_guard=False).resolve(case_ir)
    b = IrBuilds(oracle, case_ir, "case.ll", str(tmp_path)).build(LLC_STAGE, ["-opt-bisect-limit=-1"])
    callee = b.functions[1]
    assert b.figures["calls"] == 1 and b.figures["spill_ops"] > 100 and len(b.functions) == 2
    runs = parse_log(b.log, b.on(oracle.target))
    on_callee = [r for r in runs if r.function == callee]
    assert on_callee and all(r.kernel for r in on_callee)
    assert not any(r.kernel for r in parse_log(b.log, oracle.target) if r.function == callee)


@needs_clang22
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("source", SOURCES)
def test_the_bug_reports_awk_reads_the_same_figures(built, source, side, tmp_path):
    """repro.sh's reading (reducer/run/bugreport.py's awk) gives every kernel the figures of
    metrics.py, call graph included, on several LTO partitions too."""
    from interestingness.measure.metrics import METRICS
    from reducer.run.bugreport import METRICS_AWK

    asm, _ = built[1][source, side]
    files = []
    for i, text in enumerate(asm):
        files.append(tmp_path / f"out.{i}.s")
        files[-1].write_text(text)
    for kernel, got in analyse(asm).items():
        res = run(["awk", "-v", f"K={kernel}", METRICS_AWK, *files], cwd=tmp_path, timeout=60)
        assert res.returncode == 0, res.stderr
        assert res.stdout.split() == ["-" if got[m.name] is None else str(got[m.name]) for m in METRICS], kernel


@needs_clang22
def test_explain_finds_the_culprit_of_a_spill_in_a_callee(case_ir, tmp_path):
    """llc on the case: all of the spill code is the callee's. Without the machine scheduler it
    spills less (152 spill instructions instead of 156, counted here in llc's own output), so the
    scheduler is the culprit of `spill_ops >= 156`, its execution on the callee is the one enough
    alone, and the dump is the callee's."""
    from interestingness.tools.explain import explain_ir

    path = tmp_path / "case.ll"
    path.write_bytes(case_ir)
    r = explain_ir(path, predicate="llc.spill_ops >= 156 and llc.calls > 0",
                   passes=["machine-scheduler", "amdgpu-isel"], workdir=tmp_path / "w")
    assert r.baseline["llc"]["spill_ops"] == 156 and r.baseline["llc"]["calls"] == 1
    assert [(c.stage, c.name) for c in r.culprits] == [("llc", "machine-scheduler")]
    (ablation,) = [a for a in r.ablations if a.name == "machine-scheduler"]
    assert ablation.on_kernel == 2  # the kernel's execution and its callee's
    llc = [str(CLANG.parent / "llc"), "-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx950", "-O3"]
    for options, spills in (([], 156), (["-opt-disable=machine-scheduler"], 152)):
        out = run([*llc, *options, str(path), "-o", "-"], cwd=tmp_path, timeout=300).stdout
        assert len(re.findall(r"Folded (?:Spill|Reload)", out)) == spills
    callee = next(f.name for f in call_graphs([out])[0].reached)
    (culprit,) = r.culprits
    (enough,) = culprit.enough
    assert next(e.function for e in r.pipelines["llc"] if e.index == enough) == callee
    assert culprit.dump is not None and culprit.dump.function == callee
