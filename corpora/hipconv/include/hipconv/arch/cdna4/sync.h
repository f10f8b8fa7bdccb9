// Scheduling and synchronisation helpers.
#pragma once

#include <hipconv/version.h>

namespace hipconv::cdna4 {

// Bits for __builtin_amdgcn_sched_group_barrier masks.
enum SchedMask : int {
  kSchedNone = 0x0,
  kSchedAlu = 0x1,
  kSchedValu = 0x2,
  kSchedSalu = 0x4,
  kSchedMfma = 0x8,
  kSchedVmem = 0x10,
  kSchedVmemRead = 0x20,
  kSchedVmemWrite = 0x40,
  kSchedDs = 0x80,
  kSchedDsRead = 0x100,
  kSchedDsWrite = 0x200,
};

HIPCONV_INLINE void block_sync_lds() {
  // Wait for this wave's LDS traffic, then barrier.
  __builtin_amdgcn_s_waitcnt(0xc07f);
  __builtin_amdgcn_s_barrier();
}

HIPCONV_INLINE void block_sync() { __syncthreads(); }

HIPCONV_INLINE void sched_barrier() { __builtin_amdgcn_sched_barrier(0); }

HIPCONV_INLINE void set_prio_high() { __builtin_amdgcn_s_setprio(1); }
HIPCONV_INLINE void set_prio_low() { __builtin_amdgcn_s_setprio(0); }

// Interleave `n` MFMAs with `n` LDS reads (used by the fwd kernels' hand-tuned schedule).
template <int N>
HIPCONV_INLINE void interleave_mfma_ds_read() {
#pragma unroll
  for (int i = 0; i < N; ++i) {
    __builtin_amdgcn_sched_group_barrier(kSchedDsRead, 1, 0);
    __builtin_amdgcn_sched_group_barrier(kSchedMfma, 1, 0);
  }
}

HIPCONV_INLINE int lane_id() { return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)); }
HIPCONV_INLINE int wave_id() { return __builtin_amdgcn_readfirstlane(threadIdx.x / 64); }

} // namespace hipconv::cdna4
