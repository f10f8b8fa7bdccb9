// Row-wise softmax in the style of MIOpen's HIP kernels: extern "C" entry points with
// __launch_bounds__(256, 2) (at most 256 threads, 2 waves per EU), compile-time THREADS / NumWarps
// derived from warpSize, a butterfly wavefront reduction, a block reduction through LDS, expf /
// fmaxf / __expf, std::numeric_limits, optional log-softmax, and half output through
// __float2half. One block per row; rows longer than the block are strided.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>

#include <cstdint>
#include <limits>
#include <type_traits>

#ifndef THREADS
#define THREADS 256
#endif

namespace {

constexpr float plus_op(float a, float b) { return a + b; }
__device__ inline float max_op(float a, float b) { return fmaxf(a, b); }

template <uint32_t Width, typename Op>
__device__ __forceinline__ float wave_reduce(float v, Op op) {
  static_assert((Width & (Width - 1)) == 0, "Width must be a power of two");
#pragma unroll
  for (uint32_t mask = Width / 2; mask > 0; mask /= 2) v = op(v, __shfl_xor(v, mask, Width));
  return v;
}

template <uint32_t NumWarps, typename Op>
__device__ __forceinline__ float block_reduce(float v, Op op, float init) {
  static_assert(NumWarps <= warpSize);
  __shared__ float partials[NumWarps];
  const uint32_t lane = threadIdx.x % warpSize;
  const uint32_t warp = threadIdx.x / warpSize;
  v = wave_reduce<warpSize>(v, op);
  if (lane == 0) partials[warp] = v;
  __syncthreads();
  v = lane < NumWarps ? partials[lane] : init;
  v = wave_reduce<NumWarps>(v, op);
  __syncthreads();  // partials is reused by the next reduction
  return v;
}

template <bool LogSoftmax, bool FastExp, typename OutT>
__device__ void softmax_row(const float* __restrict__ in, OutT* __restrict__ out, uint32_t cols, float scale) {
  static_assert(THREADS % warpSize == 0);
  constexpr uint32_t NumWarps = THREADS / warpSize;
  const float* row_in = in + static_cast<uint64_t>(blockIdx.x) * cols;
  OutT* row_out = out + static_cast<uint64_t>(blockIdx.x) * cols;

  float local_max = std::numeric_limits<float>::lowest();
  for (uint32_t c = threadIdx.x; c < cols; c += THREADS) local_max = fmaxf(local_max, row_in[c] * scale);
  const float row_max = block_reduce<NumWarps>(local_max, max_op, std::numeric_limits<float>::lowest());

  float local_sum = 0.0f;
  for (uint32_t c = threadIdx.x; c < cols; c += THREADS) {
    const float x = row_in[c] * scale - row_max;
    local_sum += FastExp ? __expf(x) : expf(x);
  }
  const float row_sum = block_reduce<NumWarps>(local_sum, plus_op, 0.0f);
  const float inv_sum = 1.0f / row_sum;
  const float log_sum = logf(row_sum);

  for (uint32_t c = threadIdx.x; c < cols; c += THREADS) {
    const float x = row_in[c] * scale - row_max;
    const float y = LogSoftmax ? x - log_sum : (FastExp ? __expf(x) : expf(x)) * inv_sum;
    if constexpr (std::is_same_v<OutT, __half>) row_out[c] = __float2half(y);
    else row_out[c] = y;
  }
}

}  // namespace

extern "C" __global__ void __launch_bounds__(THREADS, 2)
    SoftmaxFwdFloat(const float* __restrict__ in, float* __restrict__ out, uint32_t cols, float scale) {
  softmax_row<false, false>(in, out, cols, scale);
}

extern "C" __global__ void __launch_bounds__(THREADS, 2)
    LogSoftmaxFwdFloat(const float* __restrict__ in, float* __restrict__ out, uint32_t cols, float scale) {
  softmax_row<true, false>(in, out, cols, scale);
}

extern "C" __global__ void __launch_bounds__(THREADS, 2)
    SoftmaxFwdHalfFast(const float* __restrict__ in, __half* __restrict__ out, uint32_t cols, float scale) {
  softmax_row<false, true>(in, out, cols, scale);
}
