// rownorm.hip -- row-wise normalisation kernels (LayerNorm / RMSNorm forward) for bf16
// activations, fp32 statistics.
#include <hip/hip_runtime.h>
#include <stdint.h>

namespace rownorm {

using bf16x4_t = __attribute__((ext_vector_type(4))) __bf16;
using f32x4_t = __attribute__((ext_vector_type(4))) float;

struct NormParams {
  int rows;
  int cols;
  float eps;
  bool affine;
};

// Host-side diagnostics hook: counts how often an epsilon had to be clamped.
void report_clamped_eps(float requested, float used);

constexpr float kMinEps = 1e-12f;

__host__ __device__ inline float effective_eps(float eps) {
  if (eps < kMinEps) {
    report_clamped_eps(eps, kMinEps);
    return kMinEps;
  }
  return eps;
}

__device__ inline float to_f32(__bf16 v) { return static_cast<float>(v); }
__device__ inline __bf16 to_bf16(float v) { return static_cast<__bf16>(v); }

// Butterfly exchange through ds_bpermute (the shim has no __shfl_xor).
__device__ inline float shfl_xor(float v, int mask) {
  const int lane = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
  const int src = (lane ^ mask) << 2;
  return __builtin_bit_cast(float, __builtin_amdgcn_ds_bpermute(src, __builtin_bit_cast(int, v)));
}

__device__ float warp_sum(float v) {
#pragma unroll
  for (int off = 32; off > 0; off >>= 1) v += shfl_xor(v, off);
  return v;
}

template <int kThreads>
__device__ float block_sum(float v, float* scratch) {
  const int lane = threadIdx.x % 64;
  const int wave = threadIdx.x / 64;
  v = warp_sum(v);
  if (lane == 0) scratch[wave] = v;
  __syncthreads();
  float r = 0.0f;
#pragma unroll
  for (int w = 0; w < kThreads / 64; ++w) r += scratch[w];
  __syncthreads();
  return r;
}

template <int kThreads, bool kRms>
__global__ __launch_bounds__(kThreads, 2) void norm_fwd(NormParams p, const __bf16* __restrict__ x,
                                                        const float* __restrict__ gamma,
                                                        const float* __restrict__ beta, __bf16* __restrict__ y,
                                                        float* __restrict__ mean_out, float* __restrict__ rstd_out) {
  __shared__ float scratch[kThreads / 64];
  const int row = blockIdx.x;
  if (row >= p.rows) return;
  const __bf16* xr = x + int64_t(row) * p.cols;
  __bf16* yr = y + int64_t(row) * p.cols;

  float sum = 0.0f, sq = 0.0f;
  for (int c = threadIdx.x; c < p.cols; c += kThreads) {
    const float v = to_f32(xr[c]);
    sum += v;
    sq += v * v;
  }
  sum = block_sum<kThreads>(sum, scratch);
  sq = block_sum<kThreads>(sq, scratch);

  const float inv_n = 1.0f / float(p.cols);
  const float mean = kRms ? 0.0f : sum * inv_n;
  const float var = sq * inv_n - mean * mean;
  const float rstd = __builtin_amdgcn_rsqf(var + effective_eps(p.eps));

  for (int c = threadIdx.x; c < p.cols; c += kThreads) {
    float v = (to_f32(xr[c]) - mean) * rstd;
    if (p.affine) v = v * gamma[c] + (kRms ? 0.0f : beta[c]);
    yr[c] = to_bf16(v);
  }
  if (threadIdx.x == 0) {
    if (mean_out) mean_out[row] = mean;
    rstd_out[row] = rstd;
  }
}

// Vectorised variant for cols % 4 == 0: no statistics output.
template <int kThreads>
__global__ __launch_bounds__(kThreads) void norm_fwd_vec4(NormParams p, const bf16x4_t* __restrict__ x,
                                                          const f32x4_t* __restrict__ gamma, bf16x4_t* __restrict__ y) {
  __shared__ float scratch[kThreads / 64];
  const int row = blockIdx.x;
  const int cols4 = p.cols / 4;
  const bf16x4_t* xr = x + int64_t(row) * cols4;
  float sq = 0.0f;
  for (int c = threadIdx.x; c < cols4; c += kThreads) {
    const bf16x4_t v = xr[c];
#pragma unroll
    for (int i = 0; i < 4; ++i) sq += to_f32(v[i]) * to_f32(v[i]);
  }
  sq = block_sum<kThreads>(sq, scratch);
  const float rstd = __builtin_amdgcn_rsqf(sq / float(p.cols) + 1e-6f);
  for (int c = threadIdx.x; c < cols4; c += kThreads) {
    const bf16x4_t v = xr[c];
    const f32x4_t g = gamma[c];
    bf16x4_t o;
#pragma unroll
    for (int i = 0; i < 4; ++i) o[i] = to_bf16(to_f32(v[i]) * rstd * g[i]);
    y[int64_t(row) * cols4 + c] = o;
  }
}

inline int pick_threads(int cols) { return cols >= 4096 ? 512 : 256; }

hipError_t layer_norm_fwd(const NormParams& p, const void* x, const float* gamma, const float* beta, void* y,
                          float* mean, float* rstd, hipStream_t stream) {
  const dim3 grid(p.rows);
  if (pick_threads(p.cols) == 512) {
    norm_fwd<512, false><<<grid, dim3(512), 0, stream>>>(p, static_cast<const __bf16*>(x), gamma, beta,
                                                        static_cast<__bf16*>(y), mean, rstd);
  } else {
    norm_fwd<256, false><<<grid, dim3(256), 0, stream>>>(p, static_cast<const __bf16*>(x), gamma, beta,
                                                        static_cast<__bf16*>(y), mean, rstd);
  }
  return hipSuccess;
}

hipError_t rms_norm_fwd(const NormParams& p, const void* x, const float* gamma, void* y, float* rstd,
                        hipStream_t stream) {
  if (p.cols % 4 == 0 && rstd == nullptr) {
    norm_fwd_vec4<256><<<dim3(p.rows), dim3(256), 0, stream>>>(p, static_cast<const bf16x4_t*>(x),
                                                               reinterpret_cast<const f32x4_t*>(gamma),
                                                               static_cast<bf16x4_t*>(y));
    return hipSuccess;
  }
  norm_fwd<256, true><<<dim3(p.rows), dim3(256), 0, stream>>>(p, static_cast<const __bf16*>(x), gamma, nullptr,
                                                             static_cast<__bf16*>(y), nullptr, rstd);
  return hipSuccess;
}

}  // namespace rownorm
