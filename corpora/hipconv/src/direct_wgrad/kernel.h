// Direct weight-gradient kernel for CDNA4 (gfx950), bf16 in / fp32 out.
//
// One workgroup computes a tile_m x tile_n block of dW for *all* fy*fx filter taps (one
// accumulator set per tap) over its share of GEMM-K. The main loop is software pipelined:
//
//   prologue:   global -> regs (stage 0), regs -> LDS[0], barrier
//   iteration s:
//     global -> regs          (stage s+1, stays in flight during the MFMAs below)
//     LDS[s&1] -> MFMA        (all taps, all k-steps of stage s)
//     regs -> LDS[(s+1)&1]    (waits for the prefetch)
//     barrier
//   epilogue:   scale, store/atomic-add per tap
#pragma once

#include <hipconv/config.h>
#include <hipconv/math.h>
#include <hipconv/types.h>
#include <hipconv/arch/cdna4/mfma.h>
#include <hipconv/arch/cdna4/buffer.h>
#include <hipconv/arch/cdna4/sync.h>

#include "common/debug.h"
#include "common/reduce.h"
#include "direct_wgrad/addressing.h"
#include "direct_wgrad/lds.h"
#include "direct_wgrad/epilogue.h"
#include "direct_wgrad/host.h"

namespace hipconv::cdna4::direct_wgrad {

template <Config C>
struct Shape {
  using Mma = MfmaBf16<C.mfma>;
  using Acc = typename Mma::acc_t;
  static constexpr int kTaps = C.taps();
  static constexpr int kThreads = C.threads();
  static constexpr int kTileM = C.tile_m();
  static constexpr int kTileN = C.tile_n();
  static constexpr int kTileK = C.tile_k();
  static constexpr int kVec = C.vec;  // bf16 per global load
  using VecT = vec_t<__bf16, kVec>;
  static_assert(kVec == 4 || kVec == 8, "global loads are dwordx2 or dwordx4");
  // Global -> LDS mapping: GEMM-K position fastest across lanes (so that the transposed LDS
  // writes of a wave hit consecutive addresses), channel vectors slowest.
  static constexpr int kAVecs = ceil_div(kTileK * kTileM / kVec, kThreads);
  static constexpr int kBVecs = ceil_div(kTileK * kTileN / kVec, kThreads);
  static constexpr bool kAFull = kTileK * kTileM / kVec % kThreads == 0;
  static constexpr bool kBFull = kTileK * kTileN / kVec % kThreads == 0;
  static_assert(kThreads == 256, "direct_wgrad kernels are written for 4 waves");
  static_assert(kTileK <= kThreads, "one position per thread and stage");
};

template <int N>
HIPCONV_INLINE vec_t<__bf16, N> load_vec(const BufferResource& r, uint32_t off) {
  if constexpr (N == 8)
    return buffer_load_bf16x8(r, off);
  else
    return buffer_load_bf16x4(r, off);
}

// Registers of one stage in flight between global memory and LDS.
template <Config C>
struct StageRegs {
  using S = Shape<C>;
  typename S::VecT a[S::kAVecs];
  typename S::VecT b[S::kTaps][S::kBVecs];
};

// Per-thread state of the global loads: one GEMM-K position per thread and stage.
template <Config C>
struct GlobalLoader {
  using S = Shape<C>;
  OutCoord coord;
  CoordStep step;
  int p_local;   // position inside the stage
  int a_vec0;    // first A channel-vector of this thread
  int b_vec0;    // first B channel-vector of this thread

  HIPCONV_INLINE void init(const ConvParams& p, const BlockTile& bt, int tid) {
    p_local = tid % S::kTileK;
    a_vec0 = tid / S::kTileK;
    b_vec0 = tid / S::kTileK;
    coord = decompose_position(p, bt.k_begin + p_local);
    step = make_coord_step(p, S::kTileK);
  }

  HIPCONV_INLINE void load(const ConvParams& p, const BlockTile& bt, const BufferResource& xb,
                           const BufferResource& yb, const __bf16* __restrict__ dy, StageRegs<C>& r) const {
    constexpr int kVecsPerRowA = S::kTileM / S::kVec;
    constexpr int kVecsPerRowB = S::kTileN / S::kVec;
    constexpr int kStrideVec = S::kThreads / S::kTileK;
    const bool pos_ok = coord.pos < bt.k_end;
#pragma unroll
    for (int i = 0; i < S::kAVecs; ++i) {
      const int v = a_vec0 + i * kStrideVec;
      const int m = bt.m0 + v * S::kVec;
      const bool ok = pos_ok && (S::kAFull || v < kVecsPerRowA) && out_channel_valid(p, m);
      if constexpr (C.buffer_a)
        r.a[i] = load_vec<S::kVec>(yb, select_offset(ok, dy_offset(p, coord, m)));
      else
        r.a[i] = ok ? *reinterpret_cast<const typename S::VecT*>(dy + dy_offset(p, coord, m) / 2)
                    : typename S::VecT{};
    }
    const TapBase base = tap_base(p, coord, bt.c0, bt.k_end);
#pragma unroll
    for (int t = 0; t < S::kTaps; ++t) {
      const uint32_t toff = tap_offset(p, base, t / C.fx, t % C.fx);
#pragma unroll
      for (int i = 0; i < S::kBVecs; ++i) {
        const int v = b_vec0 + i * kStrideVec;
        const bool ok = (S::kBFull || v < kVecsPerRowB) && channel_valid(p, bt.c0 + v * S::kVec);
        r.b[t][i] = load_vec<S::kVec>(xb, ok ? toff + uint32_t(v * S::kVec * 2) : kInvalidOffset);
      }
    }
  }

  HIPCONV_INLINE void advance(const ConvParams& p) { advance_coord(p, step, &coord); }
};

template <Config C>
HIPCONV_INLINE void store_stage(char* lds, int buf, const GlobalLoader<C>& g, const StageRegs<C>& r) {
  using S = Shape<C>;
  using L = LdsLayout<C>;
  constexpr int kStrideVec = S::kThreads / S::kTileK;
#pragma unroll
  for (int i = 0; i < S::kAVecs; ++i) {
    const int v = g.a_vec0 + i * kStrideVec;
    if (S::kAFull || v < S::kTileM / S::kVec)
      lds_store_transposed(lds, L::a_base(buf), v * S::kVec, g.p_local, L::kRow, r.a[i]);
  }
#pragma unroll
  for (int t = 0; t < S::kTaps; ++t) {
#pragma unroll
    for (int i = 0; i < S::kBVecs; ++i) {
      const int v = g.b_vec0 + i * kStrideVec;
      if (S::kBFull || v < S::kTileN / S::kVec)
        lds_store_transposed(lds, L::b_base(buf, t), v * S::kVec, g.p_local, L::kRow, r.b[t][i]);
    }
  }
}

// All MFMAs of one stage. With unroll_taps the k-steps are the outer loop (A fragments are
// read once per k-step and reused by every tap); otherwise the taps are the outer loop and
// the A fragments are re-read per tap (fewer live registers, more LDS traffic).
template <Config C>
HIPCONV_INLINE void compute_stage(const char* lds, int buf, int wm, int wn, int lane,
                                  typename Shape<C>::Acc (&acc)[Shape<C>::kTaps][C.rep_m][C.rep_n]) {
  using S = Shape<C>;
  using L = LdsLayout<C>;
  using Mma = typename S::Mma;
  const int frow = Mma::frag_row(lane);
  const int fk = Mma::frag_k(lane);
  if constexpr (C.unroll_taps) {
#pragma unroll
    for (int ks = 0; ks < C.k_steps; ++ks) {
      bf16x8_t a[C.rep_m];
#pragma unroll
      for (int im = 0; im < C.rep_m; ++im) {
        const int row = (wm * C.rep_m + im) * Mma::m + frow;
        a[im] = lds_load_frag(lds, L::a_base(buf) + frag_offset<C>(row, ks * Mma::k + fk));
      }
#pragma unroll
      for (int t = 0; t < S::kTaps; ++t) {
#pragma unroll
        for (int jn = 0; jn < C.rep_n; ++jn) {
          const int col = (wn * C.rep_n + jn) * Mma::n + frow;
          const bf16x8_t b = lds_load_frag(lds, L::b_base(buf, t) + frag_offset<C>(col, ks * Mma::k + fk));
#pragma unroll
          for (int im = 0; im < C.rep_m; ++im) acc[t][im][jn] = Mma::run(a[im], b, acc[t][im][jn]);
        }
      }
    }
  } else {
#pragma unroll
    for (int t = 0; t < S::kTaps; ++t) {
#pragma unroll
      for (int ks = 0; ks < C.k_steps; ++ks) {
#pragma unroll
        for (int jn = 0; jn < C.rep_n; ++jn) {
          const int col = (wn * C.rep_n + jn) * Mma::n + frow;
          const bf16x8_t b = lds_load_frag(lds, L::b_base(buf, t) + frag_offset<C>(col, ks * Mma::k + fk));
#pragma unroll
          for (int im = 0; im < C.rep_m; ++im) {
            const int row = (wm * C.rep_m + im) * Mma::m + frow;
            const bf16x8_t a = lds_load_frag(lds, L::a_base(buf) + frag_offset<C>(row, ks * Mma::k + fk));
            acc[t][im][jn] = Mma::run(a, b, acc[t][im][jn]);
          }
        }
      }
    }
  }
}

template <Config C>
__global__ __launch_bounds__(256, C.waves_per_eu) void wgrad_kernel(ConvParams p, const __bf16* __restrict__ x,
                                                                    const __bf16* __restrict__ dy,
                                                                    float* __restrict__ dw) {
  using S = Shape<C>;
  using L = LdsLayout<C>;
  using Acc = typename S::Acc;
  __shared__ __attribute__((aligned(16))) char lds[L::kTotalBytes];

  const int tid = threadIdx.x;
  const int lane = tid % 64;
  const int wave = wave_id();
  const int wm = wave / C.waves_n;
  const int wn = wave % C.waves_n;

  const BlockTile bt = block_tile(p, S::kTileM, S::kTileN);
  const int num_stages = bt.k_end > bt.k_begin ? ceil_div(bt.k_end - bt.k_begin, S::kTileK) : 0;

  const BufferResource xb = make_buffer(x, uint32_t(p.n * p.h * p.w * p.c) * 2u);
  const BufferResource yb = make_buffer(dy, uint32_t(p.n * p.ho * p.wo * p.k) * 2u);

  Acc acc[S::kTaps][C.rep_m][C.rep_n];
#pragma unroll
  for (int t = 0; t < S::kTaps; ++t)
#pragma unroll
    for (int im = 0; im < C.rep_m; ++im)
#pragma unroll
      for (int jn = 0; jn < C.rep_n; ++jn) acc[t][im][jn] = zero_acc<Acc>();

  GlobalLoader<C> g;
  g.init(p, bt, tid);
  StageRegs<C> regs;

  // Prologue.
  g.load(p, bt, xb, yb, dy, regs);
  store_stage<C>(lds, 0, g, regs);
  block_sync_lds();

  // Main loop.
#pragma unroll 2
  for (int s = 0; s < num_stages; ++s) {
    const int buf = s & 1;
    const bool has_next = s + 1 < num_stages;
    if (C.prefetch && has_next) {
      g.advance(p);
      g.load(p, bt, xb, yb, dy, regs);
    }
    compute_stage<C>(lds, buf, wm, wn, lane, acc);
    if (has_next) {
      if (!C.prefetch) {
        g.advance(p);
        g.load(p, bt, xb, yb, dy, regs);
      }
      store_stage<C>(lds, buf ^ 1, g, regs);
    }
    block_sync_lds();
  }

  // Epilogue.
#pragma unroll
  for (int t = 0; t < S::kTaps; ++t)
#pragma unroll
    for (int im = 0; im < C.rep_m; ++im)
#pragma unroll
      for (int jn = 0; jn < C.rep_n; ++jn) {
        const int m_base = bt.m0 + (wm * C.rep_m + im) * S::Mma::m;
        const int c_base = bt.c0 + (wn * C.rep_n + jn) * S::Mma::n;
        store_acc_tile<typename S::Mma, C.split>(p, dw, m_base, c_base, t, acc[t][im][jn]);
      }
}

// Host side ------------------------------------------------------------------------------

template <Config C>
dim3 grid_for(const ConvParams& cp, const LaunchParams& lp) {
  if (lp.grid.x != 0 && lp.grid.x != 1) return lp.grid;
  const unsigned tiles = unsigned(ceil_div(cp.k, C.tile_m()) * ceil_div(cp.c, C.tile_n()));
  return dim3(tiles, unsigned(cp.split_k > 0 ? cp.split_k : 1), 1);
}

template <Config C>
void launch_impl(const LaunchParams& lp, const ConvParams& cp, const void* x, const void* dy, void* dw,
                 void* workspace, hipStream_t stream) {
  const dim3 grid = grid_for<C>(cp, lp);
  const dim3 block(C.threads(), 1, 1);
  float* out = C.split == int(SplitMode::workspace) ? static_cast<float*>(workspace) : static_cast<float*>(dw);
  wgrad_kernel<C><<<grid, block, 0, stream>>>(cp, static_cast<const __bf16*>(x), static_cast<const __bf16*>(dy),
                                              out);
}

} // namespace hipconv::cdna4::direct_wgrad
