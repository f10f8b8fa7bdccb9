// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
#pragma once

#include <concepts>
#include <cstdint>

#include "mfconv/core/numeric/integral_constant.hpp"

namespace mfconv {

template <std::integral T>
MFCONV_HOST_DEVICE constexpr T integer_divide_ceil(T a, T b)
{
    return (a + b - 1) / b;
}

template <std::integral T>
MFCONV_HOST_DEVICE constexpr T integer_divide_floor(T a, T b)
{
    return a / b;
}

template <std::integral T>
MFCONV_HOST_DEVICE constexpr T integer_least_multiple(T a, T b)
{
    return integer_divide_ceil(a, b) * b;
}

template <typename T>
MFCONV_HOST_DEVICE constexpr T max(T a, T b)
{
    return a < b ? b : a;
}

template <typename T>
MFCONV_HOST_DEVICE constexpr T min(T a, T b)
{
    return a < b ? a : b;
}

template <typename T, typename... Ts>
MFCONV_HOST_DEVICE constexpr T max(T a, T b, Ts... rest)
{
    return max(max(a, b), rest...);
}

template <typename T, typename... Ts>
MFCONV_HOST_DEVICE constexpr T min(T a, T b, Ts... rest)
{
    return min(min(a, b), rest...);
}

template <typename T>
MFCONV_HOST_DEVICE constexpr T clamp(T v, T lo, T hi)
{
    return v < lo ? lo : (hi < v ? hi : v);
}

template <std::integral T>
MFCONV_HOST_DEVICE constexpr bool is_power_of_two(T v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

template <std::integral T>
MFCONV_HOST_DEVICE constexpr int integer_log2_floor(T v)
{
    int r = 0;
    while(v > 1)
    {
        v >>= 1;
        ++r;
    }
    return r;
}

template <std::integral T>
MFCONV_HOST_DEVICE constexpr int integer_log2_ceil(T v)
{
    return integer_log2_floor(v) + (is_power_of_two(v) ? 0 : 1);
}

template <std::integral T>
MFCONV_HOST_DEVICE constexpr T gcd(T a, T b)
{
    while(b != 0)
    {
        const T t = a % b;
        a         = b;
        b         = t;
    }
    return a;
}

template <std::integral T>
MFCONV_HOST_DEVICE constexpr T lcm(T a, T b)
{
    return a / gcd(a, b) * b;
}

// Unsigned "0 <= v < bound" for a signed v in one compare.
MFCONV_HOST_DEVICE constexpr bool in_range(index_t v, index_t bound)
{
    return static_cast<uint32_t>(v) < static_cast<uint32_t>(bound);
}

// a * b + c with 24-bit operands (v_mad_u32_u24).
MFCONV_HOST_DEVICE constexpr uint32_t mad_u24(uint32_t a, uint32_t b, uint32_t c)
{
    return (a & 0xffffffu) * (b & 0xffffffu) + c;
}

template <auto x, auto y>
MFCONV_HOST_DEVICE constexpr auto integer_divide_ceil(constant<x>, constant<y>)
{
    return constant<(x + y - 1) / y>{};
}

} // namespace mfconv
