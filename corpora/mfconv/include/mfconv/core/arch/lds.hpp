// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// LDS (shared memory) access. LDS is addressed in bytes from the start of the workgroup's
// allocation; the helpers take a `char*` base and a byte offset so that the compiler can
// fold constant parts of the address into the instruction's offset field.
#pragma once

#include <cstdint>

#include "mfconv/core/arch/arch.hpp"
#include "mfconv/core/numeric/vector_type.hpp"

namespace mfconv {

// Byte offset of element [row][col] of a row-major tile with `row_elems` elements per row.
template <typename T>
MFCONV_DEVICE uint32_t lds_elem_offset(index_t row, index_t col, index_t row_elems)
{
    return static_cast<uint32_t>(row * row_elems + col) * static_cast<uint32_t>(sizeof(T));
}

// Store the N elements of `v` down a column: element j goes to [row0 + j][col]. This is the
// transposing store of the wgrad kernels (global memory is read channel-contiguous, LDS is
// laid out GEMM-K contiguous).
template <typename T, index_t N>
MFCONV_DEVICE void lds_store_column(char* lds, uint32_t base, index_t row0, index_t col, index_t row_elems,
                                    ext_vector_t<T, N> v)
{
#pragma unroll
    for(index_t j = 0; j < N; ++j)
    {
        T* dst = reinterpret_cast<T*>(lds + base + lds_elem_offset<T>(row0 + j, col, row_elems));
        *dst   = v[j];
    }
}

// Column store that packs two adjacent columns into one ds_write_b32 (pairs of lanes swap
// halves through ds_swizzle). Used by the k-major fwd kernels.
template <typename T, index_t N>
MFCONV_DEVICE void lds_store_column_pairs(char* lds, uint32_t base, index_t row0, index_t col, index_t row_elems,
                                          ext_vector_t<T, N> v)
{
    static_assert(sizeof(T) == 2, "pairs of 16-bit elements");
    const index_t lane = lane_id_mbcnt();
#pragma unroll
    for(index_t j = 0; j < N; j += 2)
    {
        const ext_vector_t<T, 2> mine_v{v[j], v[j + 1]};
        const uint32_t mine  = __builtin_bit_cast(uint32_t, mine_v);
        const uint32_t other = __builtin_amdgcn_ds_swizzle(mine, 0x041f);
        const uint32_t lo    = (lane & 1) ? other : mine;
        uint32_t* dst = reinterpret_cast<uint32_t*>(lds + base + lds_elem_offset<T>(row0 + j, col & ~1, row_elems));
        if((lane & 1) == 0)
            *dst = lo;
    }
}

// One MFMA fragment (ds_read_b128 for 8 x 16-bit).
template <typename V>
MFCONV_DEVICE V lds_load(const char* lds, uint32_t byte_offset)
{
    return *reinterpret_cast<const V*>(lds + byte_offset);
}

template <typename V>
MFCONV_DEVICE void lds_store(char* lds, uint32_t byte_offset, V v)
{
    *reinterpret_cast<V*>(lds + byte_offset) = v;
}

// A window of LDS: `rows` x `row_elems` elements of T starting at byte `base`.
template <typename T>
struct lds_tile_view
{
    char* lds;
    uint32_t base;
    index_t row_elems;

    MFCONV_DEVICE uint32_t offset(index_t row, index_t col) const
    {
        return base + lds_elem_offset<T>(row, col, row_elems);
    }

    template <index_t N>
    MFCONV_DEVICE void store_column(index_t row0, index_t col, ext_vector_t<T, N> v) const
    {
        lds_store_column<T, N>(lds, base, row0, col, row_elems, v);
    }

    template <typename V>
    MFCONV_DEVICE V load(index_t row, index_t col) const
    {
        return lds_load<V>(lds, offset(row, col));
    }
};

} // namespace mfconv
