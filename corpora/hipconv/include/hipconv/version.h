// hipconv version and feature macros.
#pragma once

#define HIPCONV_VERSION_MAJOR 0
#define HIPCONV_VERSION_MINOR 9
#define HIPCONV_VERSION_PATCH 3
#define HIPCONV_VERSION_STRING "0.9.3"

// Device-code attributes shared by the library. HIPCONV_DEVICE_EXTERN marks helpers that
// are deliberately *not* inline: they are compiled once per translation unit (every .hip
// file of the library instantiates exactly one kernel), which keeps compile times down
// compared with forcing everything inline.
#define HIPCONV_DEVICE __device__
#define HIPCONV_HOST_DEVICE __host__ __device__
#define HIPCONV_INLINE __device__ __forceinline__
#define HIPCONV_DEVICE_EXTERN __device__

#if defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__)
#define HIPCONV_DEVICE_PASS 1
#else
#define HIPCONV_DEVICE_PASS 0
#endif

#ifndef HIPCONV_ENABLE_PROFILING
#define HIPCONV_ENABLE_PROFILING 0
#endif

#define HIPCONV_STRINGIFY_(x) #x
#define HIPCONV_STRINGIFY(x) HIPCONV_STRINGIFY_(x)
