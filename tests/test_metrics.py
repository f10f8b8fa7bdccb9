"""Every asm-derived figure must equal an independent read of an object built with the same flags:
llvm-readelf (all AMDGPU metadata notes, symbol table) and llvm-objdump (the kernel's bytes)."""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from kernels import build_sides, pressure

from interestingness.base.process import run
from interestingness.compiler.compile import LTO, SIDES
from interestingness.compiler.toolchain import find_toolchain
from interestingness.measure.metrics import METRIC_NAMES, METRICS, KernelAsm, analyse, call_graphs, demangle, figures

# Several kernels: full LTO splits them over partitions (several asm files, several notes).
MULTI = r"""
#include <hip/hip_runtime.h>
typedef float f32x16 __attribute__((ext_vector_type(16)));
typedef _Float16 f16x4 __attribute__((ext_vector_type(4)));

__global__ void axpy(float* a, const float* b, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += s * b[i];
}
// A private array indexed at run time lives in scratch without any register spill.
__global__ void gather(float* a, const float* b, int n) {
  int i = threadIdx.x;
  float p[64];
  for (int j = 0; j < 64; j++) p[j] = b[j * n + i];
  a[i] = p[(int)a[i] & 63];
}
__global__ __launch_bounds__(256) void mma(float* c, const f16x4* a, const f16x4* b, int k) {
  int lane = threadIdx.x & 63;
  f32x16 acc0 = {}, acc1 = {};
  for (int t = 0; t < k; t++) {
    acc0 = __builtin_amdgcn_mfma_f32_32x32x8f16(a[t * 64 + lane], b[t * 64 + lane], acc0, 0, 0, 0);
    acc1 = __builtin_amdgcn_mfma_f32_32x32x8f16(a[t * 64 + lane], b[(t + 1) * 64 + lane], acc1, 0, 0, 0);
  }
  for (int e = 0; e < 16; e++) c[e * 256 + threadIdx.x] = acc0[e] + acc1[e];
}
template <typename T> __global__ void incr(T* a) { a[threadIdx.x] += 1; }
template __global__ void incr<double>(double*);
"""

SOURCES = {"multi": MULTI, "spill": pressure(140), "agpr": pressure(200, "__launch_bounds__(256)")}
# metric -> metadata key of the note
NOTE_KEYS = {"vgpr_total": "vgpr_count", "agpr": "agpr_count", "sgpr": "sgpr_count",
             "vgpr_spills": "vgpr_spill_count", "sgpr_spills": "sgpr_spill_count",
             "scratch_size": "private_segment_fixed_size", "max_flat_workgroup_size": "max_flat_workgroup_size"}


@pytest.fixture(scope="module")
def built():
    """{(source, side): (asm Compiled, object bytes path)}, each built once."""
    tc = find_toolchain()
    with tempfile.TemporaryDirectory() as tmp:
        yield tc, build_sides(tc, {name: (text, []) for name, text in SOURCES.items()}, tmp, timeout=120)


def _notes(tc, obj: Path) -> list[dict[str, str]]:
    """All kernels of all NT_AMDGPU_METADATA notes (one note per LTO partition)."""
    text = run([tc.readelf, "--notes", obj], cwd=obj.parent, timeout=60).stdout
    kernels = []
    for line in text.splitlines():
        m = re.match(r"^  ([- ]) \.(\w+):\s*(\S*)", line)
        if m:
            if m.group(1) == "-":
                kernels.append({})
            kernels[-1][m.group(2)] = m.group(3)
    return kernels


def _symbols(tc, obj: Path) -> dict[str, tuple[int, int]]:
    text = run([tc.readelf, "-s", "--wide", obj], cwd=obj.parent, timeout=60).stdout
    syms = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 8 and f[0][:-1].isdigit():
            syms[f[7]] = (int(f[1], 16), int(f[2]))
    return syms


def _disassembly(tc, obj: Path, kernel: str, start: int, size: int) -> list[str]:
    """Instructions of exactly the kernel's bytes (objdump runs on into the code-end padding)."""
    text = run([tc.objdump, "-d", "--mcpu=gfx950", f"--disassemble-symbols={kernel}", obj],
               cwd=obj.parent, timeout=60).stdout
    out = []
    for line in text.splitlines():
        m = re.match(r"^\s+(\S.*?)\s*// ([0-9A-F]+):", line)
        if m and start <= int(m.group(2), 16) < start + size:
            out.append(m.group(1))
    return out


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("source", SOURCES)
def test_figures_equal_object(built, source, side):
    tc, out = built
    asm, obj = out[source, side]
    metrics = analyse(asm.asm)
    notes = {k["name"]: k for k in _notes(tc, obj)}
    syms = _symbols(tc, obj)
    assert set(metrics) == set(notes) and metrics
    for kernel, got in metrics.items():
        assert set(got) == METRIC_NAMES
        for metric, key in NOTE_KEYS.items():
            assert got[metric] == int(notes[kernel][key]), (kernel, metric)
        assert got["vgpr"] == syms[f"{kernel}.num_vgpr"][0], kernel
        body = _disassembly(tc, obj, kernel, *syms[kernel])
        mnemonics = [ins.split()[0] for ins in body]
        assert got["instructions"] == len(body), kernel
        assert got["mfma"] == sum(m.startswith("v_mfma") for m in mnemonics), kernel
        assert got["scratch_ops"] == sum(m.startswith("scratch_") for m in mnemonics), kernel
        assert got["vmcnt0"] == sum(m == "s_waitcnt" and "vmcnt(0)" in i for m, i in zip(mnemonics, body))
        assert 1 <= got["occupancy"] <= 8
        assert got["max_flat_workgroup_size"] in (256, 1024)  # __launch_bounds__(256) or none
    # what a called function's spill count is read from (its Folded Spill stores), on every kernel the metadata's
    for k in call_graphs(asm.asm):
        assert figures(KernelAsm(k.function, {}))["vgpr_spills"] == int(notes[k.name]["vgpr_spill_count"]), k.name


def test_lto_partitions_all_read(built):
    tc, out = built
    asm, obj = out["multi", LTO]
    assert len(asm.asm) >= 2, "expected several LTO partitions (asm files)"
    assert len(_notes(tc, obj)) == 4
    assert run([tc.readelf, "--notes", obj], cwd=obj.parent, timeout=60).stdout.count("NT_AMDGPU_METADATA") >= 2
    assert len(analyse(asm.asm)) == 4


def test_expected_shapes(built):
    """Spill code vs private arrays vs matrix work are told apart."""
    tc, out = built
    for side in SIDES:
        multi = analyse(out["multi", side][0].asm)
        by_plain = {demangle([k], tc)[k].split("(")[0]: v for k, v in multi.items()}
        assert by_plain["gather"]["scratch_ops"] > 0 and by_plain["gather"]["spill_ops"] == 0
        assert by_plain["gather"]["vgpr_spills"] == 0 and by_plain["gather"]["scratch_size"] > 0
        assert by_plain["mma"]["mfma"] == 2
        assert by_plain["mma"]["max_flat_workgroup_size"] == 256  # __launch_bounds__(256)
        assert by_plain["gather"]["max_flat_workgroup_size"] == 1024  # none: 1024
        assert by_plain["void incr<double>"]["scratch_ops"] == 0
        spill = analyse(out["spill", side][0].asm)["_Z5spillPfPKfi"]
        assert spill["vgpr_spills"] > 0 and spill["spill_ops"] == spill["scratch_ops"] > 0
        assert spill["vgpr"] <= 128
        agpr = analyse(out["agpr", side][0].asm)["_Z5spillPfPKfi"]
        assert agpr["agpr"] > 0 and agpr["vgpr"] == 256 and agpr["vgpr_total"] > 256


def test_one_metric_table():
    names = [m.name for m in METRICS]
    assert len(names) == len(set(names)) == len(METRIC_NAMES)
    assert all(m.description and m.label for m in METRICS)
