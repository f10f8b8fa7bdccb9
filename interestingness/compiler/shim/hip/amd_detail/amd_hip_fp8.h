// gpu-reduce HIP fallback shim -- used only when no ROCm install is available.
//
// hip/amd_detail/amd_hip_fp8.h: 8-bit floats as ROCm defines them.
//   __hip_fp8_e4m3, __hip_fp8_e5m2 (and the x2 / x4 packs): the OCP formats gfx950 and gfx12
//     use. e4m3: bias 7, no infinities, NaN = S.1111.111, max 448. e5m2: bias 15, IEEE-like
//     infinities and NaNs, max 57344.
//   __hip_fp8_e4m3_fnuz, __hip_fp8_e5m2_fnuz (and packs): the gfx942 formats (bias 8 / 16, no
//     infinities, no -0, one NaN 0x80; max 240 / 57344).
// Each holds its bits in `__x` (__hip_fp8_storage_t, x2: __hip_fp8x2_storage_t, x4:
// __hip_fp8x4_storage_t), converts from float, double, __half, __hip_bfloat16 and the integer
// types with saturation to the largest finite value (ROCm's default, __HIP_SATFINITE), and to
// float, double, __half, __hip_bfloat16, bool and the integer types (NaN -> 0). The functions
// __hip_cvt_float_to_fp8, __hip_cvt_float2_to_fp8x2, __hip_cvt_double_to_fp8,
// __hip_cvt_double2_to_fp8x2, __hip_cvt_halfraw_to_fp8, __hip_cvt_halfraw2_to_fp8x2,
// __hip_cvt_bfloat16raw_to_fp8, __hip_cvt_bfloat16raw2_to_fp8x2, __hip_cvt_fp8_to_halfraw and
// __hip_cvt_fp8x2_to_halfraw2 take the saturation and the interpretation explicitly.
//
// Rounding, as ROCm's software path: to nearest, ties to even, into the subnormals; a magnitude
// above the format's maximum (before rounding) saturates to it with __HIP_SATFINITE and otherwise
// becomes NaN (e4m3, fnuz formats) or infinity (e5m2); infinities are never saturated (e4m3 and
// fnuz: NaN, e5m2: infinity); NaN stays NaN; -0 stays -0 in the OCP formats and becomes 0 in the
// fnuz ones. In gfx950 / gfx12 device code the OCP conversions use the hardware instructions
// (v_cvt_pk_fp8_f32 & co., clamped with fmed3 for saturation), as ROCm does.
//
// Simplified: the fnuz types always use the software path and are usable in gfx950 device code
// (ROCm makes them host-only there); no stochastic rounding, no e8m0/MX scale types, no fp8
// arithmetic.
#ifndef _HIP_INCLUDE_HIP_AMD_DETAIL_HIP_FP8_H_
#define _HIP_INCLUDE_HIP_AMD_DETAIL_HIP_FP8_H_

#include "host_defines.h"
#include "amd_hip_vector_types.h"
#include "amd_hip_fp16.h"
#include "amd_hip_bf16.h"

#define __FP8_HOST_DEVICE__ __host__ __device__
#define __FP8_HOST_DEVICE_STATIC__ __FP8_HOST_DEVICE__ static inline

#if defined(__HIP_DEVICE_COMPILE__) && (defined(__gfx950__) || defined(__gfx1200__) || defined(__gfx1201__)) && \
    __has_builtin(__builtin_amdgcn_cvt_pk_fp8_f32)
#define HIP_FP8_CVT_FAST_PATH 1
#else
#define HIP_FP8_CVT_FAST_PATH 0
#endif
#define HIP_FP8_TYPE_OCP 1
#define HIP_FP8_TYPE_FNUZ 1

enum __hip_fp8_interpretation_t {
  __HIP_E4M3 = 0,
  __HIP_E5M2 = 1,
  __HIP_E4M3_FNUZ = 2,
  __HIP_E5M2_FNUZ = 3,
};
enum __hip_saturation_t {
  __HIP_NOSAT = 0,
  __HIP_SATFINITE = 1,
};
typedef unsigned char __hip_fp8_storage_t;
typedef unsigned short int __hip_fp8x2_storage_t;
typedef unsigned int __hip_fp8x4_storage_t;

// Software conversions, float <-> one fp8 of any interpretation.
__FP8_HOST_DEVICE_STATIC__ __hip_fp8_storage_t __hip_shim_f32_to_fp8(float __f, bool __sat,
                                                                     __hip_fp8_interpretation_t __interp) {
  const int __we = (__interp == __HIP_E4M3 || __interp == __HIP_E4M3_FNUZ) ? 4 : 5, __wm = 7 - __we;
  const bool __fnuz = __interp >= __HIP_E4M3_FNUZ;
  const int __bias = (1 << (__we - 1)) - 1 + (__fnuz ? 1 : 0);
  const unsigned __maxcode = __fnuz ? 0x7f : (__we == 4 ? 0x7e : 0x7b);
  const unsigned __maxbits = __we == 5 ? 0x47600000u : (__fnuz ? 0x43700000u : 0x43e00000u);  // 57344, 240, 448
  const unsigned __nan = 0x7f, __inf = __we == 4 ? 0x7f : 0x7c;  // OCP encodings (e4m3 has no infinity)
  unsigned __u = __builtin_bit_cast(unsigned, __f);
  unsigned __sign = (__u >> 24) & 0x80, __a = __u & 0x7fffffffu;
  if (__a > 0x7f800000u) return __fnuz ? 0x80 : (__sign | __nan);
  if (__a == 0x7f800000u) return __fnuz ? 0x80 : (__sign | __inf);
  if (__a > __maxbits) return __sat ? (__sign | __maxcode) : (__fnuz ? 0x80 : (__sign | __inf));
  int __e = (int)(__a >> 23);
  if (__e == 0) return __fnuz ? 0 : __sign;  // zero or a float subnormal: far below fp8's range
  unsigned __m = (__a & 0x7fffffu) | 0x800000u;
  int __lead = __e - 127, __emin = 1 - __bias;
  int __qe = (__lead > __emin ? __lead : __emin) - __wm;  // exponent of the last mantissa bit kept
  int __shift = __qe - (__lead - 23);
  unsigned __n = 0;
  if (__shift <= 25) {
    __n = __m >> __shift;
    unsigned __rem = __m & ((1u << __shift) - 1), __half = 1u << (__shift - 1);
    if (__rem > __half || (__rem == __half && (__n & 1))) ++__n;
  }
  if (__n == 0) return __fnuz ? 0 : __sign;
  if (__n >= (2u << __wm)) {  // rounding carried into the next binade
    __n >>= 1;
    ++__qe;
  }
  unsigned __code = __n < (1u << __wm) ? __n : (((unsigned)(__qe + __wm + __bias) << __wm) | (__n - (1u << __wm)));
  return (__hip_fp8_storage_t)(__sign | __code);
}

__FP8_HOST_DEVICE_STATIC__ float __hip_shim_fp8_to_f32(__hip_fp8_storage_t __v, __hip_fp8_interpretation_t __interp) {
  const int __we = (__interp == __HIP_E4M3 || __interp == __HIP_E4M3_FNUZ) ? 4 : 5, __wm = 7 - __we;
  const bool __fnuz = __interp >= __HIP_E4M3_FNUZ;
  const int __bias = (1 << (__we - 1)) - 1 + (__fnuz ? 1 : 0);
  unsigned __sign = __v & 0x80, __mag = __v & 0x7f;
  const float __qnan = __builtin_nanf("");
  if (__fnuz && __v == 0x80) return __qnan;
  if (!__fnuz && __we == 4 && __mag == 0x7f) return __sign ? -__qnan : __qnan;
  if (!__fnuz && __we == 5 && __mag >= 0x7c) {
    if (__mag > 0x7c) return __sign ? -__qnan : __qnan;
    return __sign ? -__builtin_inff() : __builtin_inff();
  }
  unsigned __exp = __mag >> __wm, __man = __mag & ((1u << __wm) - 1);
  int __k = __exp == 0 ? 1 - __bias - __wm : (int)__exp - __bias - __wm;
  float __scale = __builtin_bit_cast(float, (unsigned)(127 + __k) << 23);
  float __val = (float)(__exp == 0 ? __man : __man + (1u << __wm)) * __scale;
  return __sign ? -__val : __val;
}

// double -> float rounding to odd first, so that rounding again to fp8 is exact.
__FP8_HOST_DEVICE_STATIC__ float __hip_shim_f64_to_f32_odd(double __d) {
  float __f = static_cast<float>(__d);
  unsigned __u = __builtin_bit_cast(unsigned, __f);
  if (__d == __d && static_cast<double>(__f) != __d) {
    if (__builtin_fabs(static_cast<double>(__f)) > __builtin_fabs(__d)) __u -= 1;
    __u |= 1;
  }
  return __builtin_bit_cast(float, __u);
}

__FP8_HOST_DEVICE_STATIC__ __hip_fp8_storage_t __hip_cvt_float_to_fp8(float __f, __hip_saturation_t __sat,
                                                                      __hip_fp8_interpretation_t __interp) {
#if HIP_FP8_CVT_FAST_PATH
  if (__interp == __HIP_E4M3 || __interp == __HIP_E5M2) {
    float __max = __interp == __HIP_E4M3 ? 448.0f : 57344.0f;
    if (__sat == __HIP_SATFINITE && !__builtin_isinf(__f) && __f == __f)
      __f = __builtin_amdgcn_fmed3f(__f, __max, -__max);
    int __r = __interp == __HIP_E4M3 ? __builtin_amdgcn_cvt_pk_fp8_f32(__f, __f, 0, false)
                                     : __builtin_amdgcn_cvt_pk_bf8_f32(__f, __f, 0, false);
    return (__hip_fp8_storage_t)(__r & 0xff);
  }
#endif
  return __hip_shim_f32_to_fp8(__f, __sat == __HIP_SATFINITE, __interp);
}
__FP8_HOST_DEVICE_STATIC__ __hip_fp8x2_storage_t __hip_cvt_float2_to_fp8x2(float2 __f, __hip_saturation_t __sat,
                                                                           __hip_fp8_interpretation_t __interp) {
  return (__hip_fp8x2_storage_t)(__hip_cvt_float_to_fp8(__f.x, __sat, __interp) |
                                 (unsigned)__hip_cvt_float_to_fp8(__f.y, __sat, __interp) << 8);
}
__FP8_HOST_DEVICE_STATIC__ __hip_fp8_storage_t __hip_cvt_double_to_fp8(double __d, __hip_saturation_t __sat,
                                                                       __hip_fp8_interpretation_t __interp) {
  return __hip_shim_f32_to_fp8(__hip_shim_f64_to_f32_odd(__d), __sat == __HIP_SATFINITE, __interp);
}
__FP8_HOST_DEVICE_STATIC__ __hip_fp8x2_storage_t __hip_cvt_double2_to_fp8x2(double2 __d, __hip_saturation_t __sat,
                                                                            __hip_fp8_interpretation_t __interp) {
  return (__hip_fp8x2_storage_t)(__hip_cvt_double_to_fp8(__d.x, __sat, __interp) |
                                 (unsigned)__hip_cvt_double_to_fp8(__d.y, __sat, __interp) << 8);
}
__FP8_HOST_DEVICE_STATIC__ __hip_fp8_storage_t __hip_cvt_halfraw_to_fp8(__half_raw __h, __hip_saturation_t __sat,
                                                                        __hip_fp8_interpretation_t __interp) {
  return __hip_cvt_float_to_fp8(static_cast<float>(__h.data), __sat, __interp);
}
__FP8_HOST_DEVICE_STATIC__ __hip_fp8x2_storage_t __hip_cvt_halfraw2_to_fp8x2(__half2_raw __h, __hip_saturation_t __sat,
                                                                             __hip_fp8_interpretation_t __interp) {
  return __hip_cvt_float2_to_fp8x2(float2{static_cast<float>(__h.data.x), static_cast<float>(__h.data.y)}, __sat,
                                   __interp);
}
__FP8_HOST_DEVICE_STATIC__ __hip_fp8_storage_t __hip_cvt_bfloat16raw_to_fp8(__hip_bfloat16_raw __b,
                                                                            __hip_saturation_t __sat,
                                                                            __hip_fp8_interpretation_t __interp) {
  return __hip_cvt_float_to_fp8(__hip_shim_bf2f(__b.x), __sat, __interp);
}
__FP8_HOST_DEVICE_STATIC__ __hip_fp8x2_storage_t __hip_cvt_bfloat16raw2_to_fp8x2(__hip_bfloat162_raw __b,
                                                                                 __hip_saturation_t __sat,
                                                                                 __hip_fp8_interpretation_t __interp) {
  return __hip_cvt_float2_to_fp8x2(float2{__hip_shim_bf2f(__b.x), __hip_shim_bf2f(__b.y)}, __sat, __interp);
}
__FP8_HOST_DEVICE_STATIC__ float __hip_cvt_fp8_to_float(__hip_fp8_storage_t __v, __hip_fp8_interpretation_t __interp) {
#if HIP_FP8_CVT_FAST_PATH
  if (__interp == __HIP_E4M3) return __builtin_amdgcn_cvt_f32_fp8((int)__v, 0);
  if (__interp == __HIP_E5M2) return __builtin_amdgcn_cvt_f32_bf8((int)__v, 0);
#endif
  return __hip_shim_fp8_to_f32(__v, __interp);
}
__FP8_HOST_DEVICE_STATIC__ float2 __hip_cvt_fp8x2_to_float2(__hip_fp8x2_storage_t __v,
                                                            __hip_fp8_interpretation_t __interp) {
#if HIP_FP8_CVT_FAST_PATH
  if (__interp == __HIP_E4M3 || __interp == __HIP_E5M2) {
    auto __p = __interp == __HIP_E4M3 ? __builtin_amdgcn_cvt_pk_f32_fp8((int)__v, false)
                                      : __builtin_amdgcn_cvt_pk_f32_bf8((int)__v, false);
    return float2{__p[0], __p[1]};
  }
#endif
  return float2{__hip_shim_fp8_to_f32((__hip_fp8_storage_t)(__v & 0xff), __interp),
                __hip_shim_fp8_to_f32((__hip_fp8_storage_t)(__v >> 8), __interp)};
}
__FP8_HOST_DEVICE_STATIC__ __half_raw __hip_cvt_fp8_to_halfraw(__hip_fp8_storage_t __v,
                                                               __hip_fp8_interpretation_t __interp) {
  return __half_raw{{static_cast<_Float16>(__hip_cvt_fp8_to_float(__v, __interp))}};
}
__FP8_HOST_DEVICE_STATIC__ __half2_raw __hip_cvt_fp8x2_to_halfraw2(__hip_fp8x2_storage_t __v,
                                                                   __hip_fp8_interpretation_t __interp) {
  float2 __f = __hip_cvt_fp8x2_to_float2(__v, __interp);
  __half2_raw __r{};
  __r.data = _Float16_2{static_cast<_Float16>(__f.x), static_cast<_Float16>(__f.y)};
  return __r;
}

// fp8 -> integer: NaN -> 0, clamped to the integer's range.
template <typename _Int>
__FP8_HOST_DEVICE_STATIC__ _Int __hip_shim_fp8_to_int(float __f) {
  if (__f != __f) return 0;
  const _Int __lo = _Int(-1) < _Int(0) ? _Int(1ull << (sizeof(_Int) * 8 - 1)) : _Int(0);
  const _Int __hi = _Int(~__lo);
  if (__f <= (float)__lo) return __lo;
  if (__f >= (float)__hi) return __hi;
  return (_Int)__f;
}

#define __HIP_SHIM_FP8_TYPES(__sfx, __interp, __we_v, __wm_v)                                                   \
  struct __hip_fp8##__sfx {                                                                                    \
    __hip_fp8_storage_t __x;                                                                                   \
    static constexpr __hip_saturation_t __default_saturation = __HIP_SATFINITE;                                \
    static constexpr __hip_fp8_interpretation_t __default_interpret = __interp;                                \
    static constexpr unsigned int __we = __we_v;                                                               \
    static constexpr unsigned int __wm = __wm_v;                                                               \
    __hip_fp8##__sfx() = default;                                                                              \
    __FP8_HOST_DEVICE__ __hip_fp8##__sfx(float __f) : __x(__hip_cvt_float_to_fp8(__f, __HIP_SATFINITE, __interp)) {} \
    __FP8_HOST_DEVICE__ __hip_fp8##__sfx(double __d) : __x(__hip_cvt_double_to_fp8(__d, __HIP_SATFINITE, __interp)) {} \
    __FP8_HOST_DEVICE__ __hip_fp8##__sfx(__half __h)                                                           \
        : __x(__hip_cvt_halfraw_to_fp8(static_cast<__half_raw>(__h), __HIP_SATFINITE, __interp)) {}           \
    __FP8_HOST_DEVICE__ __hip_fp8##__sfx(__hip_bfloat16 __b)                                                   \
        : __x(__hip_cvt_float_to_fp8(static_cast<float>(__b), __HIP_SATFINITE, __interp)) {}                  \
    __FP8_HOST_DEVICE__ __hip_fp8##__sfx(int __i) : __hip_fp8##__sfx(static_cast<float>(__i)) {}              \
    __FP8_HOST_DEVICE__ __hip_fp8##__sfx(unsigned int __i) : __hip_fp8##__sfx(static_cast<float>(__i)) {}     \
    __FP8_HOST_DEVICE__ __hip_fp8##__sfx(long __i) : __hip_fp8##__sfx(static_cast<float>(__i)) {}             \
    __FP8_HOST_DEVICE__ __hip_fp8##__sfx(unsigned long __i) : __hip_fp8##__sfx(static_cast<float>(__i)) {}    \
    __FP8_HOST_DEVICE__ __hip_fp8##__sfx(short __i) : __hip_fp8##__sfx(static_cast<float>(__i)) {}            \
    __FP8_HOST_DEVICE__ __hip_fp8##__sfx(unsigned short __i) : __hip_fp8##__sfx(static_cast<float>(__i)) {}   \
    __FP8_HOST_DEVICE__ operator float() const { return __hip_cvt_fp8_to_float(__x, __interp); }              \
    __FP8_HOST_DEVICE__ operator double() const { return __hip_cvt_fp8_to_float(__x, __interp); }             \
    __FP8_HOST_DEVICE__ operator __half() const { return __half(__hip_cvt_fp8_to_halfraw(__x, __interp)); }   \
    __FP8_HOST_DEVICE__ operator __hip_bfloat16() const {                                                      \
      return __float2bfloat16(__hip_cvt_fp8_to_float(__x, __interp));                                          \
    }                                                                                                          \
    __FP8_HOST_DEVICE__ operator bool() const {                                                                \
      return (__x & (__interp >= __HIP_E4M3_FNUZ ? 0xff : 0x7f)) != 0;                                         \
    }                                                                                                          \
    __FP8_HOST_DEVICE__ operator char() const { return __hip_shim_fp8_to_int<char>(__hip_cvt_fp8_to_float(__x, __interp)); }                  \
    __FP8_HOST_DEVICE__ operator signed char() const { return __hip_shim_fp8_to_int<signed char>(__hip_cvt_fp8_to_float(__x, __interp)); }    \
    __FP8_HOST_DEVICE__ operator unsigned char() const { return __hip_shim_fp8_to_int<unsigned char>(__hip_cvt_fp8_to_float(__x, __interp)); } \
    __FP8_HOST_DEVICE__ operator short() const { return __hip_shim_fp8_to_int<short>(__hip_cvt_fp8_to_float(__x, __interp)); }                \
    __FP8_HOST_DEVICE__ operator unsigned short() const { return __hip_shim_fp8_to_int<unsigned short>(__hip_cvt_fp8_to_float(__x, __interp)); } \
    __FP8_HOST_DEVICE__ operator int() const { return __hip_shim_fp8_to_int<int>(__hip_cvt_fp8_to_float(__x, __interp)); }                    \
    __FP8_HOST_DEVICE__ operator unsigned int() const { return __hip_shim_fp8_to_int<unsigned int>(__hip_cvt_fp8_to_float(__x, __interp)); }  \
    __FP8_HOST_DEVICE__ operator long() const { return __hip_shim_fp8_to_int<long>(__hip_cvt_fp8_to_float(__x, __interp)); }                  \
    __FP8_HOST_DEVICE__ operator unsigned long() const { return __hip_shim_fp8_to_int<unsigned long>(__hip_cvt_fp8_to_float(__x, __interp)); } \
    __FP8_HOST_DEVICE__ operator long long() const { return __hip_shim_fp8_to_int<long long>(__hip_cvt_fp8_to_float(__x, __interp)); }        \
    __FP8_HOST_DEVICE__ operator unsigned long long() const {                                                  \
      return __hip_shim_fp8_to_int<unsigned long long>(__hip_cvt_fp8_to_float(__x, __interp));                                                 \
    }                                                                                                          \
  };                                                                                                           \
  struct __hip_fp8x2##__sfx {                                                                                  \
    __hip_fp8x2_storage_t __x;                                                                                 \
    static constexpr __hip_saturation_t __default_saturation = __HIP_SATFINITE;                                \
    static constexpr __hip_fp8_interpretation_t __default_interpret = __interp;                                \
    static constexpr unsigned int __we = __we_v;                                                               \
    static constexpr unsigned int __wm = __wm_v;                                                               \
    __hip_fp8x2##__sfx() = default;                                                                            \
    __FP8_HOST_DEVICE__ __hip_fp8x2##__sfx(float2 __f) : __x(__hip_cvt_float2_to_fp8x2(__f, __HIP_SATFINITE, __interp)) {} \
    __FP8_HOST_DEVICE__ __hip_fp8x2##__sfx(double2 __d)                                                        \
        : __x(__hip_cvt_double2_to_fp8x2(__d, __HIP_SATFINITE, __interp)) {}                                   \
    __FP8_HOST_DEVICE__ __hip_fp8x2##__sfx(__half2 __h)                                                        \
        : __x(__hip_cvt_halfraw2_to_fp8x2(static_cast<__half2_raw>(__h), __HIP_SATFINITE, __interp)) {}       \
    __FP8_HOST_DEVICE__ __hip_fp8x2##__sfx(__hip_bfloat162 __b)                                                \
        : __x(__hip_cvt_bfloat16raw2_to_fp8x2(static_cast<__hip_bfloat162_raw>(__b), __HIP_SATFINITE, __interp)) {} \
    __FP8_HOST_DEVICE__ operator float2() const { return __hip_cvt_fp8x2_to_float2(__x, __interp); }          \
    __FP8_HOST_DEVICE__ operator __half2() const { return __half2(__hip_cvt_fp8x2_to_halfraw2(__x, __interp)); } \
  };                                                                                                           \
  struct __hip_fp8x4##__sfx {                                                                                  \
    __hip_fp8x4_storage_t __x;                                                                                 \
    static constexpr __hip_saturation_t __default_saturation = __HIP_SATFINITE;                                \
    static constexpr __hip_fp8_interpretation_t __default_interpret = __interp;                                \
    static constexpr unsigned int __we = __we_v;                                                               \
    static constexpr unsigned int __wm = __wm_v;                                                               \
    __hip_fp8x4##__sfx() = default;                                                                            \
    __FP8_HOST_DEVICE__ __hip_fp8x4##__sfx(float4 __f)                                                         \
        : __x(__hip_cvt_float2_to_fp8x2(float2{__f.x, __f.y}, __HIP_SATFINITE, __interp) |                     \
              (unsigned)__hip_cvt_float2_to_fp8x2(float2{__f.z, __f.w}, __HIP_SATFINITE, __interp) << 16) {}   \
    __FP8_HOST_DEVICE__ __hip_fp8x4##__sfx(double4 __d)                                                        \
        : __x(__hip_cvt_double2_to_fp8x2(double2{__d.x, __d.y}, __HIP_SATFINITE, __interp) |                   \
              (unsigned)__hip_cvt_double2_to_fp8x2(double2{__d.z, __d.w}, __HIP_SATFINITE, __interp) << 16) {} \
    __FP8_HOST_DEVICE__ __hip_fp8x4##__sfx(__half2 __lo, __half2 __hi)                                         \
        : __x(__hip_cvt_halfraw2_to_fp8x2(static_cast<__half2_raw>(__lo), __HIP_SATFINITE, __interp) |         \
              (unsigned)__hip_cvt_halfraw2_to_fp8x2(static_cast<__half2_raw>(__hi), __HIP_SATFINITE, __interp) << 16) {} \
    __FP8_HOST_DEVICE__ __hip_fp8x4##__sfx(__hip_bfloat162 __lo, __hip_bfloat162 __hi)                         \
        : __x(__hip_cvt_bfloat16raw2_to_fp8x2(static_cast<__hip_bfloat162_raw>(__lo), __HIP_SATFINITE, __interp) | \
              (unsigned)__hip_cvt_bfloat16raw2_to_fp8x2(static_cast<__hip_bfloat162_raw>(__hi), __HIP_SATFINITE, \
                                                        __interp) << 16) {}                                    \
    __FP8_HOST_DEVICE__ operator float4() const {                                                              \
      float2 __lo = __hip_cvt_fp8x2_to_float2((__hip_fp8x2_storage_t)(__x & 0xffff), __interp);              \
      float2 __hi = __hip_cvt_fp8x2_to_float2((__hip_fp8x2_storage_t)(__x >> 16), __interp);                 \
      return float4{__lo.x, __lo.y, __hi.x, __hi.y};                                                           \
    }                                                                                                          \
  };
__HIP_SHIM_FP8_TYPES(_e4m3, __HIP_E4M3, 4, 3)
__HIP_SHIM_FP8_TYPES(_e5m2, __HIP_E5M2, 5, 2)
__HIP_SHIM_FP8_TYPES(_e4m3_fnuz, __HIP_E4M3_FNUZ, 4, 3)
__HIP_SHIM_FP8_TYPES(_e5m2_fnuz, __HIP_E5M2_FNUZ, 5, 2)
#undef __HIP_SHIM_FP8_TYPES

#endif
