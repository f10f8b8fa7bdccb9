// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Second pass of split_mode::workspace: sum the per-split partial weight gradients and apply
// alpha/beta. The workspace is [splits][K * Y * X * C] fp32.
#pragma once

#include "mfconv/core.hpp"

#include "mfconv/conv/conv_kargs.hpp"
#include "mfconv/core/arch/arch.hpp"
#include "mfconv/core/numeric/vector_type.hpp"

namespace mfconv::conv::wgrad {

inline constexpr index_t kSplitkReduceBlock = 256;

template <index_t Vec>
    requires(Vec == 1 || Vec == 2 || Vec == 4)
__global__ MFCONV_KERNEL_ATTRIBUTES(kSplitkReduceBlock, 1) void wgrad_splitk_reduce_kernel(splitk_reduce_kargs kargs)
{
    using vec_t     = ext_vector_t<float, Vec>;
    const index_t i = (get_block_1d_id() * kSplitkReduceBlock + get_thread_local_1d_id()) * Vec;
    if(i >= kargs.elements)
        return;
    if(i + Vec <= kargs.elements)
    {
        vec_t s{};
        for(index_t sp = 0; sp < kargs.splits; ++sp)
            s += *reinterpret_cast<const vec_t*>(kargs.workspace + static_cast<long_index_t>(sp) * kargs.elements + i);
        vec_t out = kargs.alpha * s;
        if(kargs.beta != 0.0f)
            out += kargs.beta * *reinterpret_cast<const vec_t*>(kargs.dw + i);
        *reinterpret_cast<vec_t*>(kargs.dw + i) = out;
    }
    else
    {
        for(index_t v = i; v < kargs.elements; ++v)
        {
            float s = 0.0f;
            for(index_t sp = 0; sp < kargs.splits; ++sp)
                s += kargs.workspace[static_cast<long_index_t>(sp) * kargs.elements + v];
            kargs.dw[v] = kargs.alpha * s + (kargs.beta != 0.0f ? kargs.beta * kargs.dw[v] : 0.0f);
        }
    }
}

MFCONV_HOST_DEVICE constexpr index_t splitk_reduce_vector(index_t elements)
{
    return elements % 4 == 0 ? 4 : (elements % 2 == 0 ? 2 : 1);
}

} // namespace mfconv::conv::wgrad
