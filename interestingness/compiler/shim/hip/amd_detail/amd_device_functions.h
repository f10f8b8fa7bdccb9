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
// block-wide counter in LDS). Device assert traps without printing; device printf compiles to
// calls into the (absent) device library. No __fns, no __named_sync,
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

// Type conversions: bit casts, and float/double/integer conversions with a rounding suffix
// (_rn nearest even, _rz toward zero, _rd toward -inf, _ru toward +inf).
__device__ static inline int __float_as_int(float __x) { return __builtin_bit_cast(int, __x); }
__device__ static inline unsigned int __float_as_uint(float __x) { return __builtin_bit_cast(unsigned int, __x); }
__device__ static inline float __int_as_float(int __x) { return __builtin_bit_cast(float, __x); }
__device__ static inline float __uint_as_float(unsigned int __x) { return __builtin_bit_cast(float, __x); }
__device__ static inline long long int __double_as_longlong(double __x) { return __builtin_bit_cast(long long, __x); }
__device__ static inline double __longlong_as_double(long long int __x) { return __builtin_bit_cast(double, __x); }
__device__ static inline int __double2hiint(double __x) { return (int)(__builtin_bit_cast(unsigned long long, __x) >> 32); }
__device__ static inline int __double2loint(double __x) { return (int)__builtin_bit_cast(unsigned long long, __x); }
__device__ static inline double __hiloint2double(int __hi, int __lo) {
  return __builtin_bit_cast(double, ((unsigned long long)(unsigned)__hi << 32) | (unsigned)__lo);
}

// One representable value up (toward +inf) or down, for a finite or infinite __f.
template <class _F, class _U>
__device__ inline _F __hip_shim_step(_F __f, bool __up) {
  if (__f == 0) return __up ? __builtin_bit_cast(_F, (_U)1) : -__builtin_bit_cast(_F, (_U)1);
  _U __b = __builtin_bit_cast(_U, __f);
  __b += ((__f > 0) == __up) ? (_U)1 : (_U)-1;
  return __builtin_bit_cast(_F, __b);
}
// __f is the nearest rounding of an exact value; __cmp is the sign of (__f - exact); __mode is
// 1 (toward zero), 2 (down) or 3 (up).
template <class _F, class _U>
__device__ inline _F __hip_shim_directed(_F __f, int __cmp, int __mode) {
  if (__cmp == 0 || __f != __f) return __f;
  bool __down = __mode == 2 ? __cmp > 0 : (__mode == 3 ? false : (__cmp > 0 && __f > 0));
  bool __up = __mode == 3 ? __cmp < 0 : (__mode == 2 ? false : (__cmp < 0 && __f < 0));
  return (__down || __up) ? __hip_shim_step<_F, _U>(__f, __up) : __f;
}
// Sign of (__f - __x) for an integer-valued __f obtained by converting __x.
template <class _F, class _Int>
__device__ inline int __hip_shim_cmp_int(_F __f, _Int __x) {
  const _F __limit = (_F)2 * (_F)(1ull << (sizeof(_Int) * 8 - 2)) * (_Int(-1) < _Int(0) ? 1 : 2);
  if (__f >= __limit) return 1;
  _Int __back = (_Int)__f;
  return __back > __x ? 1 : (__back < __x ? -1 : 0);
}
#define __HIP_SHIM_INT2FP(__name, __Int, __F, __U)                                                           \
  __device__ static inline __F __name##_rn(__Int __x) { return (__F)__x; }                                  \
  __device__ static inline __F __name##_rz(__Int __x) {                                                      \
    return __hip_shim_directed<__F, __U>((__F)__x, __hip_shim_cmp_int((__F)__x, __x), 1);                   \
  }                                                                                                          \
  __device__ static inline __F __name##_rd(__Int __x) {                                                      \
    return __hip_shim_directed<__F, __U>((__F)__x, __hip_shim_cmp_int((__F)__x, __x), 2);                   \
  }                                                                                                          \
  __device__ static inline __F __name##_ru(__Int __x) {                                                      \
    return __hip_shim_directed<__F, __U>((__F)__x, __hip_shim_cmp_int((__F)__x, __x), 3);                   \
  }
__HIP_SHIM_INT2FP(__int2float, int, float, unsigned int)
__HIP_SHIM_INT2FP(__uint2float, unsigned int, float, unsigned int)
__HIP_SHIM_INT2FP(__ll2float, long long int, float, unsigned int)
__HIP_SHIM_INT2FP(__ull2float, unsigned long long int, float, unsigned int)
__HIP_SHIM_INT2FP(__ll2double, long long int, double, unsigned long long)
__HIP_SHIM_INT2FP(__ull2double, unsigned long long int, double, unsigned long long)
#undef __HIP_SHIM_INT2FP
__device__ static inline double __int2double_rn(int __x) { return __x; }
__device__ static inline double __uint2double_rn(unsigned int __x) { return __x; }
#define __HIP_SHIM_D2F(__sfx, __mode)                                                                         \
  __device__ static inline float __double2float_##__sfx(double __x) {                                       \
    float __f = (float)__x;                                                                                  \
    int __cmp = (double)__f > __x ? 1 : ((double)__f < __x ? -1 : 0);                                        \
    return __hip_shim_directed<float, unsigned int>(__f, __cmp, __mode);                                     \
  }
__device__ static inline float __double2float_rn(double __x) { return (float)__x; }
__HIP_SHIM_D2F(rz, 1)
__HIP_SHIM_D2F(rd, 2)
__HIP_SHIM_D2F(ru, 3)
#undef __HIP_SHIM_D2F
#define __HIP_SHIM_FP2INT(__name, __F, __Int, __rint, __floor, __ceil)                                        \
  __device__ static inline __Int __name##_rn(__F __x) { return (__Int)__rint(__x); }                        \
  __device__ static inline __Int __name##_rz(__F __x) { return (__Int)__x; }                                \
  __device__ static inline __Int __name##_rd(__F __x) { return (__Int)__floor(__x); }                       \
  __device__ static inline __Int __name##_ru(__F __x) { return (__Int)__ceil(__x); }
__HIP_SHIM_FP2INT(__float2int, float, int, __builtin_rintf, __builtin_floorf, __builtin_ceilf)
__HIP_SHIM_FP2INT(__float2uint, float, unsigned int, __builtin_rintf, __builtin_floorf, __builtin_ceilf)
__HIP_SHIM_FP2INT(__float2ll, float, long long int, __builtin_rintf, __builtin_floorf, __builtin_ceilf)
__HIP_SHIM_FP2INT(__float2ull, float, unsigned long long int, __builtin_rintf, __builtin_floorf, __builtin_ceilf)
__HIP_SHIM_FP2INT(__double2int, double, int, __builtin_rint, __builtin_floor, __builtin_ceil)
__HIP_SHIM_FP2INT(__double2uint, double, unsigned int, __builtin_rint, __builtin_floor, __builtin_ceil)
__HIP_SHIM_FP2INT(__double2ll, double, long long int, __builtin_rint, __builtin_floor, __builtin_ceil)
__HIP_SHIM_FP2INT(__double2ull, double, unsigned long long int, __builtin_rint, __builtin_floor, __builtin_ceil)
#undef __HIP_SHIM_FP2INT

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

// Device printf, declared as ROCm declares it. clang lowers a call to the hostcall protocol, calls
// into ROCm's device library (__ockl_printf_begin & co.); with no device library here those calls
// stay external calls in the assembly (ROCm would inline them), and nothing prints.
extern "C" __device__ int printf(const char*, ...);

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
