// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Strided tensor descriptors. Lengths and strides are runtime values (they come from the
// problem); the innermost dimension is packed (stride 1), which is what every kernel
// requires for vector access and what lets the address computations skip one multiply.
#pragma once

#include <array>
#include <cstdint>

#include "mfconv/core/numeric/integer.hpp"
#include "mfconv/core/numeric/math.hpp"
#include "mfconv/core/tensor/layout.hpp"

namespace mfconv {

template <index_t Rank>
struct packed_inner_descriptor
{
    static_assert(Rank >= 1 && Rank <= 6, "descriptor rank");
    static constexpr index_t rank = Rank;

    std::array<long_index_t, Rank> lengths{};
    std::array<long_index_t, Rank> strides{}; // strides[Rank - 1] == 1

    MFCONV_HOST_DEVICE constexpr long_index_t length(index_t d) const { return lengths[d]; }
    MFCONV_HOST_DEVICE constexpr long_index_t stride(index_t d) const { return strides[d]; }

    MFCONV_HOST_DEVICE constexpr long_index_t element_size() const
    {
        long_index_t n = 1;
        for(index_t d = 0; d < Rank; ++d)
            n *= lengths[d];
        return n;
    }

    // Elements spanned from the first to one past the last element.
    MFCONV_HOST_DEVICE constexpr long_index_t element_space_size() const
    {
        long_index_t s = 1;
        for(index_t d = 0; d < Rank; ++d)
            s += (lengths[d] - 1) * strides[d];
        return s;
    }

    // Element offset of a coordinate given outermost first. The innermost index is added
    // without a multiply.
    template <typename... Is>
        requires(sizeof...(Is) == Rank)
    MFCONV_HOST_DEVICE constexpr long_index_t offset(Is... is) const
    {
        const long_index_t idx[Rank] = {static_cast<long_index_t>(is)...};
        long_index_t off             = 0;
        for(index_t d = 0; d + 1 < Rank; ++d)
            off += idx[d] * strides[d];
        return off + idx[Rank - 1];
    }

    MFCONV_HOST_DEVICE constexpr bool is_packed() const
    {
        long_index_t expect = 1;
        for(index_t d = Rank - 1; d >= 0; --d)
        {
            if(strides[d] != expect)
                return false;
            expect *= lengths[d];
        }
        return true;
    }
};

template <index_t Rank>
MFCONV_HOST_DEVICE constexpr packed_inner_descriptor<Rank> make_packed_descriptor(const std::array<long_index_t, Rank>& lengths)
{
    packed_inner_descriptor<Rank> d{};
    d.lengths           = lengths;
    long_index_t stride = 1;
    for(index_t i = Rank - 1; i >= 0; --i)
    {
        d.strides[i] = stride;
        stride *= lengths[i];
    }
    return d;
}

template <index_t Rank>
MFCONV_HOST_DEVICE constexpr packed_inner_descriptor<Rank> make_strided_descriptor(const std::array<long_index_t, Rank>& lengths,
                                                                             const std::array<long_index_t, Rank>& strides)
{
    return packed_inner_descriptor<Rank>{lengths, strides};
}

// Activation (N, H, W, C) and weight (K, Y, X, C) descriptors in memory order.
using nhwc_descriptor = packed_inner_descriptor<4>;
using kyxc_descriptor = packed_inner_descriptor<4>;

static_assert(make_packed_descriptor<4>({2, 3, 4, 5}).offset(1, 2, 3, 4) == 60 + 40 + 15 + 4);
static_assert(make_packed_descriptor<4>({2, 3, 4, 5}).is_packed());

} // namespace mfconv
