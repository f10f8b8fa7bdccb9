// hipconv: direct convolution kernels for AMD CDNA GPUs.
//
// config.h -- compile-time kernel configuration and the runtime parameter blocks that the
// host side hands to every kernel family (direct_fwd, direct_wgrad, direct_dgrad).
//
// A kernel is specialised on a `Config` value (C++20 class-type NTTP). Tables of configs
// live next to each kernel family (see src/direct_wgrad/config_table.h) and the tuning
// database refers to entries by index, so never reorder an existing table: append.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <hip/hip_runtime.h>

#include <hipconv/version.h>

namespace hipconv {

enum class DataType : int { f32 = 0, f16 = 1, bf16 = 2, i8 = 3 };
enum class Layout : int { nchw = 0, nhwc = 1, chwn = 2 };
enum class Direction : int { fwd = 0, dgrad = 1, wgrad = 2 };

// Which reduction the epilogue performs on the partial weight gradients.
enum class SplitMode : int {
  none = 0,     // one workgroup owns the whole GEMM-K range, plain stores
  atomic = 1,   // split GEMM-K over gridDim.y, fp32 atomics into the output
  workspace = 2 // split GEMM-K, write partials to the workspace, reduce in a second kernel
};

// Compile-time configuration of one direct-convolution kernel instance.
//
//  fy, fx       filter height / width handled by the kernel (all taps of the filter are
//               accumulated by the same workgroup: one accumulator set per tap)
//  waves_m/n    arrangement of the four waves of a workgroup over the output tile
//  rep_m/n      number of MFMA tiles per wave along M (output channels K) / N (input
//               channels C)
//  k_steps      MFMA K-steps per pipeline stage (a stage covers k_steps*mfma_k positions)
//  mfma         MFMA shape: 16 -> 16x16x32 bf16, 32 -> 32x32x16 bf16
//  waves_per_eu occupancy hint passed to __launch_bounds__
//  split        SplitMode
//  lds_pad      extra bf16 elements per LDS row (bank-conflict avoidance)
//  prefetch     1: keep the global loads of stage i+1 in flight during the MFMAs of stage i
//  unroll_taps  1: k-steps outer / taps inner in the MFMA loop (A fragments reused by all taps)
//  vec          bf16 elements per global load (8: dwordx4, 4: dwordx2)
//  buffer_a     1: dY through buffer loads (OOB -> 0); 0: global loads through a 64-bit pointer
struct Config {
  int fy, fx;
  int waves_m, waves_n;
  int rep_m, rep_n;
  int k_steps;
  int mfma = 16;
  int waves_per_eu = 2;
  int split = 1;
  int lds_pad = 8;
  int prefetch = 1;
  int unroll_taps = 1;
  int vec = 8;
  int buffer_a = 1;

  constexpr int waves() const { return waves_m * waves_n; }
  constexpr int threads() const { return waves() * 64; }
  constexpr int taps() const { return fy * fx; }
  constexpr int mfma_k() const { return mfma == 16 ? 32 : 16; }
  constexpr int tile_m() const { return waves_m * rep_m * mfma; }
  constexpr int tile_n() const { return waves_n * rep_n * mfma; }
  constexpr int tile_k() const { return k_steps * mfma_k(); }
  constexpr int acc_regs() const { return taps() * rep_m * rep_n * (mfma == 16 ? 4 : 16); }
};

constexpr bool operator==(const Config& a, const Config& b) {
  return a.fy == b.fy && a.fx == b.fx && a.waves_m == b.waves_m && a.waves_n == b.waves_n &&
         a.rep_m == b.rep_m && a.rep_n == b.rep_n && a.k_steps == b.k_steps &&
         a.mfma == b.mfma && a.waves_per_eu == b.waves_per_eu && a.split == b.split &&
         a.lds_pad == b.lds_pad && a.prefetch == b.prefetch && a.unroll_taps == b.unroll_taps &&
         a.vec == b.vec && a.buffer_a == b.buffer_a;
}

// Fast unsigned division by a runtime-invariant divisor (Granlund-Montgomery), filled on
// the host by make_fast_divmod() and consumed on the device by fast_div()/fast_divmod().
struct FastDivmod {
  uint32_t divisor;
  uint32_t multiplier;
  uint32_t shift;
};

// Convolution problem as seen by the kernels. Filled once per problem on the host.
struct ConvParams {
  int n, c, h, w;     // input  N C H W (stored NHWC)
  int k, ho, wo;      // output K Ho Wo (stored NHWK)
  int fy, fx;         // filter (must match Config for direct kernels)
  int stride_h, stride_w;
  int pad_h, pad_w;
  int dil_h, dil_w;
  int groups;
  DataType in_type, out_type;
  Layout layout;
  // derived
  int gemm_k;              // n * ho * wo
  int split_k;             // number of GEMM-K splits (gridDim.y)
  int k_per_split;         // GEMM-K positions per split, multiple of the stage size
  FastDivmod div_wo;       // divide a flattened position by wo
  FastDivmod div_ho;       // divide (position / wo) by ho
  float alpha, beta;
  int64_t x_stride_n, x_stride_h, x_stride_w;   // element strides of x
  int64_t dy_stride_n, dy_stride_h, dy_stride_w;// element strides of dy
  int64_t dw_stride_k;                          // element stride of dw between output channels
};

// How the host wants a kernel launched; zero fields are derived from the config.
struct LaunchParams {
  dim3 grid;
  dim3 block;
  unsigned shared_bytes;
  int split_k;
  int device_ordinal;
  bool deterministic;    // forbid atomics: use the workspace path
  bool profile;
  const char* tag;
  size_t workspace_bytes;
};

} // namespace hipconv
