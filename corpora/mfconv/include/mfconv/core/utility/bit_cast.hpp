// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
#pragma once

#include <type_traits>

#include "mfconv/core/config.hpp"

namespace mfconv {

// std::bit_cast is constexpr and usable on the device, but libstdc++ versions before 11 do
// not ship it; the builtin is what it expands to anyway.
template <typename To, typename From>
    requires(sizeof(To) == sizeof(From) && std::is_trivially_copyable_v<To> && std::is_trivially_copyable_v<From>)
MFCONV_HOST_DEVICE constexpr To bit_cast(const From& x)
{
    return __builtin_bit_cast(To, x);
}

} // namespace mfconv
