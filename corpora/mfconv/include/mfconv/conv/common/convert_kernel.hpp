// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Elementwise conversion of the fp32 weight gradient to the weights' storage type (the
// frameworks keep fp16/bf16 master copies in some modes).
#pragma once

#include "mfconv/core.hpp"

#include "mfconv/core/arch/arch.hpp"
#include "mfconv/core/numeric/type_convert.hpp"

namespace mfconv::conv {

struct convert_kargs
{
    long_index_t elements;
    float scale;
    const float* src;
    void* dst;
};

inline constexpr index_t kConvertBlock = 256;
inline constexpr index_t kConvertItems = 4; // elements per thread

template <xdl_input_type Out>
__global__ MFCONV_KERNEL_ATTRIBUTES(kConvertBlock, 4) void convert_output_kernel(convert_kargs kargs)
{
    Out* dst                = static_cast<Out*>(kargs.dst);
    const long_index_t base = (static_cast<long_index_t>(blockIdx.x) * kConvertBlock + threadIdx.x) * kConvertItems;
#pragma unroll
    for(index_t i = 0; i < kConvertItems; ++i)
    {
        const long_index_t e = base + i;
        if(e < kargs.elements)
            dst[e] = type_convert<Out>(kargs.scale * kargs.src[e]);
    }
}

} // namespace mfconv::conv
