// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// GEMM-K coordinate arithmetic of the weight-gradient kernels.
//
//   dW[k][y][x][c] = sum_{n,ho,wo} dY[n][ho][wo][k] * X[n][ho*sh - ph + y*dh][wo*sw - pw + x*dw][c]
//
// A thread owns one GEMM-K position per stage. Positions are decomposed once, then moved by
// a whole stage at a time without divisions ("move slice window"). The helpers are plain
// external device functions (MFCONV_DEVICE_EXTERN): they are shared by every kernel of a
// translation unit and compiled once.
#pragma once

#include "mfconv/core.hpp"

#include "mfconv/conv/conv_kargs.hpp"
#include "mfconv/core/arch/amd_buffer_addressing.hpp"
#include "mfconv/core/numeric/math.hpp"

namespace mfconv::conv::wgrad {

// Coordinates of one GEMM-K position.
struct gemm_k_coord
{
    index_t n, ho, wo;
    index_t pos;
};

// A fixed step through GEMM-K in coordinates (carry-propagating add).
struct gemm_k_step
{
    index_t d_wo, d_ho, d_n;
    index_t d_pos;
};

// What a position contributes to every filter tap's input address.
struct input_window
{
    index_t hi0, wi0;  // input pixel of tap (0, 0)
    uint32_t off0;     // byte offset of X[n][hi0][wi0][c0] (wraps for negative hi0/wi0)
    bool pos_valid;
};

// The output tile and GEMM-K range of one workgroup.
struct block_work
{
    index_t m0;      // first output channel
    index_t c0;      // first input channel
    index_t k_begin; // first GEMM-K position of this split
    index_t k_end;   // one past the last
};

MFCONV_DEVICE_EXTERN block_work make_block_work(const conv_geometry& g, const wgrad_gemm& gemm, index_t tile_m,
                                                index_t tile_n)
{
    const index_t tiles_n = (g.c + tile_n - 1) / tile_n;
    const index_t bx      = get_block_1d_id();
    block_work w;
    w.m0      = (bx / tiles_n) * tile_m;
    w.c0      = (bx % tiles_n) * tile_n;
    w.k_begin = get_block_id_y() * gemm.k_per_split;
    w.k_end   = w.k_begin + gemm.k_per_split < gemm.gemm_k ? w.k_begin + gemm.k_per_split : gemm.gemm_k;
    return w;
}

MFCONV_DEVICE_EXTERN gemm_k_coord decompose_gemm_k(const wgrad_gemm& gemm, index_t pos)
{
    uint32_t wo = 0, ho = 0;
    const uint32_t t = magic_divmod(gemm.div_wo, static_cast<uint32_t>(pos), &wo);
    const uint32_t n = magic_divmod(gemm.div_ho, t, &ho);
    return gemm_k_coord{static_cast<index_t>(n), static_cast<index_t>(ho), static_cast<index_t>(wo), pos};
}

MFCONV_DEVICE_EXTERN gemm_k_step make_gemm_k_step(const wgrad_gemm& gemm, index_t step)
{
    uint32_t wo = 0, ho = 0;
    const uint32_t t = magic_divmod(gemm.div_wo, static_cast<uint32_t>(step), &wo);
    const uint32_t n = magic_divmod(gemm.div_ho, t, &ho);
    return gemm_k_step{static_cast<index_t>(wo), static_cast<index_t>(ho), static_cast<index_t>(n), step};
}

// c += s with carries; the same as decompose_gemm_k(c.pos + s.d_pos).
MFCONV_DEVICE_EXTERN void move_gemm_k_coord(const conv_geometry& g, const gemm_k_step& s, gemm_k_coord* c)
{
    index_t wo = c->wo + s.d_wo;
    index_t ho = c->ho + s.d_ho;
    index_t n  = c->n + s.d_n;
    if(wo >= g.wo)
    {
        wo -= g.wo;
        ho += 1;
    }
    if(ho >= g.ho)
    {
        ho -= g.ho;
        n += 1;
    }
    c->wo = wo;
    c->ho = ho;
    c->n  = n;
    c->pos += s.d_pos;
}

MFCONV_DEVICE_EXTERN input_window make_input_window(const conv_geometry& g, const nhwc_descriptor& xd,
                                                    const gemm_k_coord& c, index_t ch, index_t k_end,
                                                    index_t elem_bytes)
{
    input_window w;
    w.hi0                = c.ho * g.stride_h - g.pad_h;
    w.wi0                = c.wo * g.stride_w - g.pad_w;
    const long_index_t e = xd.offset(c.n, w.hi0, w.wi0, ch);
    w.off0               = static_cast<uint32_t>(e) * static_cast<uint32_t>(elem_bytes);
    w.pos_valid          = c.pos < k_end && c.n < g.n;
    return w;
}

// Byte offset of X for filter tap (ty, tx) of a window, or kInvalidOffset in the padding.
MFCONV_DEVICE_EXTERN uint32_t tap_byte_offset(const conv_geometry& g, const nhwc_descriptor& xd, const input_window& w,
                                              index_t ty, index_t tx, index_t elem_bytes)
{
    const index_t hi = w.hi0 + ty * g.dil_h;
    const index_t wi = w.wi0 + tx * g.dil_w;
    const bool ok    = w.pos_valid && in_range(hi, g.hi) && in_range(wi, g.wi);
    const uint32_t delta =
        static_cast<uint32_t>(ty * g.dil_h * static_cast<index_t>(xd.stride(1)) +
                              tx * g.dil_w * static_cast<index_t>(xd.stride(2))) *
        static_cast<uint32_t>(elem_bytes);
    return buffer_offset_or_invalid(ok, w.off0 + delta);
}

// The last tile along C / K may be partial; a vector of 8 channels is valid as a whole.
MFCONV_DEVICE_EXTERN bool input_channel_valid(const conv_geometry& g, index_t ch) { return ch + 8 <= g.c; }
MFCONV_DEVICE_EXTERN bool output_channel_valid(const conv_geometry& g, index_t m) { return m + 8 <= g.k; }

// ---------------------------------------------------------------------------------------
// Helpers of the NCHW path (wgrad through a transposed workspace). Kept next to the NHWC
// ones so both paths share one header.
MFCONV_DEVICE_EXTERN uint32_t x_offset_nchw(const conv_geometry& g, index_t n, index_t ch, index_t hi, index_t wi)
{
    return static_cast<uint32_t>(((n * g.c + ch) * g.hi + hi) * g.wi + wi) * 2u;
}

MFCONV_DEVICE_EXTERN uint32_t dy_offset_nchw(const conv_geometry& g, index_t n, index_t m, index_t ho, index_t wo)
{
    return static_cast<uint32_t>(((n * g.k + m) * g.ho + ho) * g.wo + wo) * 2u;
}

// Number of output rows whose input row for tap ty lies inside the image.
MFCONV_DEVICE_EXTERN index_t valid_output_rows(const conv_geometry& g, index_t ty)
{
    const index_t lo     = g.pad_h - ty * g.dil_h;
    const index_t first  = lo <= 0 ? 0 : (lo + g.stride_h - 1) / g.stride_h;
    const index_t hi_lim = g.hi + g.pad_h - ty * g.dil_h;
    index_t last         = hi_lim <= 0 ? -1 : (hi_lim - 1) / g.stride_h;
    if(last >= g.ho)
        last = g.ho - 1;
    return last >= first ? last - first + 1 : 0;
}

} // namespace mfconv::conv::wgrad
