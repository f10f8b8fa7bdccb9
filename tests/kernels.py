"""Real HIP kernels shared by the oracle tests."""

# N values live at once. 140 under the default 1024-thread bound (128 VGPRs): register spills.
# 200 under a 256-thread bound (256 VGPRs): the allocator parks values in AGPRs instead.
PRESSURE = r"""
#include <hip/hip_runtime.h>
__global__ BOUND void spill(float* __restrict__ a, const float* __restrict__ b, int n) {
  int i = threadIdx.x;
  float v[N];
#pragma unroll
  for (int j = 0; j < N; j++) v[j] = b[j * n + i];
#pragma unroll
  for (int k = 0; k < 4; k++) {
#pragma unroll
    for (int j = 0; j < N; j++) v[j] = v[j] * v[(j + 7) % N] + b[k];
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < N; j++) s += v[j] * (j + 1);
  a[i] = s;
}
"""


def pressure(n: int, bound: str = "") -> str:
    """A kernel with `n` values live at once under launch bound `bound`."""
    return f"#define N {n}\n#define BOUND {bound}\n" + PRESSURE


# pressure(140)'s spill in a quarter of its code: 16 values under an 8-VGPR limit (clang gives it 16).
# For a test whose point is a whole run's products, not the kernel: every build costs half as much.
SMALL = (16, "__attribute__((amdgpu_num_vgpr(8)))")


def pressure_in_a_loop(runtime: bool = True, n: int = 140, bound: str = "") -> str:
    """pressure(n, bound) with its middle loop kept as a loop (a runtime trip count, not unrolled):
    the spill code sits inside it. runtime=False: the plain, fully unrolled kernel."""
    text = pressure(n, bound)
    return text.replace("for (int k = 0; k < 4; k++)", "for (int k = 0; k < n; k++)").replace(
        "#pragma unroll\n  for (int k", "#pragma nounroll\n  for (int k") if runtime else text


def build_sides(tc, sources: dict[str, tuple[str, list[str]]], tmp: str, timeout: int = 300) -> dict:
    """{(name, side): (the side's assembly build, its device object's path)} for each source
    (text, flags), built once with the oracle's compiler: the metric tests read both."""
    from pathlib import Path

    from interestingness.base.process import run
    from interestingness.compiler.compile import OBJ_OUT, SIDES, Compiler, prepare_flags

    out = {}
    for name, (text, flags) in sources.items():
        comp = Compiler(tc, prepare_flags(flags, Path(tmp))[0], f"{name}.hip", tmp, timeout=timeout)
        for side in SIDES:
            asm = comp.compile(side, text.encode())
            assert asm.ok, asm.message
            work = Path(tmp, f"{name}-{side}")
            work.mkdir()
            (work / f"{name}.hip").write_text(text)
            res = run(comp.command(side, emit="obj"), cwd=work, timeout=timeout)
            assert res.returncode == 0, res.stderr
            out[name, side] = (asm, work / OBJ_OUT)
    return out
