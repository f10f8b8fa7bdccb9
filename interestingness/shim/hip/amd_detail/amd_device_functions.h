// gpu-reduce HIP fallback shim -- used only when no ROCm install is available.
//
// hip/amd_detail/amd_device_functions.h: the device intrinsics of ROCm's amd_device_functions.h
// that real kernels call -- memory fences (__threadfence, __threadfence_block,
// __threadfence_system), __syncthreads_count/_and/_or, the integer intrinsics (__popc, __popcll,
// __clz, __clzll, __ffs, __ffsll, __brev, __brevll, __byte_perm, __mul24, __umul24, __mulhi,
// __umulhi, __mul64hi, __umul64hi, __sad, __usad, __hadd/__rhadd/__uhadd/__urhadd), lane masks,
// clock64/wall_clock64, device-side assert, and the dynamic shared memory macros. __syncthreads
// itself is in hip_runtime.h (its expansion is part of the shim's history).
//
// Simplified: ROCm builds several of these on device-library (ockl) functions; here they are
// clang builtins or a few instructions, with the same results (__syncthreads_count & co. use a
// block-wide counter in LDS). Device assert traps without printing. No __fns, no __named_sync,
// no hardware-register queries (__smid & co.).
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_DEVICE_FUNCTIONS_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_DEVICE_FUNCTIONS_H

#include "host_defines.h"
#include "amd_warp_functions.h"

// Memory fences, as ROCm: sequentially consistent at agent / work-group / system scope.
__device__ inline static void __threadfence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
__device__ inline static void __threadfence_block() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }
__device__ inline static void __threadfence_system() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, ""); }

// Integer intrinsics.
__device__ static inline unsigned int __popc(unsigned int __x) { return __builtin_popcount(__x); }
__device__ static inline unsigned int __popcll(unsigned long long int __x) { return __builtin_popcountll(__x); }
__device__ static inline int __clz(int __x) { return __x == 0 ? 32 : __builtin_clz((unsigned)__x); }
__device__ static inline int __clzll(long long int __x) {
  return __x == 0 ? 64 : __builtin_clzll((unsigned long long)__x);
}
__device__ static inline int __ffs(unsigned int __x) { return __x == 0 ? 0 : __builtin_ctz(__x) + 1; }
__device__ static inline int __ffs(int __x) { return __ffs((unsigned int)__x); }
__device__ static inline int __ffsll(unsigned long long int __x) { return __x == 0 ? 0 : __builtin_ctzll(__x) + 1; }
__device__ static inline int __ffsll(long long int __x) { return __ffsll((unsigned long long)__x); }
__device__ static inline unsigned int __brev(unsigned int __x) { return __builtin_bitreverse32(__x); }
__device__ static inline unsigned long long int __brevll(unsigned long long int __x) {
  return __builtin_bitreverse64(__x);
}
__device__ static inline unsigned int __byte_perm(unsigned int __x, unsigned int __y, unsigned int __s) {
  unsigned long long __v = ((unsigned long long)__y << 32) | __x;
  unsigned int __r = 0;
  for (int __i = 0; __i < 4; ++__i) __r |= (unsigned)((__v >> (((__s >> (4 * __i)) & 7) * 8)) & 0xff) << (8 * __i);
  return __r;
}
__device__ static inline int __mul24(int __x, int __y) { return ((__x << 8) >> 8) * ((__y << 8) >> 8); }
__device__ static inline unsigned int __umul24(unsigned int __x, unsigned int __y) {
  return (__x & 0xffffffu) * (__y & 0xffffffu);
}
__device__ static inline int __mulhi(int __x, int __y) { return (int)(((long long)__x * __y) >> 32); }
__device__ static inline unsigned int __umulhi(unsigned int __x, unsigned int __y) {
  return (unsigned int)(((unsigned long long)__x * __y) >> 32);
}
__device__ static inline long long int __mul64hi(long long int __x, long long int __y) {
  return (long long)(((__int128)__x * __y) >> 64);
}
__device__ static inline unsigned long long int __umul64hi(unsigned long long int __x, unsigned long long int __y) {
  return (unsigned long long)(((unsigned __int128)__x * __y) >> 64);
}
__device__ static inline unsigned int __sad(int __x, int __y, unsigned int __z) {
  return (__x > __y ? (unsigned)(__x - __y) : (unsigned)(__y - __x)) + __z;
}
__device__ static inline unsigned int __usad(unsigned int __x, unsigned int __y, unsigned int __z) {
  return (__x > __y ? __x - __y : __y - __x) + __z;
}
__device__ static inline int __hadd(int __x, int __y) { return (int)(((long long)__x + __y) >> 1); }
__device__ static inline int __rhadd(int __x, int __y) { return (int)(((long long)__x + __y + 1) >> 1); }
__device__ static inline unsigned int __uhadd(unsigned int __x, unsigned int __y) {
  return (unsigned)(((unsigned long long)__x + __y) >> 1);
}
__device__ static inline unsigned int __urhadd(unsigned int __x, unsigned int __y) {
  return (unsigned)(((unsigned long long)__x + __y + 1) >> 1);
}

// Lane masks of the current wavefront.
__device__ inline unsigned long long __lanemask_eq() { return 1ull << __lane_id(); }
__device__ inline unsigned long long __lanemask_lt() { return __ballot(1) & ((1ull << __lane_id()) - 1ull); }
__device__ inline unsigned long long __lanemask_gt() {
  unsigned int __lane = __lane_id();
  return __lane == 63 ? 0ull : __ballot(1) & (~0ull << (__lane + 1));
}

// Clocks: the shader clock and the constant-rate "wall" clock.
__device__ inline long long int __clock64() { return (long long)__builtin_readcyclecounter(); }
__device__ inline long long int clock64() { return __clock64(); }
__device__ inline long long int wall_clock64() { return (long long)__builtin_amdgcn_s_memrealtime(); }

// Block-wide vote, through one counter in LDS.
__device__ inline int __hip_shim_block_count(int __pred) {
  __shared__ int __hip_shim_votes;
  __builtin_amdgcn_s_barrier();
  if (__builtin_amdgcn_workitem_id_x() == 0 && __builtin_amdgcn_workitem_id_y() == 0 &&
      __builtin_amdgcn_workitem_id_z() == 0)
    __hip_shim_votes = 0;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  __hip_atomic_fetch_add(&__hip_shim_votes, __pred ? 1 : 0, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  return __hip_shim_votes;
}
__device__ inline int __syncthreads_count(int __pred) { return __hip_shim_block_count(__pred); }
__device__ inline int __syncthreads_and(int __pred) {
  unsigned __n = __builtin_amdgcn_workgroup_size_x() * __builtin_amdgcn_workgroup_size_y() *
                 __builtin_amdgcn_workgroup_size_z();
  return (unsigned)__hip_shim_block_count(__pred) == __n;
}
__device__ inline int __syncthreads_or(int __pred) { return __hip_shim_block_count(__pred) != 0; }

// Device-side assert and abort: glibc's assert() calls __assert_fail, a host function; these are
// device overloads, as ROCm's (whose __assert_fail prints the message first; this one only traps).
extern "C" __device__ __attribute__((noreturn)) inline void __assert_fail(const char*, const char*, unsigned int,
                                                                           const char*) noexcept {
  __builtin_trap();
}
extern "C" __device__ __attribute__((noreturn)) inline void __assertfail() { __builtin_trap(); }
extern "C" __device__ __attribute__((noreturn)) inline void abort() noexcept { __builtin_trap(); }
#if defined(NDEBUG)
#define __hip_assert(__cond)
#else
#define __hip_assert(__cond) \
  do {                       \
    if (!(__cond)) __builtin_trap(); \
  } while (0)
#endif

// Dynamic shared memory, as ROCm spells it.
#define HIP_DYNAMIC_SHARED(__type, __var) extern __shared__ __type __var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

#endif
