// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Thread/wave identification, barriers and scheduling hints.
#pragma once

#include <cstdint>

#include "mfconv/core/numeric/integer.hpp"

namespace mfconv {

enum struct address_space : int
{
    generic = 0,
    global  = 1,
    lds     = 3,
    constant = 4,
    vgpr    = 5,
};

MFCONV_DEVICE index_t get_thread_local_1d_id() { return threadIdx.x; }
MFCONV_DEVICE index_t get_block_1d_id() { return blockIdx.x; }
MFCONV_DEVICE index_t get_block_id_y() { return blockIdx.y; }
MFCONV_DEVICE index_t get_grid_size() { return gridDim.x; }
MFCONV_DEVICE index_t get_block_size() { return blockDim.x; }

MFCONV_DEVICE index_t get_lane_id() { return threadIdx.x % kWaveSize; }

// Wave index inside the workgroup, as a scalar (the compiler cannot prove threadIdx.x / 64
// uniform on its own).
MFCONV_DEVICE index_t get_warp_id() { return __builtin_amdgcn_readfirstlane(threadIdx.x / kWaveSize); }

MFCONV_DEVICE index_t lane_id_mbcnt()
{
    return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}

template <typename T>
MFCONV_DEVICE T warp_uniform(T v)
{
    static_assert(sizeof(T) == 4, "readfirstlane moves one dword");
    return __builtin_bit_cast(T, __builtin_amdgcn_readfirstlane(__builtin_bit_cast(int, v)));
}

// ---------------------------------------------------------------------------------------
// Waits and barriers. The s_waitcnt encodings are gfx9's: vmcnt in [3:0]+[15:14],
// expcnt in [6:4], lgkmcnt in [11:8].
namespace waitcnt {
inline constexpr int kLgkm0     = 0xc07f; // lgkmcnt(0), vmcnt/expcnt untouched
inline constexpr int kVm0       = 0x0f70; // vmcnt(0)
inline constexpr int kAll0      = 0x0000;
} // namespace waitcnt

MFCONV_DEVICE void s_waitcnt_lgkm0() { __builtin_amdgcn_s_waitcnt(waitcnt::kLgkm0); }
MFCONV_DEVICE void s_waitcnt_vm0() { __builtin_amdgcn_s_waitcnt(waitcnt::kVm0); }

// LDS writes of this wave done, then barrier: the usual "publish a stage" sync.
MFCONV_DEVICE void block_sync_lds()
{
    __builtin_amdgcn_s_waitcnt(waitcnt::kLgkm0);
    __builtin_amdgcn_s_barrier();
}

MFCONV_DEVICE void block_sync() { __syncthreads(); }

// Scheduling hints (masks of __builtin_amdgcn_sched_group_barrier).
enum sched_mask : int
{
    sched_none       = 0x0000,
    sched_alu        = 0x0001,
    sched_valu       = 0x0002,
    sched_salu       = 0x0004,
    sched_mfma       = 0x0008,
    sched_vmem       = 0x0010,
    sched_vmem_read  = 0x0020,
    sched_vmem_write = 0x0040,
    sched_ds         = 0x0080,
    sched_ds_read    = 0x0100,
    sched_ds_write   = 0x0200,
};

MFCONV_DEVICE void sched_barrier_all() { __builtin_amdgcn_sched_barrier(0); }
MFCONV_DEVICE void s_setprio_high() { __builtin_amdgcn_s_setprio(1); }
MFCONV_DEVICE void s_setprio_low() { __builtin_amdgcn_s_setprio(0); }

template <index_t N>
MFCONV_DEVICE void interleave_mfma_with_ds_read()
{
#pragma unroll
    for(index_t i = 0; i < N; ++i)
    {
        __builtin_amdgcn_sched_group_barrier(sched_ds_read, 1, 0);
        __builtin_amdgcn_sched_group_barrier(sched_mfma, 1, 0);
    }
}

} // namespace mfconv
