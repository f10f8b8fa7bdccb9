// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Division by a runtime-invariant divisor (Granlund & Montgomery): the host computes a
// multiplier and a shift once per problem, the device replaces every division by a
// multiply-high, an add and a shift.
#pragma once

#include <cstdint>

#include "mfconv/core/config.hpp"

namespace mfconv {

struct magic_divisor
{
    uint32_t divisor    = 1;
    uint32_t multiplier = 0;
    uint32_t shift      = 0;

    // Host (and constexpr) construction; 1 <= d < 2^31.
    MFCONV_HOST_DEVICE static constexpr magic_divisor make(uint32_t d)
    {
        magic_divisor r{d, 0, 0};
        if(d == 1)
            return r;
        uint32_t s = 0;
        while((1u << s) < d)
            ++s;
        const uint64_t one = 1;
        const uint64_t m   = ((one << 32) * ((one << s) - d)) / d + 1;
        r.multiplier       = static_cast<uint32_t>(m);
        r.shift            = s;
        return r;
    }

    MFCONV_HOST_DEVICE constexpr uint32_t divide_host(uint32_t n) const { return n / divisor; }
};

static_assert(magic_divisor::make(7).shift == 3);

// Device: q = n / d. Out of line on purpose (see MFCONV_DEVICE_EXTERN).
MFCONV_DEVICE_EXTERN uint32_t magic_div(const magic_divisor& md, uint32_t n)
{
    if(md.divisor == 1)
        return n;
    const uint32_t t = static_cast<uint32_t>((static_cast<uint64_t>(n) * md.multiplier) >> 32);
    return (t + n) >> md.shift;
}

MFCONV_DEVICE_EXTERN uint32_t magic_divmod(const magic_divisor& md, uint32_t n, uint32_t* rem)
{
    const uint32_t q = magic_div(md, n);
    *rem             = n - q * md.divisor;
    return q;
}

} // namespace mfconv
