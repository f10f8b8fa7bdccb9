// gpu-reduce HIP fallback shim -- used only when no ROCm install is available.
//
// hip/amd_detail/clang_wrapper.h: what clang's __clang_hip_runtime_wrapper.h defines before the
// first line of every HIP file. The driver -include's that wrapper, but only with a ROCm: the
// oracle's -nogpuinc leaves it out, so the oracle -include's this in its place
// (interestingness/compiler/hip_headers.py). Library code may say `__device__` before it includes
// any HIP header (hipconv's j_to_hnw.hpp does). The expansions are the wrapper's (and the shim's
// historical ones); its standard headers come with hip_runtime.h (see there).
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_CLANG_WRAPPER_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_CLANG_WRAPPER_H

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))

#define __cluster_dims__(...) __attribute__((cluster_dims(__VA_ARGS__)))
#define __no_cluster__ __attribute__((no_cluster))

#endif
