// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Warp-level matrix multiply (MFMA) for 16-bit inputs on CDNA3/CDNA4.
//
// Operand layouts per lane (wave64), M x N x K:
//
//   16x16x32  A: lane l holds A[l % 16][8*(l/16) .. +7]        (8 x 16-bit)
//             B: lane l holds B[8*(l/16) .. +7][l % 16]        (8 x 16-bit)
//             C: lane l holds C[4*(l/16) .. +3][l % 16]        (fp32 x 4)
//   32x32x16  A: lane l holds A[l % 32][8*(l/32) .. +7]
//             B: lane l holds B[8*(l/32) .. +7][l % 32]
//             C: lane l holds C[8*i + 4*(l/32) + j][l % 32]    (fp32 x 16; i, j < 4)
#pragma once

#include <concepts>

#include "mfconv/core/numeric/numeric.hpp"
#include "mfconv/core/numeric/vector_type.hpp"

namespace mfconv {

enum class mfma_shape : int
{
    m16n16k32 = 16,
    m32n32k16 = 32,
};

template <typename T, mfma_shape S>
struct warp_gemm_attribute;

template <typename T>
struct warp_gemm_attribute<T, mfma_shape::m16n16k32>
{
    static constexpr index_t kM          = 16;
    static constexpr index_t kN          = 16;
    static constexpr index_t kK          = 32;
    static constexpr index_t kAccElems   = 4;
    static constexpr index_t kKPerLane   = 8;
    static constexpr index_t kLanesPerRow = 16;
    static constexpr index_t kPasses     = 8;

    MFCONV_HOST_DEVICE static constexpr index_t acc_row(index_t lane, index_t j) { return 4 * (lane / 16) + j; }
    MFCONV_HOST_DEVICE static constexpr index_t acc_col(index_t lane) { return lane % 16; }
    MFCONV_HOST_DEVICE static constexpr index_t frag_row(index_t lane) { return lane % 16; }
    MFCONV_HOST_DEVICE static constexpr index_t frag_k(index_t lane) { return 8 * (lane / 16); }
};

template <typename T>
struct warp_gemm_attribute<T, mfma_shape::m32n32k16>
{
    static constexpr index_t kM          = 32;
    static constexpr index_t kN          = 32;
    static constexpr index_t kK          = 16;
    static constexpr index_t kAccElems   = 16;
    static constexpr index_t kKPerLane   = 8;
    static constexpr index_t kLanesPerRow = 32;
    static constexpr index_t kPasses     = 16;

    MFCONV_HOST_DEVICE static constexpr index_t acc_row(index_t lane, index_t j)
    {
        return 8 * (j / 4) + 4 * (lane / 32) + (j % 4);
    }
    MFCONV_HOST_DEVICE static constexpr index_t acc_col(index_t lane) { return lane % 32; }
    MFCONV_HOST_DEVICE static constexpr index_t frag_row(index_t lane) { return lane % 32; }
    MFCONV_HOST_DEVICE static constexpr index_t frag_k(index_t lane) { return 8 * (lane / 32); }
};

// warp_gemm<T, S>: fragment types and the MFMA itself.
template <xdl_input_type T, mfma_shape S>
struct warp_gemm : warp_gemm_attribute<T, S>
{
    using attr    = warp_gemm_attribute<T, S>;
    using input_t = T;
    using frag_t  = ext_vector_t<T, attr::kKPerLane>;
    using acc_t   = ext_vector_t<float, attr::kAccElems>;

    MFCONV_FORCEINLINE static acc_t run(frag_t a, frag_t b, acc_t c)
    {
#if defined(__gfx950__) || !MFCONV_DEVICE_PASS
        if constexpr(std::is_same_v<T, half_t> && S == mfma_shape::m16n16k32)
            return __builtin_amdgcn_mfma_f32_16x16x32_f16(a, b, c, 0, 0, 0);
        else if constexpr(std::is_same_v<T, half_t> && S == mfma_shape::m32n32k16)
            return __builtin_amdgcn_mfma_f32_32x32x16_f16(a, b, c, 0, 0, 0);
        else if constexpr(std::is_same_v<T, bf16_t> && S == mfma_shape::m16n16k32)
            return __builtin_amdgcn_mfma_f32_16x16x32_bf16(a, b, c, 0, 0, 0);
        else
            return __builtin_amdgcn_mfma_f32_32x32x16_bf16(a, b, c, 0, 0, 0);
#else
        // Pre-gfx950 targets have no 16-bit MFMA with K = 32/16 per instruction.
        __builtin_trap();
        return c;
#endif
    }

    MFCONV_FORCEINLINE static acc_t zero()
    {
        acc_t r;
#pragma unroll
        for(index_t i = 0; i < attr::kAccElems; ++i)
            r[i] = 0.0f;
        return r;
    }
};

template <typename W>
concept warp_gemm_like = requires(typename W::frag_t a, typename W::acc_t c) {
    { W::run(a, a, c) } -> std::same_as<typename W::acc_t>;
    { W::kM } -> std::convertible_to<index_t>;
    { W::kN } -> std::convertible_to<index_t>;
    { W::kK } -> std::convertible_to<index_t>;
};

static_assert(warp_gemm_like<warp_gemm<half_t, mfma_shape::m16n16k32>>);
static_assert(warp_gemm_like<warp_gemm<bf16_t, mfma_shape::m32n32k16>>);

} // namespace mfconv
