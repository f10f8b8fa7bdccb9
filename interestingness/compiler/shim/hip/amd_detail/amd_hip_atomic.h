// gpu-reduce HIP fallback shim -- used only when no ROCm install is available.
//
// hip/amd_detail/amd_hip_atomic.h: CUDA-style atomics as ROCm implements them -- clang's
// __hip_atomic_* builtins with relaxed ordering at agent scope (__HIP_MEMORY_SCOPE_AGENT), and
// system scope for the *_system variants:
//   atomicAdd, atomicSub, atomicExch, atomicCAS: int, unsigned, unsigned long, unsigned long long,
//                                                float, double
//   atomicMin, atomicMax: the integer types above, long long, float, double
//   atomicAnd, atomicOr, atomicXor: int, unsigned, unsigned long, unsigned long long
//   atomicInc, atomicDec: unsigned (wrap-around counters)
//   unsafeAtomicAdd, safeAtomicAdd: float, double (both are atomicAdd here)
//
// Simplified: no gfx941 CAS-loop workarounds; unsafeAtomicAdd does not force the hardware
// floating-point atomic (compile with -munsafe-fp-atomics for that, as with ROCm's atomicAdd).
#pragma once

#include "host_defines.h"

#define __HIP_SHIM_ATOMIC(__name, __builtin, __T, __neg)                                               \
  __device__ inline __T __name(__T* __p, __T __v) {                                                     \
    return __builtin(__p, __neg __v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);                       \
  }                                                                                                     \
  __device__ inline __T __name##_system(__T* __p, __T __v) {                                            \
    return __builtin(__p, __neg __v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);                      \
  }
#define __HIP_SHIM_ATOMIC_CAS(__T)                                                                      \
  __device__ inline __T atomicCAS(__T* __p, __T __cmp, __T __v) {                                       \
    __hip_atomic_compare_exchange_strong(__p, &__cmp, __v, __ATOMIC_RELAXED, __ATOMIC_RELAXED,          \
                                         __HIP_MEMORY_SCOPE_AGENT);                                     \
    return __cmp;                                                                                       \
  }                                                                                                     \
  __device__ inline __T atomicCAS_system(__T* __p, __T __cmp, __T __v) {                                \
    __hip_atomic_compare_exchange_strong(__p, &__cmp, __v, __ATOMIC_RELAXED, __ATOMIC_RELAXED,          \
                                         __HIP_MEMORY_SCOPE_SYSTEM);                                    \
    return __cmp;                                                                                       \
  }
#define __HIP_SHIM_ATOMIC_ARITH(__T)                           \
  __HIP_SHIM_ATOMIC(atomicAdd, __hip_atomic_fetch_add, __T, )  \
  __HIP_SHIM_ATOMIC(atomicSub, __hip_atomic_fetch_add, __T, -) \
  __HIP_SHIM_ATOMIC(atomicExch, __hip_atomic_exchange, __T, )  \
  __HIP_SHIM_ATOMIC(atomicMin, __hip_atomic_fetch_min, __T, )  \
  __HIP_SHIM_ATOMIC(atomicMax, __hip_atomic_fetch_max, __T, )  \
  __HIP_SHIM_ATOMIC_CAS(__T)
#define __HIP_SHIM_ATOMIC_BITS(__T)                            \
  __HIP_SHIM_ATOMIC(atomicAnd, __hip_atomic_fetch_and, __T, )  \
  __HIP_SHIM_ATOMIC(atomicOr, __hip_atomic_fetch_or, __T, )    \
  __HIP_SHIM_ATOMIC(atomicXor, __hip_atomic_fetch_xor, __T, )

__HIP_SHIM_ATOMIC_ARITH(int)
__HIP_SHIM_ATOMIC_ARITH(unsigned int)
__HIP_SHIM_ATOMIC_ARITH(unsigned long)
__HIP_SHIM_ATOMIC_ARITH(unsigned long long)
__HIP_SHIM_ATOMIC_ARITH(float)
__HIP_SHIM_ATOMIC_ARITH(double)
__HIP_SHIM_ATOMIC(atomicMin, __hip_atomic_fetch_min, long long, )
__HIP_SHIM_ATOMIC(atomicMax, __hip_atomic_fetch_max, long long, )
__HIP_SHIM_ATOMIC_BITS(int)
__HIP_SHIM_ATOMIC_BITS(unsigned int)
__HIP_SHIM_ATOMIC_BITS(unsigned long)
__HIP_SHIM_ATOMIC_BITS(unsigned long long)
#undef __HIP_SHIM_ATOMIC_BITS
#undef __HIP_SHIM_ATOMIC_ARITH
#undef __HIP_SHIM_ATOMIC_CAS
#undef __HIP_SHIM_ATOMIC

// ((old >= limit) ? 0 : old + 1) and (((old == 0) | (old > limit)) ? limit : old - 1), atomically.
__device__ inline unsigned int atomicInc(unsigned int* __p, unsigned int __limit) {
  return __builtin_amdgcn_atomic_inc32(__p, __limit, __ATOMIC_RELAXED, "agent");
}
__device__ inline unsigned int atomicDec(unsigned int* __p, unsigned int __limit) {
  return __builtin_amdgcn_atomic_dec32(__p, __limit, __ATOMIC_RELAXED, "agent");
}

__device__ inline float unsafeAtomicAdd(float* __p, float __v) { return atomicAdd(__p, __v); }
__device__ inline double unsafeAtomicAdd(double* __p, double __v) { return atomicAdd(__p, __v); }
__device__ inline float safeAtomicAdd(float* __p, float __v) { return atomicAdd(__p, __v); }
__device__ inline double safeAtomicAdd(double* __p, double __v) { return atomicAdd(__p, __v); }
