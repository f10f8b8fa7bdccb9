// gpu-reduce HIP fallback shim -- used only when no ROCm install is available.
//
// hip/amd_detail/host_defines.h: the function and variable qualifiers. In a real ROCm build
// clang's __clang_hip_runtime_wrapper.h defines most of them (here clang_wrapper.h, which the
// oracle also -include's); the expansions are the shim's historical ones and must not change (the
// corpus figures depend on the code they produce).
//
// Simplified: no __hip_internal type-trait namespace (only its fixed-width integer typedefs),
// no __hip_img_chk__ image checks.
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_HOST_DEFINES_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_HOST_DEFINES_H

#include "clang_wrapper.h"  // __global__, __device__, __host__, __shared__, __constant__, __managed__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))

#ifndef __align__
#define __align__(__n) __attribute__((aligned(__n)))
#endif
#define __hip_img_chk__
// __restrict__ needs nothing: clang takes it as a keyword in C++.

#ifndef GENERIC_GRID_LAUNCH
#define GENERIC_GRID_LAUNCH 1
#endif

namespace __hip_internal {
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef signed char int8_t;
typedef signed short int16_t;
typedef signed int int32_t;
typedef signed long long int64_t;
}  // namespace __hip_internal
typedef __hip_internal::uint8_t __hip_uint8_t;
typedef __hip_internal::uint16_t __hip_uint16_t;
typedef __hip_internal::uint32_t __hip_uint32_t;
typedef __hip_internal::uint64_t __hip_uint64_t;
typedef __hip_internal::int8_t __hip_int8_t;
typedef __hip_internal::int16_t __hip_int16_t;
typedef __hip_internal::int32_t __hip_int32_t;
typedef __hip_internal::int64_t __hip_int64_t;

#endif
