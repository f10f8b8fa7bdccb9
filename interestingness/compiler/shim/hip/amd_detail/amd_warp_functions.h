// gpu-reduce HIP fallback shim -- used only when no ROCm install is available.
//
// hip/amd_detail/amd_warp_functions.h: wavefront-level functions. warpSize, __lane_id, __ballot,
// __any/__all, __activemask, __shfl/__shfl_up/__shfl_down/__shfl_xor for int, unsigned, long,
// unsigned long, long long, unsigned long long, float, double (width defaults to warpSize; lanes
// are exchanged with ds_bpermute as in ROCm, 64-bit values as two 32-bit halves), the *_sync
// variants (64-bit mask, as ROCm requires in wave64 device code), __syncwarp, and ROCm's DPP /
// swizzle / permute helpers.
//
// warpSize: ROCm 7 makes it a device-only object convertible to int (its value is read with
// __builtin_amdgcn_wavefrontsize()), ROCm 6 a `static constexpr int`. Here it is a
// `static constexpr int` (64, or 32 on gfx10/11/12): every use ROCm 7 accepts (an int in device
// code, a default argument, a comparison) compiles against it, and so does ROCm 6 code that uses
// it in constant expressions (array bounds, template arguments). The constant folds to the same
// code the builtin gives once the target is known.
//
// Simplified: the *_sync functions do not run ROCm's waterfall loop that checks the mask is
// consistent across lanes (a mask only narrows __ballot_sync/__any_sync/__all_sync); no
// __match_any/__match_all, no __reduce_*_sync.
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_WARP_FUNCTIONS_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_WARP_FUNCTIONS_H

#include "host_defines.h"

#if defined(__GFX10__) || defined(__GFX11__) || defined(__GFX12__)
#define __HIP_SHIM_WAVEFRONT_SIZE 32
#else
#define __HIP_SHIM_WAVEFRONT_SIZE 64
#endif
static constexpr int warpSize = __HIP_SHIM_WAVEFRONT_SIZE;

#if defined(__has_attribute) && __has_attribute(maybe_undef)
#define __HIP_SHIM_MAYBE_UNDEF __attribute__((maybe_undef))
#else
#define __HIP_SHIM_MAYBE_UNDEF
#endif

__device__ static inline unsigned int __lane_id() {
#if __HIP_SHIM_WAVEFRONT_SIZE == 32
  return __builtin_amdgcn_mbcnt_lo(~0u, 0u);
#else
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
#endif
}

__device__ inline unsigned long long int __ballot(int __pred) {
#if __HIP_SHIM_WAVEFRONT_SIZE == 32
  return __builtin_amdgcn_ballot_w32(__pred != 0);
#else
  return __builtin_amdgcn_ballot_w64(__pred != 0);
#endif
}
__device__ inline unsigned long long int __ballot64(int __pred) { return __ballot(__pred); }
__device__ inline unsigned long long __activemask() { return __ballot(true); }
__device__ inline int __all(int __pred) { return __ballot(__pred) == __ballot(true); }
__device__ inline int __any(int __pred) { return __ballot(__pred) != 0; }

// ROCm's lane-exchange helpers (byte-addressed lane index for the permutes).
__device__ static inline unsigned __hip_ds_bpermute(int __index, unsigned __src) {
  return __builtin_amdgcn_ds_bpermute(__index, __src);
}
__device__ static inline float __hip_ds_bpermutef(int __index, float __src) {
  return __builtin_bit_cast(float, __builtin_amdgcn_ds_bpermute(__index, __builtin_bit_cast(int, __src)));
}
__device__ static inline unsigned __hip_ds_permute(int __index, unsigned __src) {
  return __builtin_amdgcn_ds_permute(__index, __src);
}
__device__ static inline float __hip_ds_permutef(int __index, float __src) {
  return __builtin_bit_cast(float, __builtin_amdgcn_ds_permute(__index, __builtin_bit_cast(int, __src)));
}
template <int __pattern>
__device__ static inline unsigned __hip_ds_swizzle_N(unsigned int __src) {
  return __builtin_amdgcn_ds_swizzle(__src, __pattern);
}
template <int __pattern>
__device__ static inline float __hip_ds_swizzlef_N(float __src) {
  return __builtin_bit_cast(float, __builtin_amdgcn_ds_swizzle(__builtin_bit_cast(int, __src), __pattern));
}
#define __hip_ds_swizzle(__src, __pattern) __hip_ds_swizzle_N<(__pattern)>((__src))
#define __hip_ds_swizzlef(__src, __pattern) __hip_ds_swizzlef_N<(__pattern)>((__src))
template <int __ctrl, int __row_mask, int __bank_mask, bool __bound_ctrl>
__device__ static inline int __hip_move_dpp_N(int __src) {
  return __builtin_amdgcn_mov_dpp(__src, __ctrl, __row_mask, __bank_mask, __bound_ctrl);
}
#define __hip_move_dpp(__src, __ctrl, __row_mask, __bank_mask, __bound_ctrl) \
  __hip_move_dpp_N<(__ctrl), (__row_mask), (__bank_mask), (__bound_ctrl)>((__src))

// The 32-bit shuffles: the source lane, as ROCm computes it, read with ds_bpermute.
__device__ inline int __shfl(__HIP_SHIM_MAYBE_UNDEF int __var, int __src_lane, int __width = warpSize) {
  int __self = __lane_id();
  int __index = (__src_lane & (__width - 1)) + (__self & ~(__width - 1));
  return __builtin_amdgcn_ds_bpermute(__index << 2, __var);
}
__device__ inline int __shfl_up(__HIP_SHIM_MAYBE_UNDEF int __var, unsigned int __delta, int __width = warpSize) {
  int __self = __lane_id();
  int __index = __self - __delta;
  __index = (__index < (__self & ~(__width - 1))) ? __self : __index;
  return __builtin_amdgcn_ds_bpermute(__index << 2, __var);
}
__device__ inline int __shfl_down(__HIP_SHIM_MAYBE_UNDEF int __var, unsigned int __delta, int __width = warpSize) {
  int __self = __lane_id();
  int __index = __self + __delta;
  __index = (int)((__self & (__width - 1)) + __delta) >= __width ? __self : __index;
  return __builtin_amdgcn_ds_bpermute(__index << 2, __var);
}
__device__ inline int __shfl_xor(__HIP_SHIM_MAYBE_UNDEF int __var, int __lane_mask, int __width = warpSize) {
  int __self = __lane_id();
  int __index = __self ^ __lane_mask;
  __index = __index >= ((__self + __width) & ~(__width - 1)) ? __self : __index;
  return __builtin_amdgcn_ds_bpermute(__index << 2, __var);
}

// Other 32-bit types go through the int version bit for bit; 64-bit types as two halves.
#define __HIP_SHIM_SHFL_32(__name, __T, __P)                                                        \
  __device__ inline __T __name(__HIP_SHIM_MAYBE_UNDEF __T __var, __P __arg, int __width = warpSize) { \
    return __builtin_bit_cast(__T, __name(__builtin_bit_cast(int, __var), __arg, __width));         \
  }
#define __HIP_SHIM_SHFL_64(__name, __T, __P)                                                        \
  __device__ inline __T __name(__HIP_SHIM_MAYBE_UNDEF __T __var, __P __arg, int __width = warpSize) { \
    static_assert(sizeof(__T) == 8, "");                                                            \
    struct __halves {                                                                               \
      int __lo, __hi;                                                                               \
    } __h = __builtin_bit_cast(__halves, __var);                                                    \
    __h.__lo = __name(__h.__lo, __arg, __width);                                                    \
    __h.__hi = __name(__h.__hi, __arg, __width);                                                    \
    return __builtin_bit_cast(__T, __h);                                                            \
  }
#define __HIP_SHIM_SHFL_ALL(__name, __P)                  \
  __HIP_SHIM_SHFL_32(__name, unsigned int, __P)           \
  __HIP_SHIM_SHFL_32(__name, float, __P)                  \
  __HIP_SHIM_SHFL_64(__name, double, __P)                 \
  __HIP_SHIM_SHFL_64(__name, long, __P)                   \
  __HIP_SHIM_SHFL_64(__name, unsigned long, __P)          \
  __HIP_SHIM_SHFL_64(__name, long long, __P)              \
  __HIP_SHIM_SHFL_64(__name, unsigned long long, __P)
__HIP_SHIM_SHFL_ALL(__shfl, int)
__HIP_SHIM_SHFL_ALL(__shfl_up, unsigned int)
__HIP_SHIM_SHFL_ALL(__shfl_down, unsigned int)
__HIP_SHIM_SHFL_ALL(__shfl_xor, int)
#undef __HIP_SHIM_SHFL_ALL
#undef __HIP_SHIM_SHFL_64
#undef __HIP_SHIM_SHFL_32

template <typename _Tp>
__device__ inline _Tp __hip_readfirstlane(_Tp __val) {
  static_assert(sizeof(_Tp) == 4 || sizeof(_Tp) == 8, "");
  if constexpr (sizeof(_Tp) == 4) {
    return __builtin_bit_cast(_Tp, __builtin_amdgcn_readfirstlane(__builtin_bit_cast(int, __val)));
  } else {
    unsigned long long __u = __builtin_bit_cast(unsigned long long, __val);
    unsigned long long __lo = (unsigned)__builtin_amdgcn_readfirstlane((int)__u);
    unsigned long long __hi = (unsigned)__builtin_amdgcn_readfirstlane((int)(__u >> 32));
    return __builtin_bit_cast(_Tp, (__hi << 32) | __lo);
  }
}

// The mask-taking variants. ROCm requires a 64-bit integer mask in wave64 device code (a 32-bit
// one is "almost always an error") and 32 or 64 bits elsewhere.
#if defined(__HIP_DEVICE_COMPILE__) && __HIP_SHIM_WAVEFRONT_SIZE == 64
#define __HIP_SHIM_MASK_OK(__M) (__is_integral(__M) && sizeof(__M) == 8)
#else
#define __HIP_SHIM_MASK_OK(__M) (__is_integral(__M) && (sizeof(__M) == 4 || sizeof(__M) == 8))
#endif
#define __HIP_SHIM_MASK_MSG "The mask must be a 64-bit integer (or a 32-bit integer on wave32 targets)."

template <typename _Mask>
__device__ inline unsigned long long __hip_prepare_sync_mask(_Mask __mask) {
  unsigned long long __m = sizeof(_Mask) == 4 ? (unsigned long long)(unsigned)__mask : (unsigned long long)__mask;
  return __HIP_SHIM_WAVEFRONT_SIZE == 32 ? (__m & 0xffffffffull) : __m;
}

__device__ inline void __syncwarp() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
template <typename _Mask>
__device__ inline void __syncwarp(_Mask __mask) {
  static_assert(__HIP_SHIM_MASK_OK(_Mask), __HIP_SHIM_MASK_MSG);
  (void)__mask;
  __syncwarp();
}
template <typename _Mask>
__device__ inline unsigned long long __ballot_sync(_Mask __mask, int __pred) {
  static_assert(__HIP_SHIM_MASK_OK(_Mask), __HIP_SHIM_MASK_MSG);
  return __ballot(__pred) & __hip_prepare_sync_mask(__mask);
}
template <typename _Mask>
__device__ inline int __all_sync(_Mask __mask, int __pred) {
  static_assert(__HIP_SHIM_MASK_OK(_Mask), __HIP_SHIM_MASK_MSG);
  unsigned long long __m = __hip_prepare_sync_mask(__mask);
  return (__ballot(__pred) & __m) == __m;
}
template <typename _Mask>
__device__ inline int __any_sync(_Mask __mask, int __pred) {
  static_assert(__HIP_SHIM_MASK_OK(_Mask), __HIP_SHIM_MASK_MSG);
  return (__ballot(__pred) & __hip_prepare_sync_mask(__mask)) != 0;
}
template <typename _Mask, typename _Tp>
__device__ inline _Tp __shfl_sync(_Mask __mask, __HIP_SHIM_MAYBE_UNDEF _Tp __var, int __src_lane,
                                  int __width = warpSize) {
  static_assert(__HIP_SHIM_MASK_OK(_Mask), __HIP_SHIM_MASK_MSG);
  (void)__mask;
  return __shfl(__var, __src_lane, __width);
}
template <typename _Mask, typename _Tp>
__device__ inline _Tp __shfl_up_sync(_Mask __mask, __HIP_SHIM_MAYBE_UNDEF _Tp __var, unsigned int __delta,
                                     int __width = warpSize) {
  static_assert(__HIP_SHIM_MASK_OK(_Mask), __HIP_SHIM_MASK_MSG);
  (void)__mask;
  return __shfl_up(__var, __delta, __width);
}
template <typename _Mask, typename _Tp>
__device__ inline _Tp __shfl_down_sync(_Mask __mask, __HIP_SHIM_MAYBE_UNDEF _Tp __var, unsigned int __delta,
                                       int __width = warpSize) {
  static_assert(__HIP_SHIM_MASK_OK(_Mask), __HIP_SHIM_MASK_MSG);
  (void)__mask;
  return __shfl_down(__var, __delta, __width);
}
template <typename _Mask, typename _Tp>
__device__ inline _Tp __shfl_xor_sync(_Mask __mask, __HIP_SHIM_MAYBE_UNDEF _Tp __var, int __lane_mask,
                                      int __width = warpSize) {
  static_assert(__HIP_SHIM_MASK_OK(_Mask), __HIP_SHIM_MASK_MSG);
  (void)__mask;
  return __shfl_xor(__var, __lane_mask, __width);
}

#endif
