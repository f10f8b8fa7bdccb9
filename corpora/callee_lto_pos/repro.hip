// A kernel over a large device implementation that full LTO leaves as a call while the no-LTO
// build inlines it (issue 44), with no attribute on either: the GEMM is a template's member
// (linkonce_odr), which the LTO pre-link compile does not internalize, so its inliner has no
// reason to inline a body this large; by the LTO link, the kernel's own fully unrolled masked
// copy has over 1,100 basic blocks, the AMDGPU backend's limit for a function after inlining
// (-amdgpu-inline-max-bb). The no-LTO build inlines the GEMM before it unrolls the copy. As a
// call, the GEMM spills; inlined, it does not.
#include <hip/hip_runtime.h>

typedef float f32x16 __attribute__((ext_vector_type(16)));
typedef _Float16 f16x4 __attribute__((ext_vector_type(4)));

namespace gemm {

// Tiles x Tiles products of 32x32x8 MFMA tiles per K step into Tiles accumulators.
template <int Tiles>
struct Implementation {
  __device__ static void run(float* c, const f16x4* a, const f16x4* b, int k) {
    const int lane = threadIdx.x & 63;
    f32x16 acc[Tiles];
#pragma unroll
    for (int t = 0; t < Tiles; t++) acc[t] = f32x16{};
    for (int s = 0; s < k; s++) {
      f16x4 x[Tiles], y[Tiles];
#pragma unroll
      for (int t = 0; t < Tiles; t++) {
        x[t] = a[(s * Tiles + t) * 64 + lane];
        y[t] = b[(s * Tiles + t) * 64 + lane];
      }
#pragma unroll
      for (int i = 0; i < Tiles; i++)
#pragma unroll
        for (int j = 0; j < Tiles; j++)
          acc[(i + j) % Tiles] = __builtin_amdgcn_mfma_f32_32x32x8f16(x[i], y[j], acc[(i + j) % Tiles], 0, 0, 0);
    }
#pragma unroll
    for (int t = 0; t < Tiles; t++)
#pragma unroll
      for (int e = 0; e < 16; e++) c[(t * 16 + e) * 256 + threadIdx.x] = acc[t][e];
  }
};

}  // namespace gemm

// Copies the residual entries above a threshold into the output, then runs the GEMM.
__global__ __launch_bounds__(256) void gemm_kernel(float* c, const f16x4* a, const f16x4* b, int k,
                                                   const float* residual) {
#pragma unroll
  for (int j = 0; j < 600; j++) {
    float v = residual[j * 256 + threadIdx.x];
    if (v > 0.25f) c[j * 256 + threadIdx.x] = v;
  }
  gemm::Implementation<12>::run(c, a, b, k);
}
