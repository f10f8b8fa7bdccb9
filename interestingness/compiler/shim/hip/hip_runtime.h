// gpu-reduce HIP fallback shim -- used only when no ROCm install is available.
//
// hip/hip_runtime.h: what ROCm's <hip/hip_runtime.h> gives device code and the host code that
// launches it, for `clang++ -x hip -nogpuinc -nogpulib` with no ROCm install (Debian's clang 22).
// Nothing here runs on a GPU: the oracle only compiles device code. A user's own
// hip/hip_runtime.h, or a real ROCm, comes first on the include path and wins.
//
// As ROCm's, it pulls in: the host API (hip_runtime_api.h: hipError_t, hipStream_t, dim3, ...),
// the vector types (hip_vector_types.h), atomics, warp and device intrinsics, and device math
// (expf, std::exp, max, ... -- in ROCm from clang's wrapper headers, see
// amd_detail/amd_math_functions.h). Like ROCm's it does not include hip_fp16.h, hip_bf16.h or
// hip_fp8.h: include those yourself.
//
// Where it differs from ROCm (7.0):
//   * Standard headers: only <stdint.h>, <stddef.h>, <stdlib.h>, <stdio.h>, <assert.h>, <cmath>,
//     <cstdlib>, <type_traits>, <utility>, <limits> come along. ROCm (with clang's wrapper) also
//     pulls in <algorithm>, <complex>, <new>, <tuple>, <array> and <thread>, which costs every
//     compile a few tenths of a second; code that uses std::min or std::tuple without including
//     <algorithm> or <tuple> must include them (as code portable to CUDA already does).
//   * warpSize is a constexpr int (see amd_detail/amd_warp_functions.h).
//   * __syncthreads() is a bare s_barrier, with no work-group fences around it (ROCm: fence
//     release; s_barrier; fence acquire), and threadIdx & co. read the work-item builtins
//     directly; both are the shim's historical expansions, kept so results stay comparable.
//     threadIdx & co. do not convert to dim3.
//   * No textures, surfaces, cooperative groups, printf support or device malloc.
#ifndef HIP_INCLUDE_HIP_HIP_RUNTIME_H
#define HIP_INCLUDE_HIP_HIP_RUNTIME_H
#pragma once

#include "hip_common.h"
#include "amd_detail/host_defines.h"

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
// the host's std:: math and stdlib overloads, as clang's own HIP runtime wrapper includes them
// (code that calls std::fabs on the host gets them through <hip/hip_runtime.h> with ROCm). They
// cost a third of a small kernel's build: the oracle defines __HIP_SHIM_NO_HOST_STD for a run
// whose original builds the same code without them (interestingness/compiler/hip_headers.py).
#ifndef __HIP_SHIM_NO_HOST_STD
#include <cmath>
#include <cstdlib>
#endif
#include <limits>
#include <type_traits>
#include <utility>

#include "hip_runtime_api.h"
#include "hip_vector_types.h"
#include "amd_detail/amd_warp_functions.h"
#include "amd_detail/amd_device_functions.h"
#include "amd_detail/amd_hip_atomic.h"
#include "amd_detail/amd_math_functions.h"

// ---- The shim's historical definitions: their expansions must not change. ----

// ROCm's expansion: clang's CUDA-style launch_bounds caps VGPRs at 128 and spills in both modes.
#define __HIP_LB_1(T) __attribute__((amdgpu_flat_work_group_size(1, T)))
#define __HIP_LB_2(T, W) __attribute__((amdgpu_flat_work_group_size(1, T), amdgpu_waves_per_eu(W)))
#define __HIP_LB_PICK(_1, _2, NAME, ...) NAME
#define __launch_bounds__(...) __HIP_LB_PICK(__VA_ARGS__, __HIP_LB_2, __HIP_LB_1, )(__VA_ARGS__)

#define __HIP_DIM(NAME, FN)                                                        \
  struct __hip_##NAME##_t {                                                        \
    __declspec(property(get = __get_x)) unsigned x;                                \
    __declspec(property(get = __get_y)) unsigned y;                                \
    __declspec(property(get = __get_z)) unsigned z;                                \
    static __device__ __forceinline__ unsigned __get_x() { return FN(x); }         \
    static __device__ __forceinline__ unsigned __get_y() { return FN(y); }         \
    static __device__ __forceinline__ unsigned __get_z() { return FN(z); }         \
  };                                                                               \
  extern const __device__ __hip_##NAME##_t NAME;

#define __HIP_TID(d) __builtin_amdgcn_workitem_id_##d()
#define __HIP_BID(d) __builtin_amdgcn_workgroup_id_##d()
#define __HIP_BDIM(d) __builtin_amdgcn_workgroup_size_##d()
#define __HIP_GDIM(d) (__builtin_amdgcn_grid_size_##d() / __builtin_amdgcn_workgroup_size_##d())
__HIP_DIM(threadIdx, __HIP_TID)
__HIP_DIM(blockIdx, __HIP_BID)
__HIP_DIM(blockDim, __HIP_BDIM)
__HIP_DIM(gridDim, __HIP_GDIM)

__device__ __forceinline__ void __syncthreads() { __builtin_amdgcn_s_barrier(); }

// ---- End of the historical definitions. ----

#define hipThreadIdx_x threadIdx.x
#define hipThreadIdx_y threadIdx.y
#define hipThreadIdx_z threadIdx.z
#define hipBlockIdx_x blockIdx.x
#define hipBlockIdx_y blockIdx.y
#define hipBlockIdx_z blockIdx.z
#define hipBlockDim_x blockDim.x
#define hipBlockDim_y blockDim.y
#define hipBlockDim_z blockDim.z
#define hipGridDim_x gridDim.x
#define hipGridDim_y gridDim.y
#define hipGridDim_z gridDim.z

// Kernel launch from host code, as ROCm expands it: kernel<<<grid, block, shmem, stream>>>(args...).
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define HIP_SYMBOL(__sym) __sym
typedef int hipLaunchParm;
#define hipLaunchKernelGGLInternal(__kernel, __grid, __block, __shmem, __stream, ...) \
  do {                                                                               \
    __kernel<<<(__grid), (__block), (__shmem), (__stream)>>>(__VA_ARGS__);           \
  } while (0)
#define hipLaunchKernelGGL(__kernel, ...) hipLaunchKernelGGLInternal((__kernel), __VA_ARGS__)

#if defined(__HIP_DEVICE_COMPILE__)
// ROCm's feature-test macros, device side.
#define __HIP_ARCH_HAS_GLOBAL_INT32_ATOMICS__ (1)
#define __HIP_ARCH_HAS_GLOBAL_FLOAT_ATOMIC_EXCH__ (1)
#define __HIP_ARCH_HAS_SHARED_INT32_ATOMICS__ (1)
#define __HIP_ARCH_HAS_SHARED_FLOAT_ATOMIC_EXCH__ (1)
#define __HIP_ARCH_HAS_FLOAT_ATOMIC_ADD__ (1)
#define __HIP_ARCH_HAS_GLOBAL_INT64_ATOMICS__ (1)
#define __HIP_ARCH_HAS_SHARED_INT64_ATOMICS__ (1)
#define __HIP_ARCH_HAS_DOUBLES__ (1)
#define __HIP_ARCH_HAS_WARP_VOTE__ (1)
#define __HIP_ARCH_HAS_WARP_BALLOT__ (1)
#define __HIP_ARCH_HAS_WARP_SHUFFLE__ (1)
#define __HIP_ARCH_HAS_WARP_FUNNEL_SHIFT__ (0)
#define __HIP_ARCH_HAS_THREAD_FENCE_SYSTEM__ (1)
#define __HIP_ARCH_HAS_SYNC_THREAD_EXT__ (0)
#define __HIP_ARCH_HAS_SURFACE_FUNCS__ (0)
#define __HIP_ARCH_HAS_3DGRID__ (1)
#define __HIP_ARCH_HAS_DYNAMIC_PARALLEL__ (0)
#endif

#endif
