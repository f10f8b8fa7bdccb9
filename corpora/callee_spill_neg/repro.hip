// A thin kernel over a large device implementation that stays a call: the shape of library
// kernels whose GEMM body full LTO leaves outside the kernel (issue 44). Here the call is kept on
// both sides by __noinline__, so both builds spill in the callee alike: a case for the call-graph
// accounting, not an LTO differential.
#include <hip/hip_runtime.h>

typedef float f32x16 __attribute__((ext_vector_type(16)));
typedef _Float16 f16x4 __attribute__((ext_vector_type(4)));

namespace gemm {

struct Problem {
  float* c;
  const f16x4* a;
  const f16x4* b;
  int k;
};

// Tiles x Tiles products of 32x32x8 MFMA tiles per K step, Tiles accumulators of 16 lanes each:
// with 12 tiles, 192 accumulator registers plus the operands do not fit beside the calling
// convention's reserved registers, and the implementation spills.
template <int Tiles>
struct Implementation {
  __device__ __noinline__ static void run(Problem p) {
    const int lane = threadIdx.x & 63;
    f32x16 acc[Tiles];
#pragma unroll
    for (int t = 0; t < Tiles; t++) acc[t] = f32x16{};
    for (int s = 0; s < p.k; s++) {
      f16x4 x[Tiles], y[Tiles];
#pragma unroll
      for (int t = 0; t < Tiles; t++) {
        x[t] = p.a[(s * Tiles + t) * 64 + lane];
        y[t] = p.b[(s * Tiles + t) * 64 + lane];
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
      for (int e = 0; e < 16; e++) p.c[(t * 16 + e) * 256 + threadIdx.x] = acc[t][e];
  }
};

}  // namespace gemm

__global__ __launch_bounds__(256) void gemm_kernel(float* c, const f16x4* a, const f16x4* b, int k) {
  gemm::Implementation<12>::run(gemm::Problem{c, a, b, k});
}
