"""The fallback HIP shim (interestingness/compiler/shim) against real compiles: the ROCm-style corpus builds
on both sides through the oracle's compiler, every header stands alone, the historical
expansions are unchanged, math needs no device library, and the fp8 / bf16 / fp16 conversions
give the right bits (a host program built from the shim's headers, against references computed
here from the formats' definitions)."""
from __future__ import annotations

import math
import random
import re
import struct
import subprocess
from bisect import bisect_left
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import CLANG, ROOT, needs_clang22

from interestingness.compiler.compile import LTO, NOLTO, SIDES
from interestingness.oracle.spill import SpillSetup

pytestmark = needs_clang22

SHIM_DIR = ROOT / "interestingness" / "compiler" / "shim"
CORPUS = sorted((ROOT / "corpora" / "rocm_style").glob("*.hip"))
HEADERS = sorted(p.relative_to(SHIM_DIR).as_posix() for p in (SHIM_DIR / "hip").rglob("*.h"))
PUBLIC = ["hip/hip_runtime.h", "hip/hip_runtime_api.h", "hip/hip_vector_types.h", "hip/hip_fp16.h",
          "hip/hip_bf16.h", "hip/hip_fp8.h"]
DEVICE = [str(CLANG), "-x", "hip", "--offload-arch=gfx950", "-nogpuinc", "-nogpulib"]


def clang(args, src: str, tmp_path: Path, name: str = "t.hip") -> subprocess.CompletedProcess:
    (tmp_path / name).write_text(src)
    return subprocess.run([*DEVICE, *args, name], cwd=tmp_path, capture_output=True, text=True, timeout=120)


# ---- the corpus, through the oracle's own compiler ----

@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_rocm_style_corpus_builds_on_both_sides(path, tmp_path):
    assert len(CORPUS) >= 6
    o = SpillSetup(path.relative_to(ROOT), ["-std=c++20"], None, cwd=ROOT, tmp_dir=tmp_path)
    m = o.measure(path.read_bytes())
    for side in SIDES:
        c = m.compiled[side]
        assert c.ok, f"{side}: {c.message}"
        asm = "\n".join(c.asm)
        # everything inlined: no device-library or libm call left for a linker that is not there
        assert "s_swappc" not in asm and "__ocml_" not in asm, side
        assert m.metrics[side], side
    assert set(m.metrics[LTO]) == set(m.metrics[NOLTO])
    if "mfma" in path.name:
        assert all(k["mfma"] > 0 for k in m.metrics[LTO].values())


# ---- each header alone, in every language mode, warning-free on -I ----

@pytest.mark.parametrize("std", ["c++17", "c++20", "gnu++20"])
def test_every_header_compiles_alone(std, tmp_path):
    failures = []
    for header in HEADERS:
        for side in ("--offload-device-only", "--offload-host-only"):
            r = clang([f"-std={std}", "-I", str(SHIM_DIR), side, "-fsyntax-only", "-Wall", "-Wextra"],
                      f"#include <{header}>\n", tmp_path)
            if r.returncode or "warning:" in r.stderr:
                failures.append(f"{header} {side}: {r.stderr[:600]}")
    assert not failures, "\n".join(failures)


def test_historical_expansions_are_unchanged(tmp_path):
    """The corpus figures depend on these expansions: they are the shim's from before the split."""
    src = ("#include <hip/hip_runtime.h>\n"
           "Q __global__ | __device__ | __host__ | __shared__ | __constant__ | __forceinline__ | __noinline__\n"
           "Q __launch_bounds__(256) | __launch_bounds__(256, 2)\n"
           "Q threadIdx.x | blockIdx.y | blockDim.z | gridDim.x\n")
    r = clang(["-std=c++20", "-isystem", str(SHIM_DIR), "--offload-device-only", "-E", "-P"], src, tmp_path)
    assert r.returncode == 0, r.stderr
    lines = [ln[2:] for ln in r.stdout.splitlines() if ln.startswith("Q ")]
    assert lines == [
        "__attribute__((global)) | __attribute__((device)) | __attribute__((host)) | __attribute__((shared)) "
        "| __attribute__((constant)) | inline __attribute__((always_inline)) | __attribute__((noinline))",
        "__attribute__((amdgpu_flat_work_group_size(1, 256))) "
        "| __attribute__((amdgpu_flat_work_group_size(1, 256), amdgpu_waves_per_eu(2)))",
        "threadIdx.x | blockIdx.y | blockDim.z | gridDim.x",
    ]
    text = (SHIM_DIR / "hip" / "hip_runtime.h").read_text()
    for line in ("    static __device__ __forceinline__ unsigned __get_x() { return FN(x); }         \\",
                 "#define __HIP_TID(d) __builtin_amdgcn_workitem_id_##d()",
                 "#define __HIP_GDIM(d) (__builtin_amdgcn_grid_size_##d() / __builtin_amdgcn_workgroup_size_##d())",
                 "__device__ __forceinline__ void __syncthreads() { __builtin_amdgcn_s_barrier(); }"):
        assert line in text.splitlines()


def test_user_macros_do_not_break_the_headers(tmp_path):
    """Code often #defines short names before its includes; the shim (and clang's math headers it
    reads) must not use them. Not `beta`: libstdc++'s <cmath> declares std::beta, and hip_runtime.h
    includes <cmath> as ROCm does (ROCm's clang includes it ahead of the user's code, the shim from
    hip_runtime.h: a known difference)."""
    names = ("N M K T U V W B C D E F I L P Q R S X Y Z a b c d e g h i j k l m n o p q r s t u v "
             "val mask width ptr lane src dst tmp ret res idx lo hi bits sign exponent mantissa quiet "
             "grid block shmem stream f args alpha sum acc scale offset delta pred var").split()
    src = "".join(f"#define {n} @@\n" for n in names) + "".join(f"#include <{h}>\n" for h in PUBLIC)
    for side in ("--offload-device-only", "--offload-host-only"):
        r = clang(["-std=c++20", "-isystem", str(SHIM_DIR), side, "-fsyntax-only"], src, tmp_path)
        assert r.returncode == 0, r.stderr[:2000]


def test_a_users_hip_runtime_wins_and_the_other_headers_still_fit(tmp_path):
    """The oracle puts the shim after the user's directories (-idirafter): a user's own
    hip/hip_runtime.h is used, and the shim supplies only what it lacks (here hip_fp16.h and
    hip_bf16.h), next to it."""
    user = tmp_path / "user" / "hip"
    user.mkdir(parents=True)
    (user / "hip_runtime.h").write_text(
        "#pragma once\n#define USER_HIP_RUNTIME 1\n"
        "#define __global__ __attribute__((global))\n#define __device__ __attribute__((device))\n"
        "#define __host__ __attribute__((host))\n#define __shared__ __attribute__((shared))\n"
        "struct dim3 { unsigned x, y, z; };\n"
        "__device__ inline unsigned user_tid() { return __builtin_amdgcn_workitem_id_x(); }\n")
    src = ("#include <hip/hip_runtime.h>\n#include <hip/hip_fp16.h>\n#include <hip/hip_bf16.h>\n"
           "static_assert(USER_HIP_RUNTIME, \"the user's header\");\n"
           "__global__ void k(__half* h, __hip_bfloat16* b) {\n"
           "  h[user_tid()] = __hadd(h[0], __float2half(1.0f)); b[user_tid()] = __float2bfloat16(2.0f); }\n")
    r = clang(["-std=c++20", "-O3", "-I", str(tmp_path / "user"), "-idirafter", str(SHIM_DIR),
               "--offload-device-only", "-fno-offload-lto", "-S", "-o", "t.s", "-Werror"], src, tmp_path)
    assert r.returncode == 0, r.stderr[:2000]


# ---- ROCm's API shapes ----

API = r"""
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp8.h>
#include <cmath>
#include <type_traits>
static_assert(warpSize == 64, "wave64 on gfx9");
static_assert(sizeof(float4) == 16 && alignof(float4) == 16 && sizeof(float3) == 12 && alignof(float3) == 4, "");
static_assert(sizeof(double2) == 16 && sizeof(char4) == 4 && alignof(uchar2) == 2 && sizeof(longlong4) == 32, "");
static_assert(sizeof(__half) == 2 && sizeof(__half2) == 4 && sizeof(__hip_bfloat16) == 2 && sizeof(__hip_bfloat162) == 4, "");
static_assert(sizeof(__hip_fp8_e4m3) == 1 && sizeof(__hip_fp8x4_e5m2) == 4 && sizeof(__hip_fp8x2_e4m3_fnuz) == 2, "");
static_assert(std::is_same_v<half, __half> && hipSuccess == 0 && hipErrorInvalidValue == 1, "");
static_assert(__builtin_amdgcn_processor_is("gfx950") == defined_gfx950, "");
struct Tile { int data[warpSize]; };
struct __align__(16) Aligned { float v[4]; };
static_assert(alignof(Aligned) == 16, "");
__managed__ int g_managed;
__constant__ float g_table[16];
__global__ __launch_bounds__(256, 2) void k(float* out, const float4* in, __half* h, __hip_bfloat16* b,
                                           unsigned long long* mask, int* counter, double* d) {
  HIP_DYNAMIC_SHARED(float, dyn)
  int lane = __lane_id();
  const float* __restrict__ table = g_table;
  float v = in[threadIdx.x].x + in[threadIdx.x].w + table[lane & 15] + dyn[lane] + g_managed;
  printf("lane %d: %f\n", lane, v);
  assert(lane < warpSize);
  v += __shfl_xor(v, 1) + __shfl_down(v, 2u) + __shfl_up(v, 4u) + __shfl(v, 0);
  v += __shfl_xor_sync(0xffffffffffffffffull, v, 8) + __shfl_down(d[0], 1u) + __shfl(1ll, 3);
  mask[0] = __ballot(v > 0) | __activemask() | __ballot_sync(~0ull, lane & 1);
  atomicAdd(out, v); atomicMax(counter, lane); atomicCAS(counter + 1, 0, 1); atomicAdd(d, 1.0);
  atomicSub(counter + 2, 1); atomicExch(out + 1, v); atomicMin(out + 2, v); atomicOr(counter + 3, 4);
  atomicInc(reinterpret_cast<unsigned*>(counter + 4), 16u);
  __threadfence(); __threadfence_block(); __syncthreads();
  v += expf(v) + __expf(v) + exp2f(v) + logf(v) + sqrtf(v) + rsqrtf(v) + fmaxf(v, 1) + fminf(v, 2) + fabsf(v)
     + tanhf(v) + powf(v, 3) + sinf(v) + __sinf(v) + erff(v) + atan2f(v, 2) + std::exp(v) + std::tanh(v) + max(v, 1.f);
  d[1] = exp(d[0]) + log(d[0]) + pow(d[0], 2.5) + sin(d[0]) + tanh(d[0]) + std::sqrt(d[0]) + cbrt(d[0]);
  v += __popc(lane) + __popcll(mask[0]) + __ffs(lane) + __clz(lane) + __brev(lane) + __float_as_int(v);
  __half2 h2 = __float22half2_rn(make_float2(v, v));
  h[0] = __hadd(__low2half(h2), __float2half(v)) * __hmul(h[1], h[2]) + hexp(h[3]);
  b[0] = __hfma(b[1], __float2bfloat16(v), b[2]) + __shfl_xor(b[3], 1);
  __hip_fp8_e4m3 q(v);
  __hip_fp8x2_e5m2 q2(make_float2(v, v));
  float2 f2 = q2;
  out[threadIdx.x] = v + float(q) + f2.y + __half2float(__shfl_down(h[0], 1u));
  if (__builtin_amdgcn_is_invocable(__builtin_amdgcn_ds_bpermute))
    out[0] = __builtin_amdgcn_ds_bpermute(4, lane);
}
void host(float* d_out, hipStream_t s) {
  float* p = nullptr;
  (void)hipMalloc(&p, 16);
  (void)hipMemcpy(p, d_out, 16, hipMemcpyDeviceToHost);
  hipDeviceProp_t prop;
  (void)hipGetDeviceProperties(&prop, 0);
  hipLaunchKernelGGL(k, dim3(1), dim3(256), 0, s, d_out, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
  k<<<dim3(2), 256, 0, s>>>(d_out, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
  (void)hipStreamSynchronize(s);
  (void)hipGetErrorString(hipGetLastError());
}
"""


@pytest.mark.parametrize("side", ["--offload-device-only", "--offload-host-only"])
def test_rocm_api_shapes_compile(side, tmp_path):
    device = side == "--offload-device-only"
    output = ["-fno-offload-lto", "-S", "-o", "t.s"] if device else ["-c", "-o", "t.o"]  # as the oracle: no device link
    r = clang(["-std=c++20", "-O3", "-isystem", str(SHIM_DIR), side, *output, f"-Ddefined_gfx950={int(device)}"],
              API, tmp_path)
    assert r.returncode == 0, r.stderr[:3000]


HOST_MATH = r"""
#include <hip/hip_runtime.h>
#include <vector>
__global__ void k(float* a) { a[threadIdx.x] = fabsf(a[threadIdx.x]); }
int count_errors(const std::vector<float>& x, const std::vector<float>& y, float eps) {
  int errors = 0;
  for (size_t i = 0; i < x.size(); ++i) errors += (std::fabs(x[i] - y[i]) > eps) + (std::abs(int(i)) < 0);
  return errors;
}
"""


@pytest.mark.parametrize("side", ["--offload-device-only", "--offload-host-only"])
def test_host_code_gets_the_std_math_overloads_through_hip_runtime(side, tmp_path):
    """Real examples (rocm-examples' warp_shuffle) call std::fabs in host code with only
    <hip/hip_runtime.h> included: ROCm brings in <cmath> and <cstdlib>, so the shim must too."""
    r = clang(["-std=c++20", "-O3", "-isystem", str(SHIM_DIR), side, "-fsyntax-only"], HOST_MATH, tmp_path)
    assert r.returncode == 0, r.stderr[:3000]


def test_rocm_rejects_what_the_shim_rejects(tmp_path):
    """A 32-bit mask in wave64 device code is an error in ROCm 7; so it is here."""
    src = "#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[0] = __shfl_xor_sync(0xffffffffu, p[0], 1); }\n"
    r = clang(["-std=c++20", "-isystem", str(SHIM_DIR), "--offload-device-only", "-fsyntax-only"], src, tmp_path)
    assert r.returncode != 0 and "The mask must be a 64-bit integer" in r.stderr


MATH_F = ("expf exp2f exp10f expm1f logf log2f log10f log1pf sqrtf rsqrtf cbrtf rcbrtf fabsf sinf cosf tanf "
          "sinpif cospif asinf acosf atanf sinhf coshf tanhf asinhf acoshf atanhf erff erfcf erfcxf normcdff "
          "floorf ceilf truncf roundf rintf nearbyintf __expf __logf __log2f __log10f __exp10f __sinf __cosf "
          "__tanf __saturatef __frcp_rn __fsqrt_rn __frsqrt_rn").split()
MATH_F2 = "powf fmaxf fminf fmodf atan2f hypotf rhypotf fdimf copysignf __powf __fdividef remainderf nextafterf".split()
MATH_D = ("exp exp2 exp10 expm1 log log2 log10 log1p sqrt rsqrt cbrt fabs sin cos tan sinpi cospi asin acos atan "
          "sinh cosh tanh asinh acosh atanh erf erfc floor ceil trunc round rint").split()
MATH_D2 = "pow fmax fmin fmod atan2 hypot fdim copysign remainder nextafter".split()


def test_math_links_with_no_device_library(tmp_path):
    """Every common math function of float and double, and their std:: forms, through a real
    full-LTO device link (an object file, which resolves every symbol): nothing is left for the
    device library the shim does not have."""
    body = " ".join([f"f += {n}(f);" for n in MATH_F] + [f"f += {n}(f, 0.5f);" for n in MATH_F2]
                    + [f"d += {n}(d);" for n in MATH_D] + [f"d += {n}(d, 0.5);" for n in MATH_D2]
                    + [f"f += std::{n}(f);" for n in ("exp", "tanh", "sqrt", "erf", "atan", "pow(f, 2.0f) + std::abs")])
    src = ("#include <hip/hip_runtime.h>\n#include <cmath>\n"
           "__global__ void k(float* pf, double* pd) { float f = pf[threadIdx.x]; double d = pd[threadIdx.x]; "
           "int e; float ip; double dip; f += frexpf(f, &e) + ldexpf(f, e) + modff(f, &ip) + ip + powif(f, 3); "
           "d += frexp(d, &e) + ldexp(d, e) + modf(d, &dip) + dip + powi(d, 3); sincosf(f, &f, &ip); "
           + body + " pf[threadIdx.x] = f; pd[threadIdx.x] = d; }\n")
    r = clang(["-std=c++20", "-O3", "-isystem", str(SHIM_DIR), "--offload-device-only", "-foffload-lto=full",
               "-c", "-o", "t.o"], src, tmp_path)
    assert r.returncode == 0, r.stderr[:3000]


def test_math_without_a_fallback_is_a_compile_error(tmp_path):
    src = "#include <hip/hip_runtime.h>\n__global__ void k(float* p) { p[0] = lgammaf(p[1]); }\n"
    r = clang(["-std=c++20", "-O3", "-isystem", str(SHIM_DIR), "--offload-device-only", "-S", "-o", "t.s"],
              src, tmp_path)
    assert r.returncode != 0 and "needs ROCm's device library" in r.stderr


def test_every_ocml_function_of_clangs_math_headers_is_defined(tmp_path):
    """clang's __clang_hip_math.h calls __ocml_* functions of the device library; the shim must
    define each (as a fallback or as a compile-error stub), or a call would be left unresolved."""
    resource = subprocess.run([str(CLANG), "-print-resource-dir"], capture_output=True, text=True).stdout.strip()
    used = set(re.findall(r"__ocml_\w+", Path(resource, "include", "__clang_hip_math.h").read_text()))
    r = clang(["-std=c++20", "-isystem", str(SHIM_DIR), "--offload-device-only", "-E", "-P"],
              "#include <hip/amd_detail/amd_math_functions.h>\n", tmp_path)
    assert r.returncode == 0, r.stderr
    defined = set(re.findall(r"inline\s+\w+\s+(__ocml_\w+)\s*\(", r.stdout))
    assert used and not used - defined, sorted(used - defined)


# ---- conversions, checked on the host against the formats' definitions ----

CONV = r"""
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp8.h>
#include <cstdio>
#include <cstring>
static unsigned bits(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
int main() {
  unsigned u;
  while (std::scanf("%x", &u) == 1) {
    float f;
    std::memcpy(&f, &u, 4);
    std::printf("%08x", u);
    for (int interp = 0; interp < 4; ++interp)
      for (int sat = 0; sat < 2; ++sat) {
        __hip_fp8_storage_t q = __hip_cvt_float_to_fp8(f, (__hip_saturation_t)sat, (__hip_fp8_interpretation_t)interp);
        std::printf(" %02x:%08x", q, bits(__hip_cvt_fp8_to_float(q, (__hip_fp8_interpretation_t)interp)));
      }
    __hip_fp8_e4m3 s4(f);
    __hip_fp8_e5m2 s5(f);
    std::printf(" %02x:%08x %02x:%08x", s4.__x, bits(float(s4)), s5.__x, bits(float(s5)));
    __hip_bfloat16 b = __float2bfloat16(f);
    std::printf(" %04x:%08x", __bfloat16_as_ushort(b), bits(__bfloat162float(b)));
    __half h = __float2half(f);
    std::printf(" %04x:%08x %04x %04x %04x\n", __half_as_ushort(h), bits(__half2float(h)),
                __half_as_ushort(__float2half_rz(f)), __half_as_ushort(__float2half_rd(f)),
                __half_as_ushort(__float2half_ru(f)));
  }
}
"""


FLT_MAX = 3.4028234663852886e38


def f32(b: int) -> float:
    return struct.unpack("<f", struct.pack("<I", b))[0]


def b32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


class Format:
    """A small binary float format, from its definition: every positive finite value with its code,
    the codes of NaN and infinity, and how overflow behaves."""

    def __init__(self, name, exp_bits, man_bits, bias, max_code, nan, inf, fnuz=False):
        self.name, self.man_bits, self.fnuz = name, man_bits, fnuz
        self.nan, self.inf, self.max_code = nan, inf, max_code
        self.sign_bit = 1 << (exp_bits + man_bits)
        self.pos = []  # (exact value, code), increasing
        for code in range(max_code + 1):
            e, m = code >> man_bits, code & ((1 << man_bits) - 1)
            v = Fraction(m, 1 << man_bits) * Fraction(2) ** (1 - bias) if e == 0 else \
                (1 + Fraction(m, 1 << man_bits)) * Fraction(2) ** (e - bias)
            self.pos.append((v, code))
        self.values = [v for v, _ in self.pos]
        self.max = self.values[-1]

    def decode(self, code: int) -> float:
        if self.fnuz and code == self.sign_bit:
            return math.nan
        mag = code & (self.sign_bit - 1)
        if mag > self.max_code:
            return math.inf * (-1 if code & self.sign_bit else 1) if mag == self.inf else math.nan
        v = float(self.values[mag])
        return -v if code & self.sign_bit else v

    def _signed(self, neg: bool, mag_code: int) -> int:
        if mag_code == 0 and self.fnuz:
            return 0  # no -0 in the fnuz formats
        return mag_code | (self.sign_bit if neg else 0)

    def nearest(self, x: Fraction) -> int:
        """Magnitude code nearest to x >= 0, ties to the even code (IEEE), unbounded above."""
        i = bisect_left(self.values, x)
        if i < len(self.values) and self.values[i] == x:
            return self.pos[i][1]
        lo, hi = self.pos[i - 1], self.pos[i] if i < len(self.pos) else None
        if hi is None:  # above the largest finite value: the next one would be one ulp further
            ulp = self.values[-1] - self.values[-2]
            hi = (self.max + ulp, self.max_code + 1)
        dl, dh = x - lo[0], hi[0] - x
        return lo[1] if dl < dh or (dl == dh and lo[1] % 2 == 0) else hi[1]


E4M3 = Format("e4m3", 4, 3, 7, 0x7E, nan=0x7F, inf=None)
E5M2 = Format("e5m2", 5, 2, 15, 0x7B, nan=0x7F, inf=0x7C)
E4M3_FNUZ = Format("e4m3_fnuz", 4, 3, 8, 0x7F, nan=0x80, inf=None, fnuz=True)
E5M2_FNUZ = Format("e5m2_fnuz", 5, 2, 16, 0x7F, nan=0x80, inf=None, fnuz=True)
FP8 = [E4M3, E5M2, E4M3_FNUZ, E5M2_FNUZ]  # __hip_fp8_interpretation_t order
HALF = Format("half", 5, 10, 15, 0x7BFF, nan=0x7E00, inf=0x7C00)
BF16 = Format("bf16", 8, 7, 127, 0x7F7F, nan=0x7FC0, inf=0x7F80)


def ref_fp8(x: float, fmt: Format, sat: bool) -> int:
    """ROCm's rules: NaN stays NaN; infinity is never saturated (e4m3 and fnuz have none: NaN);
    a magnitude above the maximum saturates, or else becomes NaN / infinity; otherwise round to
    nearest even, keeping the sign of zero in the OCP formats."""
    neg = math.copysign(1.0, x) < 0
    sign = fmt.sign_bit if neg else 0
    overflow = fmt.nan if fmt.fnuz else sign | (fmt.inf if fmt.inf is not None else fmt.nan)
    if math.isnan(x):
        return fmt.nan if fmt.fnuz else sign | fmt.nan
    if math.isinf(x):
        return overflow
    a = Fraction(abs(x))
    if a > fmt.max:
        return fmt._signed(neg, fmt.max_code) if sat else overflow
    return fmt._signed(neg, fmt.nearest(a))


def ref_ieee16(x: float, fmt: Format, mode: str = "rn") -> int:
    """IEEE rounding of a float to half / bfloat16 (NaN: any NaN code is accepted by the caller)."""
    neg = math.copysign(1.0, x) < 0
    sign = fmt.sign_bit if neg else 0
    if math.isinf(x):
        return sign | fmt.inf
    a = Fraction(abs(x))
    up = (mode == "ru" and not neg) or (mode == "rd" and neg)  # away from zero
    if mode == "rn":
        code = fmt.nearest(a)
        return sign | (fmt.inf if code > fmt.max_code else code)
    i = bisect_left(fmt.values, a)
    if i < len(fmt.values) and fmt.values[i] == a:
        return sign | fmt.pos[i][1]
    if i == len(fmt.values):  # beyond the largest finite value
        return sign | (fmt.inf if up else fmt.max_code)
    return sign | fmt.pos[i if up else i - 1][1]


def conversion_inputs() -> list[int]:
    """Float bit patterns: every fp8 value and midpoint (ties), the subnormal range, binade edges
    and the top of half and bfloat16, each also one float ulp either side; overflow, float
    subnormals, infinities, NaNs (quiet and signalling), and seeded random values."""
    rng = random.Random(13)
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, 3.0, 1e-3, 0.1, -2.75, 1 / 3, 123.456, -7.0e4]
    for fmt in (*FP8, HALF, BF16):
        n = len(fmt.pos)
        if n < 200:
            picks = range(n - 1)
        else:  # subnormals and the first normals, each binade's ends, the top, and a random sample
            per = 1 << fmt.man_bits
            picks = {*range(per + 8), *range(n - 9, n - 1), *rng.sample(range(n - 1), 200)}
            picks |= {i for e in range(1, n // per) for i in (e * per - 1, e * per)}
        for i in sorted(picks):
            for v in (fmt.values[i], (fmt.values[i] + fmt.values[i + 1]) / 2):
                f = float(v)
                vals += [f, -f, f32(b32(f) + 1), f32(b32(f) - 1) if f > 0 else f]
        ulp = fmt.values[-1] - fmt.values[-2]
        for v in (fmt.max, fmt.max + ulp / 2, fmt.max + ulp, 2 * fmt.max):
            if v < FLT_MAX:  # bfloat16's top is float's
                f = float(v)
                vals += [f, -f, f32(b32(f) + 1), f32(b32(f) - 1)]
    vals += [f32(1), f32(0x7FFFFF), -f32(0x00400000), 1e-30, 3.4e38, -3.4e38]  # float subnormals, extremes
    vals += [rng.uniform(-600, 600) for _ in range(300)]
    vals += [rng.uniform(-1, 1) * 2.0 ** rng.randint(-30, 20) for _ in range(300)]
    out = sorted({b32(v) for v in vals if abs(v) <= FLT_MAX})
    return out + [0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FBFFFFF]


@pytest.fixture(scope="module")
def conversions(tmp_path_factory):
    d = tmp_path_factory.mktemp("conv")
    (d / "conv.hip").write_text(CONV)
    subprocess.run([*DEVICE, "-std=c++20", "-O1", "-isystem", str(SHIM_DIR), "--offload-host-only", "-c",
                    "-o", "conv.o", "conv.hip"], cwd=d, check=True, capture_output=True, timeout=120)
    subprocess.run([str(CLANG), "conv.o", "-o", "conv"], cwd=d, check=True, capture_output=True, timeout=120)
    inputs = conversion_inputs()
    out = subprocess.run([str(d / "conv")], input="\n".join(f"{u:08x}" for u in inputs), capture_output=True,
                         text=True, check=True, timeout=60).stdout.split("\n")
    rows = [ln.split() for ln in out if ln]
    assert len(rows) == len(inputs)
    return rows


def same(actual_bits: int, expected: float) -> bool:
    a = f32(actual_bits)
    return math.isnan(a) if math.isnan(expected) else b32(a) == b32(expected)


def test_fp8_conversions(conversions):
    bad = []
    for row in conversions:
        x = f32(int(row[0], 16))
        for i, fmt in enumerate(FP8):
            for sat in (0, 1):
                code, back = (int(t, 16) for t in row[1 + 2 * i + sat].split(":"))
                want = ref_fp8(x, fmt, bool(sat))
                if code != want or not same(back, fmt.decode(code)):
                    bad.append(f"{x!r} -> {fmt.name} sat={sat}: {code:02x}/{f32(back)!r}, want {want:02x}")
        for fmt, col in ((E4M3, 9), (E5M2, 10)):  # the types' constructors saturate (ROCm's default)
            code, back = (int(t, 16) for t in row[col].split(":"))
            if code != ref_fp8(x, fmt, True) or not same(back, fmt.decode(code)):
                bad.append(f"{x!r} -> __hip_fp8_{fmt.name}: {code:02x}")
    assert not bad, f"{len(bad)} wrong, e.g.\n" + "\n".join(bad[:20])


def test_bf16_and_half_conversions(conversions):
    bad = []
    for row in conversions:
        x = f32(int(row[0], 16))
        bcode, bback = (int(t, 16) for t in row[11].split(":"))
        hcode, hback = (int(t, 16) for t in row[12].split(":"))
        if math.isnan(x):
            ok = (bcode & 0x7FFF) > 0x7F80 and (hcode & 0x7FFF) > 0x7C00 and math.isnan(f32(bback)) \
                and math.isnan(f32(hback))
            if not ok:
                bad.append(f"NaN {row[0]}: bf16 {bcode:04x}, half {hcode:04x}")
            continue
        if bcode != ref_ieee16(x, BF16) or not same(bback, BF16.decode(bcode)):
            bad.append(f"{x!r} -> bf16 {bcode:04x}, want {ref_ieee16(x, BF16):04x}")
        if hcode != ref_ieee16(x, HALF) or not same(hback, HALF.decode(hcode)):
            bad.append(f"{x!r} -> half {hcode:04x}, want {ref_ieee16(x, HALF):04x}")
        if not math.isinf(x) and abs(x) < 65504:
            assert struct.unpack("<H", struct.pack("<e", x))[0] == ref_ieee16(x, HALF)  # the reference, checked
        for col, mode in ((13, "rz"), (14, "rd"), (15, "ru")):
            if int(row[col], 16) != ref_ieee16(x, HALF, mode):
                bad.append(f"{x!r} -> half_{mode} {row[col]}, want {ref_ieee16(x, HALF, mode):04x}")
    assert not bad, f"{len(bad)} wrong, e.g.\n" + "\n".join(bad[:20])
