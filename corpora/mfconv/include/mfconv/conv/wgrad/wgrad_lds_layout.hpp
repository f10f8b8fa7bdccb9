// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// LDS layout of the xdl wgrad kernels. Each stage of the ring holds
//   A: dY^T  [tile_m][tile_k + pad]            (row = output channel, GEMM-K contiguous)
//   B: X^T   [taps][tile_n][tile_k + pad]      (one tile per filter tap)
// transposed on the way in, so that one MFMA fragment (8 consecutive GEMM-K positions) is a
// single ds_read_b128.
#pragma once

#include "mfconv/core.hpp"

#include <cstdint>

#include "mfconv/conv/config/kernel_config.hpp"
#include "mfconv/core/arch/lds.hpp"

namespace mfconv::conv::wgrad {

template <typename T, kernel_config C>
struct lds_layout
{
    static constexpr index_t kElemBytes  = sizeof(T);
    static constexpr index_t kRow        = C.lds_row();
    static constexpr index_t kABytes     = C.tile_m() * kRow * kElemBytes;
    static constexpr index_t kBTapBytes  = C.tile_n() * kRow * kElemBytes;
    static constexpr index_t kBBytes     = C.taps() * kBTapBytes;
    static constexpr index_t kStageBytes = kABytes + kBBytes;
    static constexpr index_t kRing       = C.pipe.ring_depth();
    static constexpr index_t kTotalBytes = kRing * kStageBytes;

    static_assert(kTotalBytes == C.lds_bytes(kElemBytes));
    static_assert(kTotalBytes <= kGfx950LdsBytes, "wgrad xdl: LDS budget exceeded");
    static_assert(kRow % 8 == 0, "LDS rows keep 16-byte alignment");

    MFCONV_HOST_DEVICE static constexpr uint32_t stage_base(index_t buf)
    {
        return static_cast<uint32_t>(buf) * kStageBytes;
    }
    MFCONV_HOST_DEVICE static constexpr uint32_t a_base(index_t buf) { return stage_base(buf); }
    MFCONV_HOST_DEVICE static constexpr uint32_t b_base(index_t buf, index_t tap)
    {
        return stage_base(buf) + kABytes + static_cast<uint32_t>(tap) * kBTapBytes;
    }

    // Byte offset of the MFMA fragment at [row][k] of a tile.
    MFCONV_DEVICE static uint32_t frag_offset(index_t row, index_t k) { return lds_elem_offset<T>(row, k, kRow); }
};

} // namespace mfconv::conv::wgrad
