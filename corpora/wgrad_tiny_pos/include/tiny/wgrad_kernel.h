// A direct weight-gradient kernel for gfx950 (bf16 in, fp32 out): corpora/wgrad_quick_pos's,
// without GEMM-K coordinates, partial stages or the atomics' lane shuffle.
//
// One workgroup (4 waves) computes a tile_m x tile_n block of dW over its share of GEMM-K.
// The main loop is software pipelined with two LDS buffers:
//
//   prologue:  global -> registers (stage 0), registers -> LDS[0], barrier
//   stage s:   global -> registers (stage s+1)   in flight during the MFMAs below
//              LDS[s & 1] -> MFMA
//              registers -> LDS[(s + 1) & 1]     transposed
//              barrier
#pragma once

#include "tiny/wgrad_helpers.h"

struct Config {
  int waves_m, waves_n;  // 4 waves
  int rep_m, rep_n;      // 32x32 MFMA tiles per wave
  int k_steps;           // MFMA K-steps (16 positions each) per pipeline stage
  int vec;               // bf16 per global load (4: dwordx2)

  constexpr int tile_m() const { return waves_m * rep_m * 32; }
  constexpr int tile_n() const { return waves_n * rep_n * 32; }
  constexpr int tile_k() const { return k_steps * 16; }
  constexpr int a_vecs() const { return tile_k() * tile_m() / vec / 256; }
  constexpr int b_vecs() const { return tile_k() * tile_n() / vec / 256; }
  constexpr int lds_a_bytes() const { return tile_m() * tile_k() * 2; }
  constexpr int lds_stage_bytes() const { return (tile_m() + tile_n()) * tile_k() * 2; }
};

// Tuned configurations (gfx950): index 1 is the one of the bug report.
constexpr Config configs[] = {
    {2, 2, 2, 2, 2, 4},  // 128x128x32
    {2, 2, 4, 3, 2, 4},  // 256x192x32
    {1, 4, 4, 1, 2, 4},  // 128x128x32
};

template <Config C>
__device__ __forceinline__ void load_stage(const ConvParams& p, const BlockTile& bt, __amdgpu_buffer_rsrc_t xb,
                                           const __bf16* __restrict__ dy, int pos, int vec0,
                                           bf16x4_t (&ra)[C.a_vecs()], bf16x4_t (&rb)[C.b_vecs()]) {
  constexpr int kStride = 256 / C.tile_k();
  for (int i = 0; i < C.a_vecs(); ++i) {
    const int m = bt.m0 + (vec0 + i * kStride) * C.vec;
    const int64_t e = pos * p.dy_stride + m;
    ra[i] = *reinterpret_cast<const bf16x4_t*>(dy + e);
  }
  const int64_t e = pos * p.x_stride + bt.c0;
  const uint32_t base = uint32_t(e) * 2u;
  for (int i = 0; i < C.b_vecs(); ++i) {
    const int v = vec0 + i * kStride;
    rb[i] = buffer_load_bf16x4(xb, base + uint32_t(v * C.vec * 2));
  }
}

template <Config C>
__device__ __forceinline__ void store_stage(char* lds, int buf, int vec0, int p_local,
                                            const bf16x4_t (&ra)[C.a_vecs()], const bf16x4_t (&rb)[C.b_vecs()]) {
  constexpr int kStride = 256 / C.tile_k();
  const uint32_t a_base = uint32_t(buf) * C.lds_stage_bytes();
  const uint32_t b_base = a_base + C.lds_a_bytes();
  for (int i = 0; i < C.a_vecs(); ++i)
    lds_store_transposed(lds, a_base, (vec0 + i * kStride) * C.vec, p_local, C.tile_k(), ra[i]);
  for (int i = 0; i < C.b_vecs(); ++i)
    lds_store_transposed(lds, b_base, (vec0 + i * kStride) * C.vec, p_local, C.tile_k(), rb[i]);
}

template <Config C>
__device__ __forceinline__ void compute_stage(const char* lds, int buf, int wm, int wn, int lane,
                                              f32x16_t (&acc)[C.rep_m][C.rep_n]) {
  const uint32_t a_base = uint32_t(buf) * C.lds_stage_bytes();
  const uint32_t b_base = a_base + C.lds_a_bytes();
  const int frow = lane % 32;
  const int fk = 8 * (lane / 32);
  for (int ks = 0; ks < C.k_steps; ++ks) {
    bf16x8_t a[C.rep_m];
    for (int im = 0; im < C.rep_m; ++im) {
      const int row = (wm * C.rep_m + im) * 32 + frow;
      a[im] = *reinterpret_cast<const bf16x8_t*>(lds + (a_base + lds_elem_offset(row, ks * 16 + fk, C.tile_k())));
    }
    for (int jn = 0; jn < C.rep_n; ++jn) {
      const int col = (wn * C.rep_n + jn) * 32 + frow;
      const bf16x8_t b = *reinterpret_cast<const bf16x8_t*>(lds + (b_base + lds_elem_offset(col, ks * 16 + fk, C.tile_k())));
      for (int im = 0; im < C.rep_m; ++im)
        acc[im][jn] = __builtin_amdgcn_mfma_f32_32x32x16_bf16(a[im], b, acc[im][jn], 0, 0, 0);
    }
  }
}

template <Config C>
__global__ __launch_bounds__(256, 2) void wgrad_kernel(ConvParams p, const __bf16* __restrict__ x,
                                                       const __bf16* __restrict__ dy, float* __restrict__ dw) {
  __shared__ __attribute__((aligned(16))) char lds[2 * C.lds_stage_bytes()];
  const int tid = threadIdx.x;
  const int lane = tid % 64;
  const int wave = __builtin_amdgcn_readfirstlane(tid / 64);
  const int wm = wave / C.waves_n;
  const int wn = wave % C.waves_n;

  const BlockTile bt = block_tile(p, C.tile_m(), C.tile_n());
  const int num_stages = p.k_per_split / C.tile_k();
  const __amdgpu_buffer_rsrc_t xb = make_buffer(x, uint32_t(p.n * p.h * p.w * p.c) * 2u);

  f32x16_t acc[C.rep_m][C.rep_n];
  for (int im = 0; im < C.rep_m; ++im)
    for (int jn = 0; jn < C.rep_n; ++jn)
      for (int e = 0; e < 16; ++e) acc[im][jn][e] = 0.0f;

  const int p_local = tid % C.tile_k();  // this thread's GEMM-K position in a stage
  const int vec0 = tid / C.tile_k();     // and its first channel vector
  int pos = bt.k_begin + p_local;
  bf16x4_t ra[C.a_vecs()], rb[C.b_vecs()];

  load_stage<C>(p, bt, xb, dy, pos, vec0, ra, rb);
  store_stage<C>(lds, 0, vec0, p_local, ra, rb);
  __syncthreads();

#pragma unroll 2
  for (int s = 0; s < num_stages; ++s) {
    const int buf = s & 1;
    const bool has_next = s + 1 < num_stages;
    if (has_next) {
      pos += C.tile_k();
      load_stage<C>(p, bt, xb, dy, pos, vec0, ra, rb);
    }
    compute_stage<C>(lds, buf, wm, wn, lane, acc);
    if (has_next) store_stage<C>(lds, buf ^ 1, vec0, p_local, ra, rb);
    __syncthreads();
  }

  // Epilogue: add into dW (GEMM-K is split over gridDim.y).
  for (int im = 0; im < C.rep_m; ++im)
    for (int jn = 0; jn < C.rep_n; ++jn)
      for (int j = 0; j < 16; ++j) {
        const int m = bt.m0 + (wm * C.rep_m + im) * 32 + j;
        const int ch = bt.c0 + (wn * C.rep_n + jn) * 32 + lane % 32;
        atomicAdd(dw + m * p.c + ch, acc[im][jn][j]);
      }
}

// Host side.
template <Config C>
void launch_wgrad(const ConvParams& p, const void* x, const void* dy, float* dw, hipStream_t stream) {
  const int tiles = ((p.k + C.tile_m() - 1) / C.tile_m()) * ((p.c + C.tile_n() - 1) / C.tile_n());
  const int splits = (p.gemm_k + p.k_per_split - 1) / p.k_per_split;
  wgrad_kernel<C><<<dim3(tiles, splits), 256, 0, stream>>>(p, static_cast<const __bf16*>(x),
                                                           static_cast<const __bf16*>(dy), dw);
}
