// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Tuning spreads of the xdl wgrad kernels (gfx950, 16-bit inputs, fp32 accumulation).
//
// A spread is a family of configurations that the tuner explored together: every filter
// shape of the spread is combined with every block shape and every vector width, with the
// spread's pipeline and launch settings. make_configs() (make_configs.hpp) expands the
// spreads in order into the flat table that instance files and the tuning database index.
//
// The table is append-only: the tuning database stores indices. Add new spreads at the end,
// never reorder, and never edit a spread in place once it has shipped (retire it instead by
// setting `.retired = true`, which keeps its entries in the table but hides them from the
// heuristics).
#pragma once

#include <array>

#include "mfconv/conv/config/kernel_config.hpp"

namespace mfconv::conv {

// Upper bounds of the spread lists (std::array needs a fixed size; the counts say how many
// entries are used).
inline constexpr index_t kMaxSpreadFilters = 3;
inline constexpr index_t kMaxSpreadBlocks  = 6;
inline constexpr index_t kMaxSpreadVecs    = 2;

struct config_spread
{
    struct filters_t
    {
        std::array<filter_shape, kMaxSpreadFilters> list{};
        index_t count = 0;
    };

    struct blocks_t
    {
        std::array<block_shape, kMaxSpreadBlocks> list{};
        index_t count = 0;
    };

    struct vecs_t
    {
        std::array<index_t, kMaxSpreadVecs> list{};
        index_t count = 0;
    };

    filters_t filters{};
    blocks_t blocks{};
    vecs_t vecs{};
    mfma_shape mma = mfma_shape::m16n16k32;
    kernel_config::pipeline pipe{};
    bool dy_buffer         = true;
    kernel_config::launch lb{};
    bool retired           = false;

    MFCONV_HOST_DEVICE constexpr index_t size() const { return filters.count * blocks.count * vecs.count; }
};

// Shorthands for the table below.
namespace spread_detail {

MFCONV_HOST_DEVICE constexpr block_shape blk(index_t wm, index_t wn, index_t rm, index_t rn, index_t ks)
{
    return block_shape{.waves = {.m = wm, .n = wn}, .rep = {.m = rm, .n = rn}, .k_steps = ks};
}

inline constexpr kernel_config::pipeline kPipeTight{.depth = 2, .lds_pad = 0, .prefetch = true, .taps_inner = true};
inline constexpr kernel_config::pipeline kPipePadded{.depth = 2, .lds_pad = 8, .prefetch = true, .taps_inner = true};
inline constexpr kernel_config::pipeline kPipeNoPrefetch{.depth = 2, .lds_pad = 0, .prefetch = false, .taps_inner = true};
inline constexpr kernel_config::pipeline kPipePaddedTapsOuter{.depth = 2, .lds_pad = 8, .prefetch = true, .taps_inner = false};

inline constexpr kernel_config::launch kAtomic2{.waves_per_eu = 2, .split = split_mode::atomic};
inline constexpr kernel_config::launch kWorkspace2{.waves_per_eu = 2, .split = split_mode::workspace};
inline constexpr kernel_config::launch kNoSplit2{.waves_per_eu = 2, .split = split_mode::none};
inline constexpr kernel_config::launch kAtomic1{.waves_per_eu = 1, .split = split_mode::atomic};

} // namespace spread_detail

// clang-format off
inline constexpr std::array<config_spread, 18> wgrad_xdl_spreads = [] {
    using namespace spread_detail;
    return std::array<config_spread, 18>{{
        // 0: pointwise, 16x16 MFMA
        {.filters = {.list = {{{1, 1}}}, .count = 1},
         .blocks  = {.list = {{blk(2, 2, 4, 4, 2), blk(2, 2, 5, 5, 1), blk(1, 4, 8, 2, 1)}}, .count = 3},
         .vecs    = {.list = {{8}}, .count = 1},
         .mma     = mfma_shape::m16n16k32,
         .pipe    = kPipePadded,
         .dy_buffer = true,
         .lb      = kAtomic2},
        // 1: 2x1 / 3x1 rows, 32x32, no register prefetch
        {.filters = {.list = {{{2, 1}, {3, 1}}}, .count = 2},
         .blocks  = {.list = {{blk(1, 4, 3, 2, 2), blk(2, 2, 2, 2, 2), blk(1, 4, 4, 1, 2)}}, .count = 3},
         .vecs    = {.list = {{4, 8}}, .count = 2},
         .mma     = mfma_shape::m32n32k16,
         .pipe    = kPipeNoPrefetch,
         .dy_buffer = true,
         .lb      = kAtomic2},
        // 2: 3x1 rows, 32x32, prefetch
        {.filters = {.list = {{{3, 1}}}, .count = 1},
         .blocks  = {.list = {{blk(2, 2, 2, 2, 2), blk(4, 1, 2, 2, 1), blk(2, 2, 3, 2, 1)}}, .count = 3},
         .vecs    = {.list = {{4}}, .count = 1},
         .mma     = mfma_shape::m32n32k16,
         .pipe    = kPipeTight,
         .dy_buffer = false,
         .lb      = kAtomic2},
        // 3: 1x3 / 1x5 columns, 32x32, padded LDS
        {.filters = {.list = {{{1, 3}, {1, 5}}}, .count = 2},
         .blocks  = {.list = {{blk(4, 1, 2, 1, 2), blk(4, 1, 1, 2, 2), blk(2, 2, 2, 1, 1)}}, .count = 3},
         .vecs    = {.list = {{8}}, .count = 1},
         .mma     = mfma_shape::m32n32k16,
         .pipe    = kPipePadded,
         .dy_buffer = false,
         .lb      = kAtomic2},
        // 4: 3x3, 16x16
        {.filters = {.list = {{{3, 3}}}, .count = 1},
         .blocks  = {.list = {{blk(2, 2, 2, 1, 1), blk(2, 2, 1, 2, 1), blk(4, 1, 2, 1, 1)}}, .count = 3},
         .vecs    = {.list = {{4, 8}}, .count = 2},
         .mma     = mfma_shape::m16n16k32,
         .pipe    = kPipePadded,
         .dy_buffer = true,
         .lb      = kAtomic2},
        // 5: 3x3, 32x32, no prefetch
        {.filters = {.list = {{{3, 3}}}, .count = 1},
         .blocks  = {.list = {{blk(2, 2, 1, 1, 1), blk(4, 1, 1, 1, 2)}}, .count = 2},
         .vecs    = {.list = {{4, 8}}, .count = 2},
         .mma     = mfma_shape::m32n32k16,
         .pipe    = kPipeNoPrefetch,
         .dy_buffer = true,
         .lb      = kAtomic2},
        // 6: 5x5 / 7x7, 16x16 (7x7 tiles beyond the LDS budget are dropped)
        {.filters = {.list = {{{5, 5}, {7, 7}}}, .count = 2},
         .blocks  = {.list = {{blk(2, 2, 1, 1, 1), blk(4, 1, 1, 1, 1)}}, .count = 2},
         .vecs    = {.list = {{4}}, .count = 1},
         .mma     = mfma_shape::m16n16k32,
         .pipe    = kPipePadded,
         .dy_buffer = true,
         .lb      = kAtomic1},
        // 7: 5x1 / 7x1 tall filters, 16x16
        {.filters = {.list = {{{5, 1}, {7, 1}}}, .count = 2},
         .blocks  = {.list = {{blk(2, 2, 3, 3, 1), blk(2, 2, 2, 2, 1), blk(4, 1, 2, 2, 1)}}, .count = 3},
         .vecs    = {.list = {{4, 8}}, .count = 2},
         .mma     = mfma_shape::m16n16k32,
         .pipe    = kPipeTight,
         .dy_buffer = false,
         .lb      = kAtomic2},
        // 8: 1x5 / 1x7 wide filters, 16x16, taps outer
        {.filters = {.list = {{{1, 5}, {1, 7}}}, .count = 2},
         .blocks  = {.list = {{blk(2, 2, 3, 3, 1), blk(4, 1, 2, 2, 1)}}, .count = 2},
         .vecs    = {.list = {{4, 8}}, .count = 2},
         .mma     = mfma_shape::m16n16k32,
         .pipe    = kPipePaddedTapsOuter,
         .dy_buffer = true,
         .lb      = kAtomic2},
        // 9: split-K through the workspace (deterministic mode)
        {.filters = {.list = {{{1, 1}, {3, 3}}}, .count = 2},
         .blocks  = {.list = {{blk(2, 2, 2, 2, 2), blk(2, 2, 1, 1, 2)}}, .count = 2},
         .vecs    = {.list = {{8}}, .count = 1},
         .mma     = mfma_shape::m32n32k16,
         .pipe    = kPipePadded,
         .dy_buffer = true,
         .lb      = kWorkspace2},
        // 10: pointwise, 32x32 MFMA, wide tiles (ResNet bottleneck 1x1 layers; 2024-11 retune)
        {.filters = {.list = {{{1, 1}}}, .count = 1},
         .blocks  = {.list = {{blk(2, 2, 4, 3, 2), blk(2, 2, 3, 4, 2), blk(2, 2, 4, 4, 1), blk(1, 4, 4, 2, 2), blk(4, 1, 2, 4, 2)}}, .count = 5},
         .vecs    = {.list = {{4, 8}}, .count = 2},
         .mma     = mfma_shape::m32n32k16,
         .pipe    = kPipeTight,
         .dy_buffer = false,
         .lb      = kAtomic2},
        // 11: no split (small GEMM-K), beta supported
        {.filters = {.list = {{{1, 1}, {3, 1}}}, .count = 2},
         .blocks  = {.list = {{blk(2, 2, 4, 4, 1), blk(2, 2, 3, 3, 2)}}, .count = 2},
         .vecs    = {.list = {{8}}, .count = 1},
         .mma     = mfma_shape::m16n16k32,
         .pipe    = kPipePadded,
         .dy_buffer = true,
         .lb      = kNoSplit2},
        // 12: small tiles for small channel counts
        {.filters = {.list = {{{1, 1}, {3, 3}}}, .count = 2},
         .blocks  = {.list = {{blk(2, 2, 1, 1, 1), blk(2, 2, 2, 1, 2)}}, .count = 2},
         .vecs    = {.list = {{4, 8}}, .count = 2},
         .mma     = mfma_shape::m16n16k32,
         .pipe    = kPipePadded,
         .dy_buffer = true,
         .lb      = kAtomic2},
        // 13: 2x2 / 3x2 filters, 32x32, prefetch, dy through buffers
        {.filters = {.list = {{{2, 2}, {3, 2}}}, .count = 2},
         .blocks  = {.list = {{blk(2, 2, 1, 1, 1), blk(2, 2, 2, 1, 1), blk(4, 1, 1, 2, 1), blk(1, 4, 2, 1, 2)}}, .count = 4},
         .vecs    = {.list = {{4, 8}}, .count = 2},
         .mma     = mfma_shape::m32n32k16,
         .pipe    = kPipeTight,
         .dy_buffer = true,
         .lb      = kAtomic2},
        // 14: 2x1 rows, 32x32, prefetch (2024-12 retune)
        {.filters = {.list = {{{2, 1}}}, .count = 1},
         .blocks  = {.list = {{blk(2, 2, 2, 3, 2), blk(1, 4, 3, 2, 2), blk(2, 2, 3, 3, 1)}}, .count = 3},
         .vecs    = {.list = {{4, 8}}, .count = 2},
         .mma     = mfma_shape::m32n32k16,
         .pipe    = kPipeTight,
         .dy_buffer = false,
         .lb      = kAtomic2},
        // 15: pointwise, deeper k (2025-02 retune; retired: superseded by spread 10)
        {.filters = {.list = {{{1, 1}}}, .count = 1},
         .blocks  = {.list = {{blk(2, 2, 2, 2, 4), blk(2, 2, 4, 2, 2)}}, .count = 2},
         .vecs    = {.list = {{8}}, .count = 1},
         .mma     = mfma_shape::m32n32k16,
         .pipe    = kPipeTight,
         .dy_buffer = true,
         .lb      = kAtomic2,
         .retired = true},
        // 16: 3x1 / 1x3, 16x16, tight LDS (2025-03 retune for the speech models)
        {.filters = {.list = {{{3, 1}, {1, 3}}}, .count = 2},
         .blocks  = {.list = {{blk(2, 2, 3, 3, 1), blk(2, 2, 4, 2, 1), blk(4, 1, 2, 3, 1)}}, .count = 3},
         .vecs    = {.list = {{4, 8}}, .count = 2},
         .mma     = mfma_shape::m16n16k32,
         .pipe    = kPipeTight,
         .dy_buffer = true,
         .lb      = kAtomic2},
        // 17: large pointwise tiles at occupancy 1 (K, C >= 2048)
        {.filters = {.list = {{{1, 1}}}, .count = 1},
         .blocks  = {.list = {{blk(2, 2, 4, 4, 2), blk(2, 2, 8, 4, 1), blk(2, 2, 4, 8, 1)}}, .count = 3},
         .vecs    = {.list = {{8}}, .count = 1},
         .mma     = mfma_shape::m32n32k16,
         .pipe    = kPipePadded,
         .dy_buffer = true,
         .lb      = kAtomic1},
    }};
}();
// clang-format on

} // namespace mfconv::conv
