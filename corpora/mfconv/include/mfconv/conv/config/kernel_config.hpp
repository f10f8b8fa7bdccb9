// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// kernel_config: the compile-time configuration of one xdl convolution kernel instance.
//
// A kernel template takes a `kernel_config` value as a C++20 class-type template argument.
// The values are generated at compile time from the spread lists in spreads.hpp (see
// make_configs.hpp); instance files refer to entries of the generated table by index.
//
//   filter        filter taps handled by one workgroup (y x x); one accumulator set per tap
//   block.waves   arrangement of the workgroup's waves over the M x N tile
//   block.rep     MFMA tiles per wave along M (output channels) and N (input channels)
//   block.k_steps MFMA K-steps per pipeline stage (a stage covers k_steps * mma_k positions)
//   mma           MFMA shape (16x16x32 or 32x32x16 for 16-bit inputs)
//   pipe          LDS ring: depth, row padding, register prefetch, MFMA loop order
//   mem           global access: vector width, dy through a buffer resource or a pointer
//   launch        occupancy hint and split-K reduction mode
#pragma once

#include "mfconv/core.hpp"

#include <compare>

#include "mfconv/core/arch/mfma.hpp"
#include "mfconv/core/numeric/integer.hpp"
#include "mfconv/core/numeric/math.hpp"

namespace mfconv::conv {

// How the partial weight gradients of a split GEMM-K are combined.
enum class split_mode : int
{
    none      = 0, // one workgroup per output tile owns the whole GEMM-K range
    atomic    = 1, // GEMM-K split over gridDim.y, fp32 atomics into dw
    workspace = 2, // partials into a workspace, summed by wgrad_splitk_reduce_kernel
};

struct kernel_config
{
    struct filter_shape
    {
        index_t y = 1;
        index_t x = 1;

        MFCONV_HOST_DEVICE constexpr index_t taps() const { return y * x; }
        MFCONV_HOST_DEVICE constexpr bool is_pointwise() const { return y == 1 && x == 1; }

        MFCONV_HOST_DEVICE constexpr bool operator==(const filter_shape&) const = default;
    };

    struct wave_grid
    {
        index_t m = 2;
        index_t n = 2;

        MFCONV_HOST_DEVICE constexpr index_t count() const { return m * n; }

        MFCONV_HOST_DEVICE constexpr bool operator==(const wave_grid&) const = default;
    };

    struct repeat
    {
        index_t m = 1;
        index_t n = 1;

        MFCONV_HOST_DEVICE constexpr index_t count() const { return m * n; }

        MFCONV_HOST_DEVICE constexpr bool operator==(const repeat&) const = default;
    };

    struct block_shape
    {
        wave_grid waves{};
        repeat rep{};
        index_t k_steps = 1;

        MFCONV_HOST_DEVICE constexpr bool operator==(const block_shape&) const = default;
    };

    struct pipeline
    {
        index_t depth    = 2;     // LDS stages in the ring
        index_t lds_pad  = 8;     // extra elements per LDS row (bank conflicts)
        bool prefetch    = true;  // global loads of stage s+1 in flight during the MFMAs of stage s
        bool taps_inner  = true;  // MFMA loop: k-steps outer, taps inner (A fragments reused)

        // Number of LDS buffers the kernel cycles through. A ring shallower than two cannot
        // overlap the stores of the next stage with the reads of the current one.
        MFCONV_HOST_DEVICE constexpr index_t ring_depth() const { return depth < 2 ? 2 : depth; }
        MFCONV_HOST_DEVICE constexpr index_t prefetch_distance() const { return prefetch ? ring_depth() - 1 : 0; }

        MFCONV_HOST_DEVICE constexpr bool operator==(const pipeline&) const = default;
    };

    struct memory
    {
        index_t vec    = 8;    // elements per global load (8: dwordx4, 4: dwordx2 for 16-bit data)
        bool dy_buffer = true; // dy through a buffer resource (true) or a 64-bit pointer (false)

        MFCONV_HOST_DEVICE constexpr bool operator==(const memory&) const = default;
    };

    struct launch
    {
        index_t waves_per_eu = 2;
        split_mode split     = split_mode::atomic;

        MFCONV_HOST_DEVICE constexpr bool operator==(const launch&) const = default;
    };

    filter_shape filter{};
    block_shape block{};
    mfma_shape mma = mfma_shape::m16n16k32;
    pipeline pipe{};
    memory mem{};
    launch lb{};

    // ---------------------------------------------------------------------------------
    MFCONV_HOST_DEVICE constexpr index_t waves() const { return block.waves.count(); }
    MFCONV_HOST_DEVICE constexpr index_t threads() const { return waves() * kWaveSize; }
    MFCONV_HOST_DEVICE constexpr index_t taps() const { return filter.taps(); }

    MFCONV_HOST_DEVICE constexpr index_t mma_m() const { return mma == mfma_shape::m16n16k32 ? 16 : 32; }
    MFCONV_HOST_DEVICE constexpr index_t mma_n() const { return mma_m(); }
    MFCONV_HOST_DEVICE constexpr index_t mma_k() const { return mma == mfma_shape::m16n16k32 ? 32 : 16; }
    MFCONV_HOST_DEVICE constexpr index_t acc_elems() const { return mma == mfma_shape::m16n16k32 ? 4 : 16; }

    MFCONV_HOST_DEVICE constexpr index_t tile_m() const { return block.waves.m * block.rep.m * mma_m(); }
    MFCONV_HOST_DEVICE constexpr index_t tile_n() const { return block.waves.n * block.rep.n * mma_n(); }
    MFCONV_HOST_DEVICE constexpr index_t tile_k() const { return block.k_steps * mma_k(); }

    // fp32 accumulator registers per lane.
    MFCONV_HOST_DEVICE constexpr index_t acc_regs() const { return taps() * block.rep.count() * acc_elems(); }

    // Elements per LDS row, and LDS bytes of the whole ring for an element size.
    MFCONV_HOST_DEVICE constexpr index_t lds_row() const { return tile_k() + pipe.lds_pad; }
    MFCONV_HOST_DEVICE constexpr index_t lds_stage_bytes(index_t elem_bytes) const
    {
        return (tile_m() + taps() * tile_n()) * lds_row() * elem_bytes;
    }
    MFCONV_HOST_DEVICE constexpr index_t lds_bytes(index_t elem_bytes) const
    {
        return pipe.ring_depth() * lds_stage_bytes(elem_bytes);
    }

    // VGPR budget per lane implied by the occupancy hint (512 / waves_per_eu, arch + acc).
    MFCONV_HOST_DEVICE constexpr index_t vgpr_budget() const { return 512 / lb.waves_per_eu; }

    MFCONV_HOST_DEVICE constexpr index_t global_vectors_a() const
    {
        return integer_divide_ceil(tile_k() * tile_m() / mem.vec, threads());
    }
    MFCONV_HOST_DEVICE constexpr index_t global_vectors_b() const
    {
        return integer_divide_ceil(tile_k() * tile_n() / mem.vec, threads());
    }

    // Registers of one stage in flight between global memory and LDS (16-bit data).
    MFCONV_HOST_DEVICE constexpr index_t prefetch_regs() const
    {
        return (global_vectors_a() + taps() * global_vectors_b()) * mem.vec / 2;
    }

    MFCONV_HOST_DEVICE constexpr bool operator==(const kernel_config&) const = default;
};

using filter_shape = kernel_config::filter_shape;
using block_shape  = kernel_config::block_shape;
using pipeline     = kernel_config::pipeline;

} // namespace mfconv::conv
