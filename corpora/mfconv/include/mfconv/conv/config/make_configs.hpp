// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// The generated configuration table of the xdl wgrad kernels.
//
//   constexpr auto configs = make_configs();
//
// expands the spreads (spreads.hpp) in order: for every spread, every filter shape, every
// block shape, every vector width. Combinations that cannot run (LDS budget, more GEMM-K
// positions per stage than threads, vector wider than the tile) are skipped, so an entry's
// index is its position among the valid combinations, which is what the tuning database
// stores.
#pragma once

#include <array>
#include <cstddef>

#include "mfconv/conv/config/kernel_config.hpp"
#include "mfconv/conv/config/spreads.hpp"

namespace mfconv::conv {

// Whether a configuration can be compiled for 16-bit inputs at all.
MFCONV_HOST_DEVICE constexpr bool config_fits(const kernel_config& c)
{
    if(c.threads() != 256)
        return false;
    if(c.tile_k() > c.threads())
        return false;
    if(c.tile_m() % c.mem.vec != 0 || c.tile_n() % c.mem.vec != 0)
        return false;
    if(c.lds_bytes(2) > kGfx950LdsBytes)
        return false;
    if(c.lds_row() % 8 != 0)
        return false;
    // The accumulators alone must leave room for the pipeline registers.
    if(c.acc_regs() + c.prefetch_regs() > c.vgpr_budget())
        return false;
    return true;
}

MFCONV_HOST_DEVICE constexpr kernel_config expand_spread(const config_spread& s, index_t f, index_t b, index_t v)
{
    return kernel_config{
        .filter = s.filters.list[f],
        .block  = s.blocks.list[b],
        .mma    = s.mma,
        .pipe   = s.pipe,
        .mem    = {.vec = s.vecs.list[v], .dy_buffer = s.dy_buffer},
        .lb     = s.lb,
    };
}

template <typename F>
MFCONV_HOST_DEVICE constexpr void for_each_spread_config(F&& f)
{
    for(std::size_t si = 0; si < wgrad_xdl_spreads.size(); ++si)
    {
        const config_spread& s = wgrad_xdl_spreads[si];
        for(index_t fi = 0; fi < s.filters.count; ++fi)
            for(index_t bi = 0; bi < s.blocks.count; ++bi)
                for(index_t vi = 0; vi < s.vecs.count; ++vi)
                {
                    const kernel_config c = expand_spread(s, fi, bi, vi);
                    if(config_fits(c))
                        f(c, static_cast<index_t>(si));
                }
    }
}

MFCONV_HOST_DEVICE constexpr index_t count_configs()
{
    index_t n = 0;
    for_each_spread_config([&](const kernel_config&, index_t) { ++n; });
    return n;
}

inline constexpr index_t num_configs = count_configs();

MFCONV_HOST_DEVICE constexpr std::array<kernel_config, num_configs> make_configs()
{
    std::array<kernel_config, num_configs> out{};
    index_t i = 0;
    for_each_spread_config([&](const kernel_config& c, index_t) { out[i++] = c; });
    return out;
}

// Spread of every entry (for the heuristics and for diagnostics).
MFCONV_HOST_DEVICE constexpr std::array<index_t, num_configs> make_config_spreads()
{
    std::array<index_t, num_configs> out{};
    index_t i = 0;
    for_each_spread_config([&](const kernel_config&, index_t s) { out[i++] = s; });
    return out;
}

inline constexpr auto configs        = make_configs();
inline constexpr auto config_spreads = make_config_spreads();

MFCONV_HOST_DEVICE constexpr bool config_retired(index_t i)
{
    return wgrad_xdl_spreads[config_spreads[i]].retired;
}

// Index of a configuration in the table, or -1.
MFCONV_HOST_DEVICE constexpr index_t find_config(const kernel_config& c)
{
    for(index_t i = 0; i < num_configs; ++i)
        if(configs[i] == c)
            return i;
    return -1;
}

// No duplicates: the database maps one index to one kernel.
inline constexpr bool configs_unique = [] {
    for(index_t i = 0; i < num_configs; ++i)
        for(index_t j = i + 1; j < num_configs; ++j)
            if(configs[i] == configs[j])
                return false;
    return true;
}();

static_assert(configs_unique, "duplicate entries in the wgrad xdl table");
static_assert(num_configs > 64, "spreads expanded to fewer entries than the shipped database references");

} // namespace mfconv::conv
