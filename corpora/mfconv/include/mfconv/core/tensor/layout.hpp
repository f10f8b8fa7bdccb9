// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Layout tags of convolution tensors. A tag names the order of the dimensions in memory,
// outermost first; the kernels are written for the channels-last layouts (NHWC activations,
// KYXC weights) and the NCHW entry points transpose through a workspace first.
#pragma once

#include <concepts>

#include "mfconv/core/container/sequence.hpp"

namespace mfconv::tensor_layout {

namespace convolution {

// Activations.
struct NHWC
{
    static constexpr const char* name = "NHWC";
    static constexpr index_t rank     = 4;
    static constexpr bool channels_last = true;
    using logical_to_memory = sequence<0, 2, 3, 1>; // logical N C H W -> memory position
};

struct NCHW
{
    static constexpr const char* name = "NCHW";
    static constexpr index_t rank     = 4;
    static constexpr bool channels_last = false;
    using logical_to_memory = sequence<0, 1, 2, 3>;
};

struct GNHWC
{
    static constexpr const char* name = "GNHWC";
    static constexpr index_t rank     = 5;
    static constexpr bool channels_last = true;
    using logical_to_memory = sequence<0, 1, 3, 4, 2>;
};

// Output gradients use the activation layouts with K channels.
using NHWK = NHWC;
using NKHW = NCHW;

// Weights.
struct KYXC
{
    static constexpr const char* name = "KYXC";
    static constexpr index_t rank     = 4;
    static constexpr bool channels_last = true;
    using logical_to_memory = sequence<0, 2, 3, 1>; // logical K C Y X
};

struct KCYX
{
    static constexpr const char* name = "KCYX";
    static constexpr index_t rank     = 4;
    static constexpr bool channels_last = false;
    using logical_to_memory = sequence<0, 1, 2, 3>;
};

} // namespace convolution

namespace gemm {
struct RowMajor
{
    static constexpr const char* name = "R";
};
struct ColumnMajor
{
    static constexpr const char* name = "C";
};
} // namespace gemm

template <typename L>
concept conv_layout = requires {
    { L::name } -> std::convertible_to<const char*>;
    { L::rank } -> std::convertible_to<index_t>;
    { L::channels_last } -> std::convertible_to<bool>;
    typename L::logical_to_memory;
} && is_permutation_v<typename L::logical_to_memory>;

template <typename L>
concept channels_last_layout = conv_layout<L> && L::channels_last;

static_assert(channels_last_layout<convolution::NHWC>);
static_assert(conv_layout<convolution::KCYX> && !channels_last_layout<convolution::KCYX>);

} // namespace mfconv::tensor_layout
