// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// wgrad_args: the runtime arguments of one weight-gradient call, and the workspace it needs.
#pragma once

#include "mfconv/core.hpp"

#include <cstddef>
#include <cstdint>

#include "mfconv/conv/config/kernel_config.hpp"
#include "mfconv/host/conv_problem.hpp"

namespace mfconv::host {

struct wgrad_args
{
    conv_problem problem{};
    const void* x  = nullptr; // input activations
    const void* dy = nullptr; // output gradient
    void* dw       = nullptr; // weight gradient (fp32 unless problem.out_type says otherwise)
    void* workspace          = nullptr;
    std::size_t workspace_bytes = 0;
    float alpha   = 1.0f;
    float beta    = 0.0f;
    index_t split_k = 0;        // 0: let the heuristic choose
    bool deterministic = false; // forbid atomics
};

// Workspace layout: [NHWC copies of x and dy when the problem is NCHW][split partials][fp32 dw].
struct wgrad_workspace_layout
{
    std::size_t x_nhwc      = 0;
    std::size_t dy_nhwc     = 0;
    std::size_t partials    = 0;
    std::size_t dw_fp32     = 0;
    std::size_t total       = 0;
};

MFCONV_HOST_DEVICE constexpr std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

MFCONV_HOST_DEVICE constexpr wgrad_workspace_layout wgrad_workspace(const conv_problem& p, const conv::kernel_config& c,
                                                                     index_t split_k)
{
    wgrad_workspace_layout w{};
    const std::size_t elem = static_cast<std::size_t>(data_type_bytes(p.in_type));
    std::size_t off        = 0;
    if(p.format == tensor_format::nchw)
    {
        w.x_nhwc = off;
        off      = align_up(off + elem * p.n * p.c * p.input[0] * p.input[1], 256);
        w.dy_nhwc = off;
        off       = align_up(off + elem * p.n * p.k * p.ho() * p.wo(), 256);
    }
    const std::size_t dw_elems = static_cast<std::size_t>(p.k) * p.taps() * p.c;
    if(c.lb.split == conv::split_mode::workspace && split_k > 1)
    {
        w.partials = off;
        off        = align_up(off + sizeof(float) * dw_elems * split_k, 256);
    }
    if(p.out_type != data_type::f32)
    {
        w.dw_fp32 = off;
        off       = align_up(off + sizeof(float) * dw_elems, 256);
    }
    w.total = off;
    return w;
}

} // namespace mfconv::host
