// gpu-reduce HIP fallback shim -- used only when no ROCm install is available.
//
// hip/hip_bf16.h: the public entry point for __hip_bfloat16, __hip_bfloat162 and their
// intrinsics; see hip/amd_detail/amd_hip_bf16.h.
#ifndef HIP_INCLUDE_HIP_HIP_BF16_H
#define HIP_INCLUDE_HIP_HIP_BF16_H

#include "hip_common.h"
#include "amd_detail/amd_hip_bf16.h"

#endif
