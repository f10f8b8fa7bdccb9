// gpu-reduce HIP fallback shim -- used only when no ROCm install is available.
//
// hip/hip_fp16.h: the public entry point for __half, __half2 and their intrinsics; see
// hip/amd_detail/amd_hip_fp16.h.
#ifndef HIP_INCLUDE_HIP_HIP_FP16_H
#define HIP_INCLUDE_HIP_HIP_FP16_H

#include "hip_common.h"
#include "amd_detail/amd_hip_fp16.h"

#endif
