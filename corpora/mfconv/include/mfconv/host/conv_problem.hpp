// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// conv_problem: a 2-D convolution as the host API describes it, and its derived sizes.
#pragma once

#include "mfconv/core.hpp"

#include <array>
#include <cstdint>

#include "mfconv/conv/conv_kargs.hpp"
#include "mfconv/core/numeric/math.hpp"
#include "mfconv/core/numeric/numeric.hpp"
#include "mfconv/core/tensor/tensor_descriptor.hpp"

namespace mfconv::host {

enum class tensor_format : int
{
    nhwc = 0,
    nchw = 1,
};

struct conv_problem
{
    index_t groups = 1;
    index_t n      = 1;
    index_t c      = 1;
    index_t k      = 1;
    std::array<index_t, 2> input{1, 1};     // Hi, Wi
    std::array<index_t, 2> filter{1, 1};    // Y, X
    std::array<index_t, 2> strides{1, 1};
    std::array<index_t, 2> dilations{1, 1};
    std::array<index_t, 2> left_pads{0, 0};
    std::array<index_t, 2> right_pads{0, 0};
    data_type in_type    = data_type::f16;
    data_type out_type   = data_type::f32; // weight-gradient storage
    tensor_format format = tensor_format::nhwc;

    MFCONV_HOST_DEVICE constexpr index_t output_size(index_t d) const
    {
        const index_t eff = (filter[d] - 1) * dilations[d] + 1;
        return (input[d] + left_pads[d] + right_pads[d] - eff) / strides[d] + 1;
    }

    MFCONV_HOST_DEVICE constexpr index_t ho() const { return output_size(0); }
    MFCONV_HOST_DEVICE constexpr index_t wo() const { return output_size(1); }
    MFCONV_HOST_DEVICE constexpr index_t taps() const { return filter[0] * filter[1]; }

    // GEMM view of the weight gradient.
    MFCONV_HOST_DEVICE constexpr index_t gemm_m() const { return k; }
    MFCONV_HOST_DEVICE constexpr index_t gemm_n() const { return c; }
    MFCONV_HOST_DEVICE constexpr index_t gemm_k() const { return n * ho() * wo(); }

    MFCONV_HOST_DEVICE constexpr long_index_t flops() const
    {
        return 2LL * gemm_m() * gemm_n() * taps() * gemm_k() * groups;
    }

    MFCONV_HOST_DEVICE constexpr bool valid() const
    {
        if(n < 1 || c < 1 || k < 1 || groups < 1)
            return false;
        for(index_t d = 0; d < 2; ++d)
            if(input[d] < 1 || filter[d] < 1 || strides[d] < 1 || dilations[d] < 1 || output_size(d) < 1)
                return false;
        return true;
    }

    MFCONV_HOST_DEVICE constexpr conv::conv_geometry geometry() const
    {
        return conv::conv_geometry{.n        = n,
                                   .c        = c,
                                   .hi       = input[0],
                                   .wi       = input[1],
                                   .k        = k,
                                   .ho       = ho(),
                                   .wo       = wo(),
                                   .y        = filter[0],
                                   .x        = filter[1],
                                   .stride_h = strides[0],
                                   .stride_w = strides[1],
                                   .pad_h    = left_pads[0],
                                   .pad_w    = left_pads[1],
                                   .dil_h    = dilations[0],
                                   .dil_w    = dilations[1],
                                   .groups   = groups};
    }

    MFCONV_HOST_DEVICE constexpr nhwc_descriptor x_descriptor() const
    {
        return make_packed_descriptor<4>({n, input[0], input[1], c});
    }
    MFCONV_HOST_DEVICE constexpr nhwc_descriptor dy_descriptor() const
    {
        return make_packed_descriptor<4>({n, ho(), wo(), k});
    }
    MFCONV_HOST_DEVICE constexpr kyxc_descriptor dw_descriptor() const
    {
        return make_packed_descriptor<4>({k, filter[0], filter[1], c});
    }
};

// A few shapes from the networks the tuning ran on; used by the self-tests of the heuristics.
namespace shapes {
inline constexpr conv_problem resnet50_res2_1x1{
    .n = 256, .c = 64, .k = 256, .input = {56, 56}, .filter = {1, 1}};
inline constexpr conv_problem resnet50_res3_3x3{
    .n = 256, .c = 128, .k = 128, .input = {28, 28}, .filter = {3, 3}, .left_pads = {1, 1}, .right_pads = {1, 1}};
inline constexpr conv_problem unet_3x1{
    .n = 32, .c = 256, .k = 256, .input = {64, 64}, .filter = {3, 1}, .left_pads = {1, 0}, .right_pads = {1, 0}};
inline constexpr conv_problem conformer_1x5{
    .n = 64, .c = 144, .k = 144, .input = {1, 512}, .filter = {1, 5}, .left_pads = {0, 2}, .right_pads = {0, 2}};
} // namespace shapes

static_assert(shapes::resnet50_res3_3x3.ho() == 28 && shapes::resnet50_res3_3x3.valid());
static_assert(shapes::conformer_1x5.wo() == 512);

} // namespace mfconv::host
