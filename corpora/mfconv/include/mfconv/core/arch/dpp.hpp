// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Cross-lane operations: DPP row ops, ds_swizzle and bpermute based wave reductions.
// Used by the normalisation and reduction kernels; the conv kernels do not need them.
#pragma once

#include <cstdint>

#include "mfconv/core/arch/arch.hpp"
#include "mfconv/core/utility/bit_cast.hpp"

namespace mfconv {

// DPP controls (gfx9).
enum dpp_ctrl : int
{
    dpp_quad_perm_0123 = 0x0e4,
    dpp_row_shr1       = 0x111,
    dpp_row_shr2       = 0x112,
    dpp_row_shr4       = 0x114,
    dpp_row_shr8       = 0x118,
    dpp_row_bcast15    = 0x142,
    dpp_row_bcast31    = 0x143,
    dpp_row_mirror     = 0x140,
    dpp_row_half_mirror = 0x141,
};

template <int Ctrl, int RowMask = 0xf, int BankMask = 0xf, bool BoundCtrl = false>
MFCONV_DEVICE float dpp_mov(float v)
{
    return bit_cast<float>(__builtin_amdgcn_update_dpp(0, bit_cast<int>(v), Ctrl, RowMask, BankMask, BoundCtrl));
}

template <int Ctrl, int RowMask = 0xf, int BankMask = 0xf, bool BoundCtrl = false>
MFCONV_DEVICE int dpp_mov(int v)
{
    return __builtin_amdgcn_update_dpp(0, v, Ctrl, RowMask, BankMask, BoundCtrl);
}

MFCONV_DEVICE float lane_shuffle(float v, index_t src_lane)
{
    return bit_cast<float>(__builtin_amdgcn_ds_bpermute(src_lane << 2, bit_cast<int>(v)));
}

MFCONV_DEVICE float lane_shuffle_xor(float v, index_t mask)
{
    return lane_shuffle(v, lane_id_mbcnt() ^ mask);
}

struct reduce_op_sum
{
    MFCONV_HOST_DEVICE constexpr float operator()(float a, float b) const { return a + b; }
    static constexpr float identity = 0.0f;
};

struct reduce_op_max
{
    MFCONV_HOST_DEVICE constexpr float operator()(float a, float b) const { return a < b ? b : a; }
    static constexpr float identity = -3.402823466e+38f;
};

// Reduction over the 16 lanes of a DPP row.
template <typename Op>
MFCONV_DEVICE float row_reduce(float v, Op op = {})
{
    v = op(v, dpp_mov<dpp_row_shr1>(v));
    v = op(v, dpp_mov<dpp_row_shr2>(v));
    v = op(v, dpp_mov<dpp_row_shr4>(v));
    v = op(v, dpp_mov<dpp_row_shr8>(v));
    return v;
}

// Reduction over the whole wave (result valid in every lane).
template <typename Op>
MFCONV_DEVICE float wave_reduce(float v, Op op = {})
{
#pragma unroll
    for(index_t mask = kWaveSize / 2; mask > 0; mask /= 2)
        v = op(v, lane_shuffle_xor(v, mask));
    return v;
}

// Kahan-compensated accumulation, used by the fp32 reference reductions.
struct kahan_sum
{
    float sum = 0.0f;
    float c   = 0.0f;

    MFCONV_HOST_DEVICE constexpr void add(float x)
    {
        const float y = x - c;
        const float t = sum + y;
        c             = (t - sum) - y;
        sum           = t;
    }
};

} // namespace mfconv
