// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Kernel arguments of the convolution kernels. The host fills them once per problem from a
// conv_problem (host/conv_problem.hpp); the device only reads them.
#pragma once

#include "mfconv/core.hpp"

#include "mfconv/core/numeric/integer.hpp"
#include "mfconv/core/tensor/tensor_view.hpp"
#include "mfconv/core/utility/magic_division.hpp"

namespace mfconv::conv {

// Problem geometry as the kernels see it (2-D convolution, channels last).
struct conv_geometry
{
    index_t n, c, hi, wi; // input  N C H W
    index_t k, ho, wo;    // output K Ho Wo
    index_t y, x;         // filter
    index_t stride_h, stride_w;
    index_t pad_h, pad_w;
    index_t dil_h, dil_w;
    index_t groups;
};

// GEMM view of the weight gradient:
//   M = K (output channels), N = C (input channels; one accumulator set per filter tap),
//   GEMM-K = N * Ho * Wo (output positions), split over gridDim.y.
struct wgrad_gemm
{
    index_t gemm_k;
    index_t split_k;
    index_t k_per_split; // positions per split, a multiple of the stage size
    magic_divisor div_wo; // position -> (rest, wo)
    magic_divisor div_ho; // rest -> (n, ho)
};

template <typename T>
struct wgrad_kargs
{
    conv_geometry geom;
    wgrad_gemm gemm;
    float alpha;
    float beta;
    nhwc_view<const T> x;  // N Hi Wi C
    nhwc_view<const T> dy; // N Ho Wo K
    kyxc_view<float> dw;   // K Y X C (fp32 accumulation buffer or the workspace)
};

template <typename T>
struct fwd_kargs
{
    conv_geometry geom;
    float alpha;
    float beta;
    nhwc_view<const T> x;
    kyxc_view<const T> w;
    nhwc_view<T> y;
};

struct splitk_reduce_kargs
{
    index_t elements;     // K * Y * X * C
    index_t splits;
    float alpha;
    float beta;
    const float* workspace; // [splits][elements]
    float* dw;
};

} // namespace mfconv::conv
