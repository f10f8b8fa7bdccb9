// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// config.hpp -- compiler/target configuration of the mfconv headers.
#pragma once

#include "mfconv/core/hip_compat.hpp"

// ---------------------------------------------------------------------------------------
// Target families. The xdl kernels are written for CDNA3/CDNA4 and use the gfx950 MFMA
// shapes (16x16x32 / 32x32x16 for 16-bit inputs); the rest of the library is portable.
#if defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#define MFCONV_ARCH_GFX94 1
#endif
#if defined(__gfx950__)
#define MFCONV_ARCH_GFX950 1
#endif
#if defined(__gfx908__) || defined(__gfx90a__) || defined(MFCONV_ARCH_GFX94) || defined(MFCONV_ARCH_GFX950)
#define MFCONV_ARCH_CDNA 1
#endif
#if defined(__gfx1100__) || defined(__gfx1101__) || defined(__gfx1102__) || defined(__gfx1200__) ||            \
    defined(__gfx1201__)
#define MFCONV_ARCH_RDNA 1
#endif

#if defined(__HIP_DEVICE_COMPILE__)
#define MFCONV_DEVICE_PASS 1
#else
#define MFCONV_DEVICE_PASS 0
#endif

// ---------------------------------------------------------------------------------------
// Function attributes.
//
// MFCONV_DEVICE_EXTERN marks device helpers that are deliberately neither inline nor static:
// each translation unit of the library instantiates one kernel configuration, and letting
// the compiler decide about inlining the address helpers keeps compile times bounded.
#ifdef __HIPCC__
#define MFCONV_HOST inline __host__
#define MFCONV_DEVICE inline __device__
#define MFCONV_HOST_DEVICE inline __host__ __device__
#define MFCONV_DEVICE_EXTERN __device__
#define MFCONV_HOST_DEVICE_EXTERN __host__ __device__
#define MFCONV_FORCEINLINE __device__ __forceinline__
#else
#define MFCONV_HOST inline
#define MFCONV_DEVICE inline
#define MFCONV_HOST_DEVICE inline
#define MFCONV_DEVICE_EXTERN
#define MFCONV_HOST_DEVICE_EXTERN
#define MFCONV_FORCEINLINE inline
#endif

// Kernel attributes: a workgroup size and a minimum occupancy (waves per EU). With
// waves_per_eu = 2 a CDNA kernel may use 256 VGPRs (arch + acc) per lane.
#define MFCONV_KERNEL_ATTRIBUTES(block_size, waves_per_eu) __launch_bounds__(block_size, waves_per_eu)

#ifndef MFCONV_WAVE_SIZE
#define MFCONV_WAVE_SIZE 64
#endif

// LDS budget of one workgroup (bytes). gfx950 has 160 KiB; gfx942 64 KiB.
#if defined(MFCONV_ARCH_GFX950)
#define MFCONV_LDS_BYTES (160 * 1024)
#else
#define MFCONV_LDS_BYTES (64 * 1024)
#endif

// Debug switches (off in release builds).
#ifndef MFCONV_DEBUG_LOG
#define MFCONV_DEBUG_LOG 0
#endif
#ifndef MFCONV_ENABLE_DEVICE_ASSERT
#define MFCONV_ENABLE_DEVICE_ASSERT 0
#endif

#define MFCONV_STRINGIFY_IMPL(x) #x
#define MFCONV_STRINGIFY(x) MFCONV_STRINGIFY_IMPL(x)
#define MFCONV_CONCAT_IMPL(a, b) a##b
#define MFCONV_CONCAT(a, b) MFCONV_CONCAT_IMPL(a, b)

#define MFCONV_VERSION_MAJOR 1
#define MFCONV_VERSION_MINOR 4
#define MFCONV_VERSION_PATCH 0

namespace mfconv {

inline constexpr int kWaveSize = MFCONV_WAVE_SIZE;
inline constexpr int kLdsBytes = MFCONV_LDS_BYTES;

// The xdl kernel tables are generated for gfx950 on both compilation passes: the host pass
// has no __gfx950__ and must still see the same table as the device pass.
inline constexpr int kGfx950LdsBytes = 160 * 1024;

} // namespace mfconv
