// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Layout transforms between NCHW and NHWC (and KCYX <-> KYXC), tiled through LDS. The
// channels-last kernels reach NCHW tensors through these: the input is transposed into the
// workspace, the kernel runs, and outputs are transposed back.
#pragma once

#include "mfconv/core.hpp"

#include <concepts>

#include "mfconv/core/arch/arch.hpp"
#include "mfconv/core/numeric/numeric.hpp"
#include "mfconv/core/numeric/math.hpp"

namespace mfconv::conv {

struct layout_transform_kargs
{
    index_t n;        // batch (outer dimension, untouched)
    index_t c;        // channels
    index_t hw;       // spatial size (H * W)
    const void* src;  // [n][c][hw] or [n][hw][c]
    void* dst;        // the other one
};

inline constexpr index_t kTransposeTile = 32;
inline constexpr index_t kTransposeRows = 8; // rows of the tile per thread pass (block = 32 x 8)

enum class transpose_direction : int
{
    nchw_to_nhwc = 0,
    nhwc_to_nchw = 1,
};

// One 32 x 32 tile of the [c][hw] matrix of one image per workgroup; blockIdx.z is the image.
template <conv_element T, transpose_direction Dir>
__global__ MFCONV_KERNEL_ATTRIBUTES(kTransposeTile * kTransposeRows, 4) void layout_transform_kernel(layout_transform_kargs kargs)
{
    __shared__ T tile[kTransposeTile][kTransposeTile + 1];

    const index_t rows = Dir == transpose_direction::nchw_to_nhwc ? kargs.c : kargs.hw;
    const index_t cols = Dir == transpose_direction::nchw_to_nhwc ? kargs.hw : kargs.c;
    const long_index_t image = static_cast<long_index_t>(blockIdx.z) * rows * cols;

    const T* src = static_cast<const T*>(kargs.src) + image;
    T* dst       = static_cast<T*>(kargs.dst) + image;

    const index_t col0 = blockIdx.x * kTransposeTile;
    const index_t row0 = blockIdx.y * kTransposeTile;
    const index_t tx   = threadIdx.x % kTransposeTile;
    const index_t ty   = threadIdx.x / kTransposeTile;

#pragma unroll
    for(index_t r = 0; r < kTransposeTile; r += kTransposeRows)
    {
        const index_t row = row0 + ty + r;
        const index_t col = col0 + tx;
        if(row < rows && col < cols)
            tile[ty + r][tx] = src[static_cast<long_index_t>(row) * cols + col];
    }
    block_sync_lds();
#pragma unroll
    for(index_t r = 0; r < kTransposeTile; r += kTransposeRows)
    {
        const index_t row = col0 + ty + r; // rows of the output are columns of the input
        const index_t col = row0 + tx;
        if(row < cols && col < rows)
            dst[static_cast<long_index_t>(row) * rows + col] = tile[tx][ty + r];
    }
}

MFCONV_HOST_DEVICE constexpr dim3 layout_transform_grid(const layout_transform_kargs& k, transpose_direction d)
{
    const index_t rows = d == transpose_direction::nchw_to_nhwc ? k.c : k.hw;
    const index_t cols = d == transpose_direction::nchw_to_nhwc ? k.hw : k.c;
    return dim3(static_cast<unsigned>(integer_divide_ceil(cols, kTransposeTile)),
                static_cast<unsigned>(integer_divide_ceil(rows, kTransposeTile)), static_cast<unsigned>(k.n));
}

} // namespace mfconv::conv
