// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Compile-time names of configurations, e.g. "wgrad_xdl_f3x1_b128x128x32_w2x2_m32_v4_p0_pf",
// used in logs, in the profiler's kernel list and as keys of the tuning database.
#pragma once

#include <array>
#include <cstddef>

#include "mfconv/conv/config/kernel_config.hpp"

namespace mfconv::conv {

template <std::size_t N>
struct fixed_string
{
    std::array<char, N + 1> data{};
    std::size_t size = 0;

    MFCONV_HOST_DEVICE constexpr void append(char ch)
    {
        if(size < N)
            data[size++] = ch;
        data[size] = '\0';
    }

    MFCONV_HOST_DEVICE constexpr void append(const char* s)
    {
        while(*s != '\0')
            append(*s++);
    }

    MFCONV_HOST_DEVICE constexpr void append_int(index_t v)
    {
        if(v < 0)
        {
            append('-');
            v = -v;
        }
        char digits[12]{};
        index_t nd = 0;
        do
        {
            digits[nd++] = static_cast<char>('0' + v % 10);
            v /= 10;
        } while(v > 0);
        while(nd > 0)
            append(digits[--nd]);
    }

    MFCONV_HOST_DEVICE constexpr const char* c_str() const { return data.data(); }
};

inline constexpr std::size_t kConfigNameMax = 96;

MFCONV_HOST_DEVICE constexpr fixed_string<kConfigNameMax> config_name(const kernel_config& c)
{
    fixed_string<kConfigNameMax> s;
    s.append("wgrad_xdl_f");
    s.append_int(c.filter.y);
    s.append('x');
    s.append_int(c.filter.x);
    s.append("_b");
    s.append_int(c.tile_m());
    s.append('x');
    s.append_int(c.tile_n());
    s.append('x');
    s.append_int(c.tile_k());
    s.append("_w");
    s.append_int(c.block.waves.m);
    s.append('x');
    s.append_int(c.block.waves.n);
    s.append("_m");
    s.append_int(c.mma_m());
    s.append("_v");
    s.append_int(c.mem.vec);
    s.append("_p");
    s.append_int(c.pipe.lds_pad);
    if(c.pipe.prefetch)
        s.append("_pf");
    if(!c.pipe.taps_inner)
        s.append("_to");
    if(!c.mem.dy_buffer)
        s.append("_dyp");
    switch(c.lb.split)
    {
    case split_mode::none: s.append("_ns"); break;
    case split_mode::atomic: break;
    case split_mode::workspace: s.append("_ws"); break;
    }
    return s;
}

template <kernel_config C>
inline constexpr auto config_name_v = config_name(C);

} // namespace mfconv::conv
