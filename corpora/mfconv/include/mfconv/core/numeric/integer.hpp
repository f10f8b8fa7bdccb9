// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
#pragma once

#include <cstdint>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "mfconv/core/config.hpp"

namespace mfconv {

// Index types. Offsets inside one tensor fit in 32 bits for every problem the kernels accept
// (the host checks that); products of a coordinate and a stride are formed in 64 bits first.
using index_t      = int32_t;
using long_index_t = int64_t;
using uindex_t     = uint32_t;

inline constexpr index_t kMaxIndex = std::numeric_limits<index_t>::max();

template <typename T>
inline constexpr bool is_index_type_v =
    std::is_same_v<T, index_t> || std::is_same_v<T, long_index_t> || std::is_same_v<T, uindex_t>;

// Byte offsets are unsigned 32-bit: buffer instructions take a 32-bit offset, and the
// out-of-range trick (see core/arch/amd_buffer_addressing.hpp) relies on wrap-around.
using byte_offset_t = uint32_t;

} // namespace mfconv
