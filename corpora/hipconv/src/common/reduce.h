// Wave- and block-level reductions shared by the normalisation and the split-K reduction
// kernels.
#pragma once

#include <hipconv/types.h>
#include <hipconv/arch/cdna4/sync.h>

namespace hipconv::common {

HIPCONV_INLINE float dpp_row_shr(float v, int n) {
  // Row shift right by n (n < 16) through DPP; out-of-row lanes read 0.
  switch (n) {
    case 1: return __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(0, __builtin_bit_cast(int, v), 0x111, 0xf, 0xf, false));
    case 2: return __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(0, __builtin_bit_cast(int, v), 0x112, 0xf, 0xf, false));
    case 4: return __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(0, __builtin_bit_cast(int, v), 0x114, 0xf, 0xf, false));
    default: return __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(0, __builtin_bit_cast(int, v), 0x118, 0xf, 0xf, false));
  }
}

template <typename T>
HIPCONV_INLINE T wave_reduce_sum(T v) {
#pragma unroll
  for (int off = 32; off > 0; off >>= 1) {
    const int src = ((cdna4::lane_id() ^ off) << 2);
    v += __builtin_bit_cast(T, __builtin_amdgcn_ds_bpermute(src, __builtin_bit_cast(int, v)));
  }
  return v;
}

template <typename T, int kThreads>
HIPCONV_INLINE T block_reduce_sum(T v, T* smem) {
  v = wave_reduce_sum(v);
  const int wave = threadIdx.x / 64;
  if (cdna4::lane_id() == 0) smem[wave] = v;
  __syncthreads();
  T r = T(0);
#pragma unroll
  for (int w = 0; w < kThreads / 64; ++w) r += smem[w];
  __syncthreads();
  return r;
}

// Kahan-compensated accumulation for the deterministic split-K reduction.
struct KahanSum {
  float sum = 0.0f;
  float c = 0.0f;
  HIPCONV_INLINE void add(float v) {
    const float y = v - c;
    const float t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }
};

} // namespace hipconv::common
