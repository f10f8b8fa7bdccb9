// Epilogue of the direct wgrad kernels: scale the per-tap accumulators and write (or
// atomically add) them into dW[k][y][x][c] (fp32), or into the split-K workspace.
#pragma once

#include <hipconv/config.h>
#include <hipconv/types.h>
#include <hipconv/arch/cdna4/mfma.h>
#include <hipconv/arch/cdna4/buffer.h>

namespace hipconv::cdna4::direct_wgrad {

// Element offset of dW[m][y][x][ch].
HIPCONV_DEVICE_EXTERN uint32_t dw_offset(const ConvParams& p, int m, int tap, int ch) {
  return uint32_t(m * int(p.dw_stride_k) + tap * p.c + ch);
}

HIPCONV_DEVICE_EXTERN float epilogue_scale(const ConvParams& p, float v) { return p.alpha * v; }

HIPCONV_DEVICE_EXTERN void store_element(float* dw, uint32_t off, float v, int split_mode) {
  if (split_mode == int(SplitMode::atomic)) {
    __hip_atomic_fetch_add(dw + off, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  } else {
    dw[off] = v;
  }
}

HIPCONV_DEVICE_EXTERN void store_element_beta(const ConvParams& p, float* dw, uint32_t off, float v) {
  // Only legal without split-K: read-modify-write of the previous gradient.
  dw[off] = p.beta != 0.0f ? v + p.beta * dw[off] : v;
}

// Write one MFMA accumulator tile (tile_rows x tile_cols of the C matrix) of tap `tap`.
template <typename Mma, int Split>
HIPCONV_INLINE void store_acc_tile(const ConvParams& p, float* dw, int m_base, int c_base, int tap,
                                   typename Mma::acc_t acc) {
  const int lane = threadIdx.x % 64;
  const int ch = c_base + Mma::acc_col(lane);
  if (ch >= p.c) return;
#pragma unroll
  for (int j = 0; j < Mma::acc_elems; ++j) {
    const int m = m_base + Mma::acc_row(lane, j);
    if (m < p.k) {
      const float v = epilogue_scale(p, acc[j]);
      if (Split == int(SplitMode::none))
        store_element_beta(p, dw, dw_offset(p, m, tap, ch), v);
      else
        store_element(dw, dw_offset(p, m, tap, ch), v, Split);
    }
  }
}

// Workspace layout for SplitMode::workspace: [split][k][taps][c] fp32.
HIPCONV_DEVICE_EXTERN uint32_t workspace_offset(const ConvParams& p, int split, int m, int tap, int ch) {
  return uint32_t(((split * p.k + m) * (p.fy * p.fx) + tap) * p.c + ch);
}

// Second pass of SplitMode::workspace: sum the partials and convert.
template <int kVec>
__global__ __launch_bounds__(256) void wgrad_reduce_splits(ConvParams p, const float* __restrict__ ws,
                                                           float* __restrict__ dw) {
  const int total = p.k * p.fy * p.fx * p.c;
  const int i = (blockIdx.x * 256 + threadIdx.x) * kVec;
  if (i >= total) return;
#pragma unroll
  for (int v = 0; v < kVec; ++v) {
    float s = 0.0f;
    for (int sp = 0; sp < p.split_k; ++sp) s += ws[sp * total + i + v];
    dw[i + v] = p.alpha * s + (p.beta != 0.0f ? p.beta * dw[i + v] : 0.0f);
  }
}

// Conversion of the fp32 weight gradient to bf16 (when the framework keeps bf16 weights).
template <typename Out>
__global__ __launch_bounds__(256) void wgrad_convert(int total, const float* __restrict__ src,
                                                     Out* __restrict__ dst) {
  const int i = blockIdx.x * 256 + threadIdx.x;
  if (i < total) dst[i] = Out(to_bf16(src[i]));
}

} // namespace hipconv::cdna4::direct_wgrad
