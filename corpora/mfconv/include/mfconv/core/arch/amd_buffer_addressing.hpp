// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Raw buffer loads and stores (MUBUF). A buffer resource carries base and size; a load
// whose offset is outside [0, size) returns zero and a store there is dropped. The conv
// kernels use that for padding: an element in the padding gets `kInvalidOffset`.
#pragma once

#include <cstdint>

#include "mfconv/core/arch/arch.hpp"
#include "mfconv/core/numeric/vector_type.hpp"
#include "mfconv/core/utility/type_traits.hpp"

namespace mfconv {

// Word 3 of a gfx9 buffer descriptor: DATA_FORMAT = 32, NUM_FORMAT = UINT.
inline constexpr int32_t kBufferResourceWord3 = 0x00020000;
inline constexpr uint32_t kInvalidOffset      = 0x80000000u;

enum struct amd_buffer_coherence : int
{
    coherence_default = 0,
    glc               = 1,
    slc               = 2,
    glc_slc           = 3,
};

struct buffer_resource
{
    __amdgpu_buffer_rsrc_t rsrc;
};

MFCONV_DEVICE buffer_resource make_wave_buffer_resource(const void* base, uint32_t bytes)
{
    return {__builtin_amdgcn_make_buffer_rsrc(const_cast<void*>(base), 0, static_cast<int>(bytes),
                                              kBufferResourceWord3)};
}

MFCONV_DEVICE uint32_t buffer_offset_or_invalid(bool valid, uint32_t byte_offset)
{
    return valid ? byte_offset : kInvalidOffset;
}

// Load `sizeof(V)` bytes at `byte_offset` as a `V`.
template <typename V, amd_buffer_coherence Coh = amd_buffer_coherence::coherence_default>
MFCONV_DEVICE V buffer_load(const buffer_resource& r, uint32_t byte_offset)
{
    constexpr int kAux = static_cast<int>(Coh);
    if constexpr(sizeof(V) == 16)
        return __builtin_bit_cast(V, __builtin_amdgcn_raw_buffer_load_b128(r.rsrc, static_cast<int>(byte_offset), 0, kAux));
    else if constexpr(sizeof(V) == 8)
        return __builtin_bit_cast(V, __builtin_amdgcn_raw_buffer_load_b64(r.rsrc, static_cast<int>(byte_offset), 0, kAux));
    else if constexpr(sizeof(V) == 4)
        return __builtin_bit_cast(V, __builtin_amdgcn_raw_buffer_load_b32(r.rsrc, static_cast<int>(byte_offset), 0, kAux));
    else if constexpr(sizeof(V) == 2)
        return __builtin_bit_cast(V, __builtin_amdgcn_raw_buffer_load_b16(r.rsrc, static_cast<int>(byte_offset), 0, kAux));
    else
        static_assert(always_false<V>, "unsupported buffer load width");
}

template <typename V, amd_buffer_coherence Coh = amd_buffer_coherence::coherence_default>
MFCONV_DEVICE void buffer_store(const buffer_resource& r, uint32_t byte_offset, V v)
{
    constexpr int kAux = static_cast<int>(Coh);
    if constexpr(sizeof(V) == 16)
        __builtin_amdgcn_raw_buffer_store_b128(__builtin_bit_cast(uint32x4_t, v), r.rsrc, static_cast<int>(byte_offset), 0, kAux);
    else if constexpr(sizeof(V) == 8)
        __builtin_amdgcn_raw_buffer_store_b64(__builtin_bit_cast(uint32x2_t, v), r.rsrc, static_cast<int>(byte_offset), 0, kAux);
    else if constexpr(sizeof(V) == 4)
        __builtin_amdgcn_raw_buffer_store_b32(__builtin_bit_cast(uint32_t, v), r.rsrc, static_cast<int>(byte_offset), 0, kAux);
    else
        static_assert(always_false<V>, "unsupported buffer store width");
}

} // namespace mfconv
