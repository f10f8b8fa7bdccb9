// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Configuration choice for a problem when the tuning database has no entry: a score over
// the table (tile efficiency, occupancy of the device, pipeline depth), evaluated at run
// time from the constexpr table.
#pragma once

#include "mfconv/core.hpp"

#include "mfconv/conv/config/make_configs.hpp"
#include "mfconv/host/conv_problem.hpp"

namespace mfconv::host {

struct device_traits
{
    index_t compute_units = 256; // gfx950 (MI355X)
    index_t simds_per_cu  = 4;
    index_t lds_bytes     = 160 * 1024;
};

inline constexpr device_traits kGfx950{};

// Whether table entry `c` computes problem `p` at all.
MFCONV_HOST_DEVICE constexpr bool config_applicable(const conv::kernel_config& c, const conv_problem& p)
{
    if(c.filter.y != p.filter[0] || c.filter.x != p.filter[1])
        return false;
    if(p.c % 8 != 0 || p.k % 8 != 0) // whole vectors of channels
        return false;
    if(p.groups != 1)
        return false;
    return p.valid();
}

// Fraction of the MFMA work that is not padding, in 1/1024.
MFCONV_HOST_DEVICE constexpr index_t tile_efficiency(const conv::kernel_config& c, const conv_problem& p)
{
    const long_index_t m_pad = integer_least_multiple<long_index_t>(p.k, c.tile_m());
    const long_index_t n_pad = integer_least_multiple<long_index_t>(p.c, c.tile_n());
    return static_cast<index_t>(1024LL * p.k * p.c / (m_pad * n_pad));
}

MFCONV_HOST_DEVICE constexpr index_t choose_split_k(const conv::kernel_config& c, const conv_problem& p,
                                                    const device_traits& dev = kGfx950)
{
    const index_t tiles  = integer_divide_ceil(p.k, c.tile_m()) * integer_divide_ceil(p.c, c.tile_n());
    const index_t target = dev.compute_units * c.lb.waves_per_eu;
    if(c.lb.split == conv::split_mode::none || tiles >= target)
        return 1;
    const index_t max_split = max<index_t>(1, p.gemm_k() / (4 * c.tile_k()));
    return clamp<index_t>(target / tiles, 1, min<index_t>(max_split, 64));
}

MFCONV_HOST_DEVICE constexpr index_t config_score(const conv::kernel_config& c, const conv_problem& p,
                                                  const device_traits& dev = kGfx950)
{
    index_t score = tile_efficiency(c, p);
    score += c.tile_m() * c.tile_n() / 64;                // bigger tiles reuse more
    score += c.pipe.prefetch ? 64 : 0;
    score -= c.pipe.lds_pad == 0 ? 16 : 0;               // bank conflicts
    score -= c.lds_bytes(2) > dev.lds_bytes / 2 ? 128 : 0; // one workgroup per CU
    return score;
}

MFCONV_HOST_DEVICE constexpr index_t select_wgrad_config(const conv_problem& p, bool deterministic = false)
{
    index_t best = -1, best_score = 0;
    for(index_t i = 0; i < conv::num_configs; ++i)
    {
        const conv::kernel_config& c = conv::configs[i];
        if(conv::config_retired(i) || !config_applicable(c, p))
            continue;
        if(deterministic && c.lb.split == conv::split_mode::atomic)
            continue;
        const index_t s = config_score(c, p);
        if(best < 0 || s > best_score)
        {
            best       = i;
            best_score = s;
        }
    }
    return best;
}

static_assert(select_wgrad_config(shapes::resnet50_res2_1x1) >= 0, "no wgrad config for 1x1");
static_assert(select_wgrad_config(shapes::resnet50_res3_3x3) >= 0, "no wgrad config for 3x3");

} // namespace mfconv::host
