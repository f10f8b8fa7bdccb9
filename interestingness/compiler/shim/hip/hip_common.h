// gpu-reduce HIP fallback shim -- used only when no ROCm install is available.
//
// hip/hip_common.h: the platform macros ROCm's hip_common.h and amd_hip_common.h set, and
// stand-ins for builtins of ROCm's clang that upstream clang (Debian's clang 22) lacks.
//
// Simplified: only the AMD platform exists here (no __HIP_PLATFORM_NVIDIA__ path).
//
// Builtin stand-ins (each only when the compiler does not have the builtin):
//   __builtin_amdgcn_is_invocable(B)   ROCm 7's headers guard every target builtin with it; clang 22
//                                      rejects it ("must be directly called"). Here it is
//                                      __has_builtin(B): true in device compiles for any builtin the
//                                      amdgcn target knows, false on the host. Unlike ROCm's it does
//                                      not check that the processor has the instruction.
//   __builtin_amdgcn_processor_is(P)   a constant expression: P equals __amdgcn_processor__ (the
//                                      device compile's processor, e.g. "gfx950"); false on the host.
#ifndef HIP_INCLUDE_HIP_HIP_COMMON_H
#define HIP_INCLUDE_HIP_HIP_COMMON_H

#define __HIP_SHIM__ 1  // this is gpu-reduce's fallback, not a ROCm install

#if defined(__clang__) && defined(__HIP__)
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#ifndef __HIP_CLANG_ONLY__
#define __HIP_CLANG_ONLY__ 1
#endif
#endif

#if defined(__GNUC__)
#define HIP_PUBLIC_API __attribute__((visibility("default")))
#define HIP_INTERNAL_EXPORTED_API __attribute__((visibility("default")))
#else
#define HIP_PUBLIC_API
#define HIP_INTERNAL_EXPORTED_API
#endif

#if !__has_builtin(__builtin_amdgcn_is_invocable)
#define __builtin_amdgcn_is_invocable(...) __has_builtin(__VA_ARGS__)
#endif

#if !__has_builtin(__builtin_amdgcn_processor_is)
#ifdef __cplusplus
constexpr bool __hip_shim_processor_is(const char* __want) {
#if defined(__amdgcn_processor__) && defined(__HIP_DEVICE_COMPILE__)
  const char* __have = __amdgcn_processor__;
  for (; *__want && *__want == *__have; ++__want, ++__have) {
  }
  return *__want == *__have;
#else
  return (void)__want, false;
#endif
}
#define __builtin_amdgcn_processor_is(__p) __hip_shim_processor_is(__p)
#endif
#endif

#endif
