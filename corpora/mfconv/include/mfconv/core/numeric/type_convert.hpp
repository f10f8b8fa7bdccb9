// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
#pragma once

#include "mfconv/core/numeric/numeric.hpp"
#include "mfconv/core/numeric/vector_type.hpp"

namespace mfconv {

// Element conversion between the kernels' data types. Conversions to bf16 use the library's
// rounding mode, everything else the language conversion.
template <typename Y, typename X>
MFCONV_HOST_DEVICE constexpr Y type_convert(X x)
{
    if constexpr(std::is_same_v<Y, X>)
        return x;
    else if constexpr(std::is_same_v<Y, bf16_t>)
        return float_to_bf16(static_cast<float>(x));
    else if constexpr(std::is_same_v<X, bf16_t>)
        return static_cast<Y>(bf16_to_float(x));
    else
        return static_cast<Y>(x);
}

template <typename Y, typename X, index_t N>
MFCONV_HOST_DEVICE constexpr ext_vector_t<Y, N> type_convert_vector(ext_vector_t<X, N> x)
{
    ext_vector_t<Y, N> y{};
    for(index_t i = 0; i < N; ++i)
        y[i] = type_convert<Y>(x[i]);
    return y;
}

// Scale-and-convert used by the epilogues: y = alpha * x (+ beta * y_old).
template <typename Y>
struct scale_convert
{
    float alpha = 1.0f;
    float beta  = 0.0f;

    MFCONV_HOST_DEVICE constexpr Y operator()(float x) const { return type_convert<Y>(alpha * x); }
    MFCONV_HOST_DEVICE constexpr Y operator()(float x, Y old) const
    {
        return type_convert<Y>(alpha * x + beta * type_convert<float>(old));
    }
};

} // namespace mfconv
