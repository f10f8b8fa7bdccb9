// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Native vector types (clang ext_vector_type). These are what the buffer/LDS intrinsics and
// the MFMA builtins take, so the kernels keep their per-thread fragments in them rather than
// in arrays of scalars.
#pragma once

#include <cstdint>
#include <type_traits>

#include "mfconv/core/numeric/bfloat16.hpp"
#include "mfconv/core/numeric/half.hpp"
#include "mfconv/core/numeric/integer.hpp"
#include "mfconv/core/utility/type_traits.hpp"

namespace mfconv {

template <typename T, index_t N>
struct native_vector
{
    static_assert(N > 0 && (N & (N - 1)) == 0, "vector lengths are powers of two");
    using type = T __attribute__((ext_vector_type(N)));
};

template <typename T>
struct native_vector<T, 1>
{
    using type = T;
};

template <typename T, index_t N>
using ext_vector_t = typename native_vector<T, N>::type;

// Element type and length of a native vector (or of a scalar).
template <typename V>
struct vector_traits
{
    using scalar_type                 = V;
    static constexpr index_t vector_size = 1;
};

template <typename T, int N>
struct vector_traits<T __attribute__((ext_vector_type(N)))>
{
    using scalar_type                 = T;
    static constexpr index_t vector_size = N;
};

template <typename V>
using vector_scalar_t = typename vector_traits<remove_cvref_t<V>>::scalar_type;

template <typename V>
inline constexpr index_t vector_size_v = vector_traits<remove_cvref_t<V>>::vector_size;

// Named aliases (the spelling the kernels use).
using fp32x2_t  = ext_vector_t<float, 2>;
using fp32x4_t  = ext_vector_t<float, 4>;
using fp32x8_t  = ext_vector_t<float, 8>;
using fp32x16_t = ext_vector_t<float, 16>;

using fp16x2_t = ext_vector_t<half_t, 2>;
using fp16x4_t = ext_vector_t<half_t, 4>;
using fp16x8_t = ext_vector_t<half_t, 8>;

using bf16x2_t = ext_vector_t<bf16_t, 2>;
using bf16x4_t = ext_vector_t<bf16_t, 4>;
using bf16x8_t = ext_vector_t<bf16_t, 8>;

using int32x2_t  = ext_vector_t<int32_t, 2>;
using int32x4_t  = ext_vector_t<int32_t, 4>;
using uint32x2_t = ext_vector_t<uint32_t, 2>;
using uint32x4_t = ext_vector_t<uint32_t, 4>;
using int8x4_t   = ext_vector_t<int8_t, 4>;
using int8x8_t   = ext_vector_t<int8_t, 8>;

// Raw dword vector of the same size as `V` (what the buffer intrinsics return).
template <typename V>
struct dword_vector
{
    static constexpr index_t bytes  = sizeof(V);
    static_assert(bytes % 4 == 0 || bytes == 2, "vector sizes are whole dwords");
    static constexpr index_t dwords = bytes / 4;
    using type = std::conditional_t<dwords == 4, uint32x4_t,
                 std::conditional_t<dwords == 2, uint32x2_t,
                 std::conditional_t<dwords == 1, uint32_t, uint16_t>>>;
};

template <typename V>
using dword_vector_t = typename dword_vector<V>::type;

// A zero vector without going through memory.
template <typename V>
MFCONV_HOST_DEVICE constexpr V zero_vector()
{
    V r{};
    return r;
}

template <typename V>
concept native_vector_type = vector_size_v<V> > 1;

} // namespace mfconv
