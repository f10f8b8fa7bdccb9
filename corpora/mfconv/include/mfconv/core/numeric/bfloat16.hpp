// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// bf16. Storage and MFMA operand type is the compiler's __bf16; the conversions below are
// the library's reference rounding modes (the kernels convert with the hardware cvt on
// gfx950 and with the RNE routine elsewhere).
#pragma once

#include <cstdint>

#include "mfconv/core/config.hpp"
#include "mfconv/core/utility/bit_cast.hpp"

namespace mfconv {

using bf16_t     = __bf16;
using bf16_raw_t = uint16_t;

enum class bf16_rounding : int
{
    standard       = 0, // round to nearest even
    truncate_w_nan = 1, // truncate, NaN kept quiet
    truncate       = 2,
};

#ifndef MFCONV_BF16_ROUNDING_DEFAULT
#define MFCONV_BF16_ROUNDING_DEFAULT ::mfconv::bf16_rounding::standard
#endif

MFCONV_HOST_DEVICE constexpr bf16_raw_t float_to_bf16_raw_rne(float f)
{
    const uint32_t u = bit_cast<uint32_t>(f);
    if((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0)
        return static_cast<bf16_raw_t>((u >> 16) | 0x40u); // quiet NaN
    const uint32_t bias = 0x7fffu + ((u >> 16) & 1u);
    return static_cast<bf16_raw_t>((u + bias) >> 16);
}

MFCONV_HOST_DEVICE constexpr bf16_raw_t float_to_bf16_raw_truncate(float f)
{
    return static_cast<bf16_raw_t>(bit_cast<uint32_t>(f) >> 16);
}

MFCONV_HOST_DEVICE constexpr bf16_raw_t float_to_bf16_raw_truncate_w_nan(float f)
{
    const uint32_t u = bit_cast<uint32_t>(f);
    const bool nan   = (u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0;
    return static_cast<bf16_raw_t>((u >> 16) | (nan ? 0x40u : 0u));
}

template <bf16_rounding R = MFCONV_BF16_ROUNDING_DEFAULT>
MFCONV_HOST_DEVICE constexpr bf16_raw_t float_to_bf16_raw(float f)
{
    if constexpr(R == bf16_rounding::standard)
        return float_to_bf16_raw_rne(f);
    else if constexpr(R == bf16_rounding::truncate_w_nan)
        return float_to_bf16_raw_truncate_w_nan(f);
    else
        return float_to_bf16_raw_truncate(f);
}

MFCONV_HOST_DEVICE constexpr float bf16_raw_to_float(bf16_raw_t b)
{
    return bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

template <bf16_rounding R = MFCONV_BF16_ROUNDING_DEFAULT>
MFCONV_HOST_DEVICE constexpr bf16_t float_to_bf16(float f)
{
    return bit_cast<bf16_t>(float_to_bf16_raw<R>(f));
}

MFCONV_HOST_DEVICE constexpr float bf16_to_float(bf16_t b) { return bf16_raw_to_float(bit_cast<bf16_raw_t>(b)); }

#if MFCONV_HAS_HIP_BF16_HEADER
// Interop with HIP's __hip_bfloat16 at the API boundary (same 16 bits); templates for the
// same reason as the __half ones in half.hpp.
template <typename B = __hip_bfloat16>
    requires(sizeof(B) == sizeof(bf16_t))
MFCONV_HOST_DEVICE bf16_t from_hip_bfloat16(B b)
{
    return bit_cast<bf16_t>(b);
}

template <typename B = __hip_bfloat16>
    requires(sizeof(B) == sizeof(bf16_t))
MFCONV_HOST_DEVICE B to_hip_bfloat16(bf16_t b)
{
    return bit_cast<B>(b);
}
#endif

} // namespace mfconv
