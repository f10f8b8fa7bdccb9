// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Compile-time loops. `static_for<0, N, 1>{}([&](auto i) { ... })` calls the body with
// number<0>, number<1>, ..., so the index can be used as a template argument inside.
#pragma once

#include <utility>

#include "mfconv/core/numeric/integral_constant.hpp"

namespace mfconv {

namespace detail {

template <index_t Begin, index_t Step, typename F, index_t... Is>
MFCONV_HOST_DEVICE constexpr void static_for_impl(F&& f, std::integer_sequence<index_t, Is...>)
{
    (f(number<Begin + Is * Step>{}), ...);
}

} // namespace detail

template <index_t Begin, index_t End, index_t Step = 1>
struct static_for
{
    static_assert(Step != 0, "static_for: zero step");
    static constexpr index_t count = (End - Begin + Step - (Step > 0 ? 1 : -1)) / Step;

    template <typename F>
    MFCONV_HOST_DEVICE constexpr void operator()(F&& f) const
    {
        if constexpr(count > 0)
            detail::static_for_impl<Begin, Step>(static_cast<F&&>(f),
                                                 std::make_integer_sequence<index_t, count>{});
    }
};

// Two-dimensional variant: body(i, j) for i in [0, M), j in [0, N), row major.
template <index_t M, index_t N>
struct static_for_2d
{
    template <typename F>
    MFCONV_HOST_DEVICE constexpr void operator()(F&& f) const
    {
        static_for<0, M>{}([&](auto i) { static_for<0, N>{}([&](auto j) { f(i, j); }); });
    }
};

struct identity
{
    template <typename T>
    MFCONV_HOST_DEVICE constexpr T&& operator()(T&& x) const noexcept
    {
        return static_cast<T&&>(x);
    }
};

// Runtime loop that the compiler is asked to unroll completely.
template <index_t N, typename F>
MFCONV_HOST_DEVICE constexpr void unrolled_for(F&& f)
{
#pragma unroll
    for(index_t i = 0; i < N; ++i)
        f(i);
}

} // namespace mfconv
