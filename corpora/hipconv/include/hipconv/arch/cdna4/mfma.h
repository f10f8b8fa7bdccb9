// CDNA4 (gfx950) matrix-core wrappers.
//
// Only the bf16 shapes used by the convolution kernels are wrapped. Operand layouts (per
// lane, wave64):
//
//   16x16x32: A  lane l holds A[l % 16][8*(l/16) .. 8*(l/16)+7]          (bf16x8)
//             B  lane l holds B[8*(l/16) .. +7][l % 16]                  (bf16x8)
//             C  lane l holds C[4*(l/16) .. +3][l % 16]                  (f32x4)
//   32x32x16: A  lane l holds A[l % 32][8*(l/32) .. +7]                  (bf16x8)
//             B  lane l holds B[8*(l/32) .. +7][l % 32]                  (bf16x8)
//             C  lane l holds C[8*i + 4*(l/32) + j][l % 32], i<4, j<4     (f32x16)
#pragma once

#include <hipconv/types.h>

namespace hipconv::cdna4 {

template <int Shape>
struct MfmaBf16;

template <>
struct MfmaBf16<16> {
  static constexpr int m = 16, n = 16, k = 32;
  static constexpr int acc_elems = 4;
  static constexpr int lanes_per_row = 16;  // lanes sharing one k-group
  static constexpr int k_groups = 4;        // 64 / lanes_per_row
  static constexpr int cycles = 8;          // issue cycles on gfx950 (pass count)
  using acc_t = f32x4_t;
  using frag_t = bf16x8_t;

  HIPCONV_INLINE static acc_t run(frag_t a, frag_t b, acc_t c) {
    return __builtin_amdgcn_mfma_f32_16x16x32_bf16(a, b, c, 0, 0, 0);
  }
  // Row (within the 16x16 C tile) of accumulator element `j` for `lane`.
  HIPCONV_INLINE static int acc_row(int lane, int j) { return 4 * (lane / 16) + j; }
  HIPCONV_INLINE static int acc_col(int lane) { return lane % 16; }
  HIPCONV_INLINE static int frag_row(int lane) { return lane % 16; }
  HIPCONV_INLINE static int frag_k(int lane) { return 8 * (lane / 16); }
};

template <>
struct MfmaBf16<32> {
  static constexpr int m = 32, n = 32, k = 16;
  static constexpr int acc_elems = 16;
  static constexpr int lanes_per_row = 32;
  static constexpr int k_groups = 2;
  static constexpr int cycles = 16;
  using acc_t = f32x16_t;
  using frag_t = bf16x8_t;

  HIPCONV_INLINE static acc_t run(frag_t a, frag_t b, acc_t c) {
    return __builtin_amdgcn_mfma_f32_32x32x16_bf16(a, b, c, 0, 0, 0);
  }
  HIPCONV_INLINE static int acc_row(int lane, int j) { return 8 * (j / 4) + 4 * (lane / 32) + (j % 4); }
  HIPCONV_INLINE static int acc_col(int lane) { return lane % 32; }
  HIPCONV_INLINE static int frag_row(int lane) { return lane % 32; }
  HIPCONV_INLINE static int frag_k(int lane) { return 8 * (lane / 32); }
};

// f16 variants, used by the fp16 forward kernels only.
struct MfmaF16_16x16x32 {
  static constexpr int m = 16, n = 16, k = 32;
  using acc_t = f32x4_t;
  using frag_t = f16x8_t;
  HIPCONV_INLINE static acc_t run(frag_t a, frag_t b, acc_t c) {
    return __builtin_amdgcn_mfma_f32_16x16x32_f16(a, b, c, 0, 0, 0);
  }
};

// Zero an accumulator without the compiler materialising it through memory.
template <typename Acc>
HIPCONV_INLINE Acc zero_acc() {
  Acc r;
#pragma unroll
  for (int i = 0; i < int(sizeof(Acc) / sizeof(float)); ++i) r[i] = 0.0f;
  return r;
}

} // namespace hipconv::cdna4
