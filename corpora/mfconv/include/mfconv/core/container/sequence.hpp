// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// sequence<Is...>: a compile-time list of indices (dimension orders, vector access orders).
#pragma once

#include <array>
#include <utility>

#include "mfconv/core/numeric/integral_constant.hpp"

namespace mfconv {

template <index_t... Is>
struct sequence
{
    using type = sequence;
    static constexpr index_t size() { return sizeof...(Is); }

    static constexpr std::array<index_t, sizeof...(Is)> values{Is...};

    template <index_t I>
    static constexpr index_t at(number<I>)
    {
        static_assert(I < sizeof...(Is), "sequence index out of range");
        return values[I];
    }

    static constexpr index_t at(index_t i) { return values[i]; }

    static constexpr index_t product() { return (index_t{1} * ... * Is); }
    static constexpr index_t sum() { return (index_t{0} + ... + Is); }

    template <index_t... Js>
    static constexpr auto push_back(sequence<Js...>)
    {
        return sequence<Is..., Js...>{};
    }

    // Position of value `v`, or -1.
    static constexpr index_t find(index_t v)
    {
        for(index_t i = 0; i < size(); ++i)
            if(values[i] == v)
                return i;
        return -1;
    }

    // The inverse permutation (sequence must be a permutation of 0..size-1).
    static constexpr std::array<index_t, sizeof...(Is)> inverse()
    {
        std::array<index_t, sizeof...(Is)> r{};
        for(index_t i = 0; i < size(); ++i)
            r[values[i]] = i;
        return r;
    }
};

template <index_t N>
using make_index_sequence_t = decltype([]<index_t... Is>(std::integer_sequence<index_t, Is...>) {
    return sequence<Is...>{};
}(std::make_integer_sequence<index_t, N>{}));

template <typename S>
struct is_sequence : std::false_type
{
};

template <index_t... Is>
struct is_sequence<sequence<Is...>> : std::true_type
{
};

template <typename S>
concept index_sequence = is_sequence<S>::value;

template <index_sequence S>
inline constexpr bool is_permutation_v = [] {
    std::array<bool, S::size()> seen{};
    for(index_t i = 0; i < S::size(); ++i)
    {
        const index_t v = S::at(i);
        if(v < 0 || v >= S::size() || seen[v])
            return false;
        seen[v] = true;
    }
    return true;
}();

} // namespace mfconv
