// Address arithmetic of the direct weight-gradient kernels.
//
// GEMM view of wgrad (NHWC activations, KYXC weights):
//
//   dW[k][y][x][c] = sum_{n,ho,wo} dY[n][ho][wo][k] * X[n][ho*sh - ph + y*dh][wo*sw - pw + x*dw][c]
//
//   M = K (output channels), N = C (input channels, one accumulator set per filter tap),
//   GEMM-K = flattened output positions (n, ho, wo).
//
// The helpers below are plain (external, non-inline) device functions on purpose: they are
// shared between the kernel families and are compiled once per translation unit.
#pragma once

#include <hipconv/config.h>
#include <hipconv/math.h>
#include <hipconv/arch/cdna4/buffer.h>

namespace hipconv::cdna4::direct_wgrad {

// Coordinates of one GEMM-K position.
struct OutCoord {
  int n, ho, wo;
  int pos;
};

// A uniform step through GEMM-K expressed in coordinates, so that advancing a coordinate by
// a whole pipeline stage needs no division ("move slice window").
struct CoordStep {
  int d_wo, d_ho, d_n;
  int d_pos;
};

// Per-thread base of the input window of one position: everything that does not depend on
// the filter tap.
struct TapBase {
  int hi0, wi0;       // top-left input pixel touched by the position
  uint32_t off0;      // byte offset of X[n][hi0][wi0][c] (may wrap for negative hi0/wi0)
  bool pos_valid;
};

// Work assignment of one workgroup.
struct BlockTile {
  int m0;       // first output channel
  int c0;       // first input channel
  int k_begin;  // first GEMM-K position of this split
  int k_end;    // one past the last GEMM-K position of this split
};

HIPCONV_DEVICE_EXTERN BlockTile block_tile(const ConvParams& p, int tile_m, int tile_n) {
  const int tiles_n = (p.c + tile_n - 1) / tile_n;
  const int bx = blockIdx.x;
  BlockTile t;
  t.m0 = (bx / tiles_n) * tile_m;
  t.c0 = (bx % tiles_n) * tile_n;
  t.k_begin = int(blockIdx.y) * p.k_per_split;
  t.k_end = t.k_begin + p.k_per_split < p.gemm_k ? t.k_begin + p.k_per_split : p.gemm_k;
  return t;
}

HIPCONV_DEVICE_EXTERN OutCoord decompose_position(const ConvParams& p, int pos) {
  uint32_t wo = 0, ho = 0;
  uint32_t t = fast_divmod(p.div_wo, uint32_t(pos), &wo);
  uint32_t n = fast_divmod(p.div_ho, t, &ho);
  return OutCoord{int(n), int(ho), int(wo), pos};
}

HIPCONV_DEVICE_EXTERN CoordStep make_coord_step(const ConvParams& p, int step) {
  uint32_t wo = 0, ho = 0;
  uint32_t t = fast_divmod(p.div_wo, uint32_t(step), &wo);
  uint32_t n = fast_divmod(p.div_ho, t, &ho);
  return CoordStep{int(wo), int(ho), int(n), step};
}

// c += step, with carries. Equivalent to decompose_position(p, c.pos + step.d_pos).
HIPCONV_DEVICE_EXTERN void advance_coord(const ConvParams& p, const CoordStep& s, OutCoord* c) {
  int wo = c->wo + s.d_wo;
  int ho = c->ho + s.d_ho;
  int n = c->n + s.d_n;
  if (wo >= p.wo) {
    wo -= p.wo;
    ho += 1;
  }
  if (ho >= p.ho) {
    ho -= p.ho;
    n += 1;
  }
  c->wo = wo;
  c->ho = ho;
  c->n = n;
  c->pos += s.d_pos;
}

// Byte offset of dY[n][ho][wo][m] (bf16).
HIPCONV_DEVICE_EXTERN uint32_t dy_offset(const ConvParams& p, const OutCoord& c, int m) {
  int64_t e = c.n * p.dy_stride_n + c.ho * p.dy_stride_h + c.wo * p.dy_stride_w + m;
  return uint32_t(e) * 2u;
}

HIPCONV_DEVICE_EXTERN TapBase tap_base(const ConvParams& p, const OutCoord& c, int ch, int k_end) {
  TapBase b;
  b.hi0 = c.ho * p.stride_h - p.pad_h;
  b.wi0 = c.wo * p.stride_w - p.pad_w;
  int64_t e = c.n * p.x_stride_n + b.hi0 * p.x_stride_h + b.wi0 * p.x_stride_w + ch;
  b.off0 = uint32_t(e) * 2u;
  b.pos_valid = c.pos < k_end && c.n < p.n;
  return b;
}

// Byte offset of X for filter tap (y, x) relative to a TapBase, or kInvalidOffset when the
// tap falls into the padding.
HIPCONV_DEVICE_EXTERN uint32_t tap_offset(const ConvParams& p, const TapBase& b, int y, int x) {
  const int hi = b.hi0 + y * p.dil_h;
  const int wi = b.wi0 + x * p.dil_w;
  const bool ok = b.pos_valid && in_range(hi, p.h) && in_range(wi, p.w);
  const uint32_t delta = uint32_t(y * p.dil_h * int(p.x_stride_h) + x * p.dil_w * int(p.x_stride_w)) * 2u;
  return select_offset(ok, b.off0 + delta);
}

// Channel-range predicate: the last tile along C may be partial.
HIPCONV_DEVICE_EXTERN bool channel_valid(const ConvParams& p, int ch) { return ch + 8 <= p.c; }
HIPCONV_DEVICE_EXTERN bool out_channel_valid(const ConvParams& p, int m) { return m + 8 <= p.k; }

// ---------------------------------------------------------------------------------------
// Helpers of the NCHW fallback path (direct_wgrad_nchw.hip). Not used by the NHWC kernels
// but kept here so both layouts share one addressing header.

HIPCONV_DEVICE_EXTERN uint32_t x_offset_nchw(const ConvParams& p, int n, int ch, int hi, int wi) {
  return uint32_t(((n * p.c + ch) * p.h + hi) * p.w + wi) * 2u;
}

HIPCONV_DEVICE_EXTERN uint32_t dy_offset_nchw(const ConvParams& p, int n, int m, int ho, int wo) {
  return uint32_t(((n * p.k + m) * p.ho + ho) * p.wo + wo) * 2u;
}

HIPCONV_DEVICE_EXTERN int valid_output_rows(const ConvParams& p, int y) {
  // Number of output rows whose input row for tap y is inside the image.
  int lo = p.pad_h - y * p.dil_h;
  int first = lo <= 0 ? 0 : (lo + p.stride_h - 1) / p.stride_h;
  int hi_lim = p.h + p.pad_h - y * p.dil_h;
  int last = hi_lim <= 0 ? -1 : (hi_lim - 1) / p.stride_h;
  if (last >= p.ho) last = p.ho - 1;
  return last >= first ? last - first + 1 : 0;
}

} // namespace hipconv::cdna4::direct_wgrad
