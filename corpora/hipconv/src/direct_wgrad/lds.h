// LDS layout and double buffering of the direct wgrad kernels.
//
// Each stage holds
//   A: dY^T tile  [tile_m][tile_k + pad]            (k = output channel, row = positions)
//   B: X^T  tiles [taps][tile_n][tile_k + pad]       (one per filter tap)
// transposed on the way in so that MFMA fragments (8 consecutive GEMM-K positions) are a
// single ds_read_b128.
#pragma once

#include <hipconv/config.h>
#include <hipconv/types.h>
#include <hipconv/arch/cdna4/mfma.h>

namespace hipconv::cdna4::direct_wgrad {

template <Config C>
struct LdsLayout {
  static constexpr int kRow = C.tile_k() + C.lds_pad;           // bf16 per row
  static constexpr int kABytes = C.tile_m() * kRow * 2;
  static constexpr int kBTapBytes = C.tile_n() * kRow * 2;
  static constexpr int kBBytes = C.taps() * kBTapBytes;
  static constexpr int kStageBytes = kABytes + kBBytes;
  static constexpr int kBuffers = 2;
  static constexpr int kTotalBytes = kBuffers * kStageBytes;
  static_assert(kTotalBytes <= 160 * 1024, "direct_wgrad: LDS budget of gfx950 exceeded");
  static_assert(kRow % 8 == 0, "LDS rows must keep 16-byte alignment");

  HIPCONV_INLINE static constexpr uint32_t stage_base(int buf) { return uint32_t(buf) * kStageBytes; }
  HIPCONV_INLINE static constexpr uint32_t a_base(int buf) { return stage_base(buf); }
  HIPCONV_INLINE static constexpr uint32_t b_base(int buf, int tap) {
    return stage_base(buf) + kABytes + uint32_t(tap) * kBTapBytes;
  }
};

// Byte offset inside a tile of element [row][col].
HIPCONV_DEVICE_EXTERN uint32_t lds_elem_offset(int row, int col, int row_elems) {
  return uint32_t(row * row_elems + col) * 2u;
}

// Transposed store of 8 consecutive rows (channels) of one column (position).
HIPCONV_DEVICE_EXTERN void lds_store_transposed(char* lds, uint32_t base, int row0, int col, int row_elems,
                                                bf16x8_t v) {
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    __bf16* dst = reinterpret_cast<__bf16*>(lds + base + lds_elem_offset(row0 + j, col, row_elems));
    *dst = v[j];
  }
}

HIPCONV_DEVICE_EXTERN void lds_store_transposed(char* lds, uint32_t base, int row0, int col, int row_elems,
                                                bf16x4_t v) {
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    __bf16* dst = reinterpret_cast<__bf16*>(lds + base + lds_elem_offset(row0 + j, col, row_elems));
    *dst = v[j];
  }
}

// Transposed store that packs pairs of positions into one ds_write_b32 (two lanes cooperate
// through a DPP swap). Used by the k_steps >= 4 fwd kernels; slower here.
HIPCONV_DEVICE_EXTERN void lds_store_transposed_pairs(char* lds, uint32_t base, int row0, int col, int row_elems,
                                                      bf16x8_t v) {
  const int lane = __builtin_amdgcn_mbcnt_lo(~0u, 0u);
#pragma unroll
  for (int j = 0; j < 8; j += 2) {
    uint32_t mine = __builtin_bit_cast(uint32_t, bf16x2_t{v[j], v[j + 1]});
    uint32_t other = __builtin_amdgcn_ds_swizzle(mine, 0x041f);
    uint32_t lo = (lane & 1) ? other : mine;
    uint32_t* dst = reinterpret_cast<uint32_t*>(lds + base + lds_elem_offset(row0 + j, col & ~1, row_elems));
    if ((lane & 1) == 0) *dst = lo;
  }
}

HIPCONV_INLINE bf16x8_t lds_load_frag(const char* lds, uint32_t byte_offset) {
  return *reinterpret_cast<const bf16x8_t*>(lds + byte_offset);
}

// Offset of the MFMA fragment (row `row` of the tile, k-group starting at `k`).
template <Config C>
HIPCONV_INLINE uint32_t frag_offset(int row, int k) {
  return lds_elem_offset(row, k, LdsLayout<C>::kRow);
}

} // namespace hipconv::cdna4::direct_wgrad
