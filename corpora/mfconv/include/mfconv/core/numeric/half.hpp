// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// fp16. mfconv uses the compiler's _Float16 as its storage and compute type; __half (from
// hip_fp16.h) is accepted at the API boundary and reinterpreted.
#pragma once

#include <cstdint>

#include "mfconv/core/config.hpp"
#include "mfconv/core/utility/bit_cast.hpp"

namespace mfconv {

using half_t     = _Float16;
using half_raw_t = uint16_t;

inline constexpr half_raw_t kHalfRawOne      = 0x3c00;
inline constexpr half_raw_t kHalfRawInfinity = 0x7c00;
inline constexpr half_raw_t kHalfRawMax      = 0x7bff;
inline constexpr half_raw_t kHalfRawLowest   = 0xfbff;
inline constexpr half_raw_t kHalfRawQNaN     = 0x7e00;

MFCONV_HOST_DEVICE constexpr half_t half_from_raw(half_raw_t r) { return bit_cast<half_t>(r); }
MFCONV_HOST_DEVICE constexpr half_raw_t half_to_raw(half_t h) { return bit_cast<half_raw_t>(h); }

MFCONV_HOST_DEVICE constexpr float half_to_float(half_t h) { return static_cast<float>(h); }
MFCONV_HOST_DEVICE constexpr half_t float_to_half(float f) { return static_cast<half_t>(f); }

// Saturating conversion (the hardware cvt produces +-inf on overflow).
MFCONV_HOST_DEVICE constexpr half_t float_to_half_sat(float f)
{
    constexpr float kMax = 65504.0f;
    return static_cast<half_t>(f > kMax ? kMax : (f < -kMax ? -kMax : f));
}

MFCONV_HOST_DEVICE constexpr bool half_is_nan(half_t h)
{
    const half_raw_t r = half_to_raw(h);
    return (r & 0x7c00) == 0x7c00 && (r & 0x03ff) != 0;
}

#if MFCONV_HAS_HIP_FP16_HEADER
// Interop with HIP's __half at the API boundary (same 16 bits). Templates, so that a HIP
// whose __half is not trivially copyable only fails where the interop is used.
template <typename H = __half>
    requires(sizeof(H) == sizeof(half_t))
MFCONV_HOST_DEVICE half_t from_hip_half(H h)
{
    return bit_cast<half_t>(h);
}

template <typename H = __half>
    requires(sizeof(H) == sizeof(half_t))
MFCONV_HOST_DEVICE H to_hip_half(half_t h)
{
    return bit_cast<H>(h);
}
#endif

} // namespace mfconv
