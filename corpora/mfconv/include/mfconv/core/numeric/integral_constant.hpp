// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Compile-time constants carried in types. `number<4>{}` is an index known at compile time;
// arithmetic between two of them stays compile-time, arithmetic with a runtime index
// decays to the runtime type.
#pragma once

#include <type_traits>

#include "mfconv/core/numeric/integer.hpp"

namespace mfconv {

template <auto v>
struct constant
{
    using value_type = decltype(v);
    using type       = constant;

    static constexpr value_type value = v;

    MFCONV_HOST_DEVICE constexpr operator value_type() const noexcept { return value; }
    MFCONV_HOST_DEVICE constexpr value_type operator()() const noexcept { return value; }
    MFCONV_HOST_DEVICE static constexpr bool is_static() { return true; }
};

template <index_t v>
using number = constant<v>;

template <long_index_t v>
using long_number = constant<v>;

template <bool b>
using bool_constant = constant<b>;

using true_type  = bool_constant<true>;
using false_type = bool_constant<false>;

template <typename T>
struct is_constant : std::false_type
{
};

template <auto v>
struct is_constant<constant<v>> : std::true_type
{
};

template <typename T>
inline constexpr bool is_constant_v = is_constant<std::remove_cvref_t<T>>::value;

#define MFCONV_CONSTANT_BINARY_OP(OP)                                                                              \
    template <auto x, auto y>                                                                                      \
    MFCONV_HOST_DEVICE constexpr auto operator OP(constant<x>, constant<y>)                                        \
    {                                                                                                              \
        return constant<(x OP y)>{};                                                                               \
    }

MFCONV_CONSTANT_BINARY_OP(+)
MFCONV_CONSTANT_BINARY_OP(-)
MFCONV_CONSTANT_BINARY_OP(*)
MFCONV_CONSTANT_BINARY_OP(/)
MFCONV_CONSTANT_BINARY_OP(%)
MFCONV_CONSTANT_BINARY_OP(&)
MFCONV_CONSTANT_BINARY_OP(|)
MFCONV_CONSTANT_BINARY_OP(^)
MFCONV_CONSTANT_BINARY_OP(<<)
MFCONV_CONSTANT_BINARY_OP(>>)
MFCONV_CONSTANT_BINARY_OP(&&)
MFCONV_CONSTANT_BINARY_OP(||)
MFCONV_CONSTANT_BINARY_OP(==)
MFCONV_CONSTANT_BINARY_OP(!=)
MFCONV_CONSTANT_BINARY_OP(<)
MFCONV_CONSTANT_BINARY_OP(<=)
MFCONV_CONSTANT_BINARY_OP(>)
MFCONV_CONSTANT_BINARY_OP(>=)

#undef MFCONV_CONSTANT_BINARY_OP

template <auto x>
MFCONV_HOST_DEVICE constexpr auto operator-(constant<x>)
{
    return constant<(-x)>{};
}

template <auto x>
MFCONV_HOST_DEVICE constexpr auto operator!(constant<x>)
{
    return constant<(!x)>{};
}

// Value of a static or runtime index.
template <typename T>
MFCONV_HOST_DEVICE constexpr auto value_of(T x)
{
    if constexpr(is_constant_v<T>)
        return T::value;
    else
        return x;
}

} // namespace mfconv
