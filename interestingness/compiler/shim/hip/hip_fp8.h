// gpu-reduce HIP fallback shim -- used only when no ROCm install is available.
//
// hip/hip_fp8.h: the public entry point for the 8-bit float types (__hip_fp8_e4m3,
// __hip_fp8_e5m2, their packs and _fnuz variants) and conversions; see
// hip/amd_detail/amd_hip_fp8.h.
#ifndef HIP_INCLUDE_HIP_HIP_FP8_H
#define HIP_INCLUDE_HIP_HIP_FP8_H

#include "hip_common.h"
#include "amd_detail/amd_hip_fp8.h"

#endif
