// gpu-reduce HIP fallback shim -- used only when no ROCm install is available.
//
// hip/hip_vector_types.h: the public entry point for the vector types (float4, int2, ...,
// make_float4, ...); see hip/amd_detail/amd_hip_vector_types.h.
#ifndef HIP_INCLUDE_HIP_HIP_VECTOR_TYPES_H
#define HIP_INCLUDE_HIP_HIP_VECTOR_TYPES_H

#include "hip_common.h"
#include "amd_detail/amd_hip_vector_types.h"

#endif
