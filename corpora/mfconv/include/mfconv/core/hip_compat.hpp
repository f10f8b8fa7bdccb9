// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// hip_compat.hpp -- the one place that includes the HIP headers.
//
// Everything in mfconv includes HIP through this header so that a build against an old ROCm
// (or against a device-only toolchain without the full runtime) only has to be fixed here.
// The fp16/bf16 headers are optional: mfconv's own numeric types are the compiler's
// _Float16 and __bf16, the HIP types are only needed by the interop helpers in
// core/numeric/{half,bfloat16}.hpp.
#pragma once

#include <hip/hip_runtime.h>

#if __has_include(<hip/hip_fp16.h>)
#include <hip/hip_fp16.h>
#define MFCONV_HAS_HIP_FP16_HEADER 1
#else
#define MFCONV_HAS_HIP_FP16_HEADER 0
#endif

#if __has_include(<hip/hip_bf16.h>)
#include <hip/hip_bf16.h>
#define MFCONV_HAS_HIP_BF16_HEADER 1
#else
#define MFCONV_HAS_HIP_BF16_HEADER 0
#endif

#if __has_include(<hip/hip_version.h>)
#include <hip/hip_version.h>
#endif

#ifndef HIP_VERSION_MAJOR
#define MFCONV_HIP_VERSION 0
#else
#define MFCONV_HIP_VERSION (HIP_VERSION_MAJOR * 10000 + HIP_VERSION_MINOR * 100)
#endif

// Older device-only toolchains ship a hip_runtime.h without the launch macro. This is the
// same expansion ROCm uses: the kernel expression is pasted in front of the triple chevrons,
// so template kernels have to be passed in parentheses, e.g.
//     hipLaunchKernelGGL((my_kernel<T, C>), grid, block, 0, stream, args...);
#ifndef hipLaunchKernelGGL
#define MFCONV_DEFINES_LAUNCH_MACRO 1
#define hipLaunchKernelGGL(kernel_name, num_blocks, dim_blocks, dyn_shared, stream, ...)                      \
    do                                                                                                         \
    {                                                                                                          \
        kernel_name<<<(num_blocks), (dim_blocks), (dyn_shared), (stream)>>>(__VA_ARGS__);                     \
    } while(0)
#else
#define MFCONV_DEFINES_LAUNCH_MACRO 0
#endif
