// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// numeric<T>: limits of the element types the kernels handle, usable in device code and in
// constant expressions (std::numeric_limits has no __bf16 specialisation in libstdc++ < 13).
#pragma once

#include <cstdint>
#include <limits>

#include "mfconv/core/numeric/bfloat16.hpp"
#include "mfconv/core/numeric/half.hpp"
#include "mfconv/core/utility/type_traits.hpp"

namespace mfconv {

enum class data_type : int
{
    f32  = 0,
    f16  = 1,
    bf16 = 2,
    i8   = 3,
    i32  = 4,
    f8   = 5,
};

template <typename T>
struct numeric;

template <>
struct numeric<float>
{
    static constexpr data_type id    = data_type::f32;
    static constexpr const char* name = "fp32";
    static constexpr int bytes       = 4;
    MFCONV_HOST_DEVICE static constexpr float min() { return std::numeric_limits<float>::min(); }
    MFCONV_HOST_DEVICE static constexpr float max() { return std::numeric_limits<float>::max(); }
    MFCONV_HOST_DEVICE static constexpr float lowest() { return std::numeric_limits<float>::lowest(); }
    MFCONV_HOST_DEVICE static constexpr float epsilon() { return std::numeric_limits<float>::epsilon(); }
    MFCONV_HOST_DEVICE static constexpr float zero() { return 0.0f; }
};

template <>
struct numeric<half_t>
{
    static constexpr data_type id    = data_type::f16;
    static constexpr const char* name = "fp16";
    static constexpr int bytes       = 2;
    MFCONV_HOST_DEVICE static constexpr half_t min() { return half_from_raw(0x0400); }
    MFCONV_HOST_DEVICE static constexpr half_t max() { return half_from_raw(kHalfRawMax); }
    MFCONV_HOST_DEVICE static constexpr half_t lowest() { return half_from_raw(kHalfRawLowest); }
    MFCONV_HOST_DEVICE static constexpr half_t epsilon() { return half_from_raw(0x1400); }
    MFCONV_HOST_DEVICE static constexpr half_t zero() { return half_from_raw(0); }
};

template <>
struct numeric<bf16_t>
{
    static constexpr data_type id    = data_type::bf16;
    static constexpr const char* name = "bf16";
    static constexpr int bytes       = 2;
    MFCONV_HOST_DEVICE static constexpr bf16_t min() { return bit_cast<bf16_t>(bf16_raw_t(0x0080)); }
    MFCONV_HOST_DEVICE static constexpr bf16_t max() { return bit_cast<bf16_t>(bf16_raw_t(0x7f7f)); }
    MFCONV_HOST_DEVICE static constexpr bf16_t lowest() { return bit_cast<bf16_t>(bf16_raw_t(0xff7f)); }
    MFCONV_HOST_DEVICE static constexpr bf16_t epsilon() { return bit_cast<bf16_t>(bf16_raw_t(0x3c00)); }
    MFCONV_HOST_DEVICE static constexpr bf16_t zero() { return bit_cast<bf16_t>(bf16_raw_t(0)); }
};

template <>
struct numeric<int8_t>
{
    static constexpr data_type id    = data_type::i8;
    static constexpr const char* name = "int8";
    static constexpr int bytes       = 1;
    MFCONV_HOST_DEVICE static constexpr int8_t min() { return std::numeric_limits<int8_t>::min(); }
    MFCONV_HOST_DEVICE static constexpr int8_t max() { return std::numeric_limits<int8_t>::max(); }
    MFCONV_HOST_DEVICE static constexpr int8_t lowest() { return std::numeric_limits<int8_t>::lowest(); }
    MFCONV_HOST_DEVICE static constexpr int8_t zero() { return 0; }
};

template <>
struct numeric<int32_t>
{
    static constexpr data_type id    = data_type::i32;
    static constexpr const char* name = "int32";
    static constexpr int bytes       = 4;
    MFCONV_HOST_DEVICE static constexpr int32_t min() { return std::numeric_limits<int32_t>::min(); }
    MFCONV_HOST_DEVICE static constexpr int32_t max() { return std::numeric_limits<int32_t>::max(); }
    MFCONV_HOST_DEVICE static constexpr int32_t lowest() { return std::numeric_limits<int32_t>::lowest(); }
    MFCONV_HOST_DEVICE static constexpr int32_t zero() { return 0; }
};

// Element types of the convolution inputs (x, dy, w) handled by the xdl kernels.
template <typename T>
concept xdl_input_type = one_of<T, half_t, bf16_t>;

// Element types of the accumulators / outputs.
template <typename T>
concept accumulator_type = one_of<T, float, int32_t>;

template <typename T>
concept conv_element = xdl_input_type<T> || accumulator_type<T> || std::same_as<T, int8_t>;

template <typename T>
inline constexpr data_type data_type_of = numeric<T>::id;

MFCONV_HOST_DEVICE constexpr int data_type_bytes(data_type t)
{
    switch(t)
    {
    case data_type::f32: return 4;
    case data_type::f16: return 2;
    case data_type::bf16: return 2;
    case data_type::i8: return 1;
    case data_type::i32: return 4;
    case data_type::f8: return 1;
    }
    return 0;
}

MFCONV_HOST_DEVICE constexpr const char* data_type_name(data_type t)
{
    switch(t)
    {
    case data_type::f32: return "fp32";
    case data_type::f16: return "fp16";
    case data_type::bf16: return "bf16";
    case data_type::i8: return "int8";
    case data_type::i32: return "int32";
    case data_type::f8: return "fp8";
    }
    return "?";
}

} // namespace mfconv
