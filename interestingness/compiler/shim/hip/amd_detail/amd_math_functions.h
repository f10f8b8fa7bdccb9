// gpu-reduce HIP fallback shim -- used only when no ROCm install is available.
//
// hip/amd_detail/amd_math_functions.h: device math (expf, sqrtf, tanhf, std::exp, max, ...).
//
// In a real ROCm build these functions come from the compiler, not from ROCm: clang's
// __clang_hip_math.h / __clang_hip_cmath.h (force-included through __clang_hip_runtime_wrapper.h)
// define them, many as calls into ROCm's device library (__ocml_* functions in ocml.bc). The oracle
// compiles with -nogpuinc -nogpulib: no wrapper, no device library. So this header includes the
// same clang headers, from the compiler's own resource directory, and first defines the __ocml_*
// functions they call, as inline code on clang builtins that the AMDGPU backend lowers itself
// (llvm.exp.f32, v_rsq_f32, v_ldexp_f64, ...). Nothing is left for a linker to resolve, so the
// full-LTO device link and the no-LTO build both see complete code.
//
// Accuracy: these fallbacks are for compiling, not for computing. Single precision uses the
// hardware-backed builtins where they exist and short formulas otherwise (a few ulp); double
// precision exp/log/sin/cos are polynomial evaluations good to a few ulp over the usual range;
// erf/erfc use a 1.5e-7 approximation in both precisions. Functions without a fallback here
// (Bessel functions, lgamma/tgamma, erfinv/erfcinv, ncdfinv, and the directed-rounding
// arithmetic of OCML_BASIC_ROUNDED_OPERATIONS) compile, but a call that survives optimisation is
// a compile error ("needs ROCm's device library") instead of a silent external call.
//
// <cmath> may be included before or after this header: std::exp(float), std::tanh(double), ...
// resolve to the device versions either way (clang's __clang_hip_cmath.h needs the FP_* class
// macros; when <math.h> has not defined them yet they are defined around that include only, with
// glibc's values, so a later <cmath> still sees its own).
#pragma once

#include "host_defines.h"

#if __has_include(<__clang_hip_libdevice_declares.h>) && __has_include(<__clang_hip_math.h>) && \
    __has_include(<__clang_hip_cmath.h>) && !defined(__CLANG_HIP_RUNTIME_WRAPPER_INCLUDED__)

// clang's headers use plain names (T, a, val, bits, ...) that a user's macro would break; in a
// real build they are read before the user's code, here they are shielded.
#pragma push_macro("T")
#undef T
#pragma push_macro("a")
#undef a
#pragma push_macro("b")
#undef b
#pragma push_macro("c")
#undef c
#pragma push_macro("s")
#undef s
#pragma push_macro("val")
#undef val
#pragma push_macro("bits")
#undef bits
#pragma push_macro("sign")
#undef sign
#pragma push_macro("exponent")
#undef exponent
#pragma push_macro("mantissa")
#undef mantissa
#pragma push_macro("quiet")
#undef quiet
#pragma push_macro("ieee_float")
#undef ieee_float
#pragma push_macro("ieee_double")
#undef ieee_double
#pragma push_macro("addr")
#undef addr
#pragma push_macro("beg")
#undef beg
#include <__clang_hip_libdevice_declares.h>

#define __HIP_SHIM_PRIVATE __attribute__((opencl_private))

namespace __hip_shim_m {
// Primitive operations, overloaded on float and double.
__device__ inline float __fabs(float __x) { return __builtin_fabsf(__x); }
__device__ inline double __fabs(double __x) { return __builtin_fabs(__x); }
__device__ inline float __sqrt(float __x) { return __builtin_sqrtf(__x); }
__device__ inline double __sqrt(double __x) { return __builtin_sqrt(__x); }
__device__ inline float __copysign(float __x, float __y) { return __builtin_copysignf(__x, __y); }
__device__ inline double __copysign(double __x, double __y) { return __builtin_copysign(__x, __y); }
__device__ inline float __rint(float __x) { return __builtin_rintf(__x); }
__device__ inline double __rint(double __x) { return __builtin_rint(__x); }
__device__ inline float __trunc(float __x) { return __builtin_truncf(__x); }
__device__ inline double __trunc(double __x) { return __builtin_trunc(__x); }
__device__ inline float __fma(float __x, float __y, float __z) { return __builtin_fmaf(__x, __y, __z); }
__device__ inline double __fma(double __x, double __y, double __z) { return __builtin_fma(__x, __y, __z); }
__device__ inline float __fmod(float __x, float __y) { return __builtin_fmodf(__x, __y); }
__device__ inline double __fmod(double __x, double __y) { return __builtin_fmod(__x, __y); }
__device__ inline float __ldexp(float __x, int __e) { return __builtin_ldexpf(__x, __e); }
__device__ inline double __ldexp(double __x, int __e) { return __builtin_ldexp(__x, __e); }
__device__ inline float __frexp(float __x, int* __e) { return __builtin_frexpf(__x, __e); }
__device__ inline double __frexp(double __x, int* __e) { return __builtin_frexp(__x, __e); }
template <class _T> __device__ inline _T __nan() { return (_T)__builtin_nan(""); }
template <class _T> __device__ inline _T __inf() { return (_T)__builtin_inf(); }

// exp / log / sin / cos: the backend lowers the float intrinsics; double ones are evaluated here.
__device__ inline float __exp(float __x) { return __builtin_expf(__x); }
__device__ inline double __exp(double __x) {
  if (__x != __x) return __x;
  if (__x > 709.782712893384) return __inf<double>();
  if (__x < -745.1332191019412) return 0.0;
  double __n = __builtin_rint(__x * 1.4426950408889634);  // x = n ln2 + r, |r| <= ln2 / 2
  double __r = __builtin_fma(-__n, 6.93147180369123816490e-01, __x);
  __r = __builtin_fma(-__n, 1.90821492927058770002e-10, __r);
  double __p = 1.0 / 6227020800.0;  // Taylor series to r^13
  __p = __builtin_fma(__p, __r, 1.0 / 479001600.0);
  __p = __builtin_fma(__p, __r, 1.0 / 39916800.0);
  __p = __builtin_fma(__p, __r, 1.0 / 3628800.0);
  __p = __builtin_fma(__p, __r, 1.0 / 362880.0);
  __p = __builtin_fma(__p, __r, 1.0 / 40320.0);
  __p = __builtin_fma(__p, __r, 1.0 / 5040.0);
  __p = __builtin_fma(__p, __r, 1.0 / 720.0);
  __p = __builtin_fma(__p, __r, 1.0 / 120.0);
  __p = __builtin_fma(__p, __r, 1.0 / 24.0);
  __p = __builtin_fma(__p, __r, 1.0 / 6.0);
  __p = __builtin_fma(__p, __r, 0.5);
  __p = __builtin_fma(__p, __r, 1.0);
  __p = __builtin_fma(__p, __r, 1.0);
  return __builtin_ldexp(__p, (int)__n);
}
__device__ inline float __log(float __x) { return __builtin_logf(__x); }
__device__ inline double __log(double __x) {
  if (__x != __x) return __x;
  if (__x < 0) return __nan<double>();
  if (__x == 0) return -__inf<double>();
  if (__x == __inf<double>()) return __x;
  int __e;
  double __m = __builtin_frexp(__x, &__e);  // [0.5, 1)
  if (__m < 0.70710678118654752) {
    __m *= 2;
    __e -= 1;
  }
  double __s = (__m - 1) / (__m + 1), __z = __s * __s;  // log m = 2 atanh s, |s| < 0.172
  double __p = 1.0 / 21;
  __p = __builtin_fma(__p, __z, 1.0 / 19);
  __p = __builtin_fma(__p, __z, 1.0 / 17);
  __p = __builtin_fma(__p, __z, 1.0 / 15);
  __p = __builtin_fma(__p, __z, 1.0 / 13);
  __p = __builtin_fma(__p, __z, 1.0 / 11);
  __p = __builtin_fma(__p, __z, 1.0 / 9);
  __p = __builtin_fma(__p, __z, 1.0 / 7);
  __p = __builtin_fma(__p, __z, 1.0 / 5);
  __p = __builtin_fma(__p, __z, 1.0 / 3);
  double __e_d = __e;
  return __builtin_fma(__e_d, 6.93147180369123816490e-01,
                       __builtin_fma(2 * __s * __z, __p, __builtin_fma(__e_d, 1.90821492927058770002e-10, 2 * __s)));
}
__device__ inline float __sin(float __x) { return __builtin_sinf(__x); }
__device__ inline float __cos(float __x) { return __builtin_cosf(__x); }
__device__ inline void __sincos64(double __x, double* __s, double* __c) {
  if (__builtin_isinf(__x) || __x != __x) {
    *__s = *__c = __nan<double>();
    return;
  }
  double __q = __builtin_rint(__x * 0.63661977236758134308);  // x = q pi/2 + r, |r| <= pi/4
  double __r = __builtin_fma(-__q, 1.57079632673412561417e+00, __x);
  __r = __builtin_fma(-__q, 6.07710050650619224932e-11, __r);
  __r = __builtin_fma(-__q, 2.02226624879595063154e-21, __r);
  double __z = __r * __r;
  double __ps = -1.0 / 1307674368000.0;  // sin to r^15, cos to r^16
  __ps = __builtin_fma(__ps, __z, 1.0 / 6227020800.0);
  __ps = __builtin_fma(__ps, __z, -1.0 / 39916800.0);
  __ps = __builtin_fma(__ps, __z, 1.0 / 362880.0);
  __ps = __builtin_fma(__ps, __z, -1.0 / 5040.0);
  __ps = __builtin_fma(__ps, __z, 1.0 / 120.0);
  __ps = __builtin_fma(__ps, __z, -1.0 / 6.0);
  double __sr = __builtin_fma(__r * __z, __ps, __r);
  double __pc = 1.0 / 20922789888000.0;
  __pc = __builtin_fma(__pc, __z, -1.0 / 87178291200.0);
  __pc = __builtin_fma(__pc, __z, 1.0 / 479001600.0);
  __pc = __builtin_fma(__pc, __z, -1.0 / 3628800.0);
  __pc = __builtin_fma(__pc, __z, 1.0 / 40320.0);
  __pc = __builtin_fma(__pc, __z, -1.0 / 720.0);
  __pc = __builtin_fma(__pc, __z, 1.0 / 24.0);
  __pc = __builtin_fma(__pc, __z, -0.5);
  double __cr = __builtin_fma(__z, __pc, 1.0);
  switch ((long long)__q & 3) {
    case 0: *__s = __sr; *__c = __cr; break;
    case 1: *__s = __cr; *__c = -__sr; break;
    case 2: *__s = -__sr; *__c = -__cr; break;
    default: *__s = -__cr; *__c = __sr; break;
  }
}
__device__ inline double __sin(double __x) {
  double __s, __c;
  __sincos64(__x, &__s, &__c);
  return __s;
}
__device__ inline double __cos(double __x) {
  double __s, __c;
  __sincos64(__x, &__s, &__c);
  return __c;
}
__device__ inline float __exp2(float __x) { return __builtin_exp2f(__x); }
__device__ inline double __exp2(double __x) {
  if (__builtin_isinf(__x)) return __x > 0 ? __x : 0.0;
  __x = __x > 1100 ? 1100 : (__x < -1100 ? -1100 : __x);
  double __n = __builtin_rint(__x);
  return __builtin_ldexp(__exp((__x - __n) * 0.69314718055994530942), (int)__n);
}
__device__ inline float __log2(float __x) { return __builtin_log2f(__x); }
__device__ inline double __log2(double __x) { return __log(__x) * 1.44269504088896340736; }

// Formulas shared by both precisions.
template <class _T> __device__ inline _T __expm1(_T __x) {  // Kahan's trick
  _T __u = __exp(__x);
  if (__u == 1) return __x;
  _T __um1 = __u - 1;
  if (__um1 == -1) return -1;
  if (__builtin_isinf(__u)) return __u;
  return __um1 * __x / __log(__u);
}
template <class _T> __device__ inline _T __log1p(_T __x) {
  _T __u = 1 + __x;
  if (__u == 1) return __x;
  if (__builtin_isinf(__u)) return __u;
  return __log(__u) * __x / (__u - 1);
}
template <class _T> __device__ inline _T __tanh(_T __x) {
  _T __em1 = __expm1(-2 * __fabs(__x));
  return __copysign(-__em1 / (2 + __em1), __x);
}
template <class _T> __device__ inline _T __sinh(_T __x) {
  _T __a = __fabs(__x), __r;
  if (__a < 1) {
    _T __em1 = __expm1(__a);
    __r = (__em1 + __em1 / (__em1 + 1)) / 2;
  } else {
    _T __e = __exp(__a);
    __r = (__e - 1 / __e) / 2;
  }
  return __copysign(__r, __x);
}
template <class _T> __device__ inline _T __cosh(_T __x) {
  _T __e = __exp(__fabs(__x));
  return (__e + 1 / __e) / 2;
}
template <class _T> __device__ inline _T __atan(_T __x) {
  const _T __pi_2 = (_T)1.57079632679489661923, __pi_6 = (_T)0.52359877559829887308;
  const _T __sqrt3 = (_T)1.73205080756887729353, __tan_pi_12 = (_T)0.26794919243112270647;
  _T __a = __fabs(__x), __base = 0;
  bool __inv = __a > 1;
  if (__inv) __a = 1 / __a;
  if (__a > __tan_pi_12) {  // atan a = pi/6 + atan((a sqrt3 - 1) / (a + sqrt3))
    __a = (__a * __sqrt3 - 1) / (__a + __sqrt3);
    __base = __pi_6;
  }
  _T __z = __a * __a, __p = 0;  // odd series to a^27 (double) / a^11 (float)
  for (int __k = sizeof(_T) == 8 ? 13 : 5; __k >= 0; --__k) __p = __p * __z + (_T)((__k & 1) ? -1 : 1) / (2 * __k + 1);
  _T __r = __base + __a * __p;
  if (__inv) __r = __pi_2 - __r;
  return __x != __x ? __x : __copysign(__r, __x);
}
template <class _T> __device__ inline _T __atan2(_T __y, _T __x) {
  const _T __pi = (_T)3.14159265358979323846;
  if (__x != __x || __y != __y) return __x + __y;
  _T __ax = __fabs(__x), __ay = __fabs(__y), __r;
  if (__ax == 0 && __ay == 0)
    __r = 0;
  else if (__builtin_isinf(__ax) && __builtin_isinf(__ay))
    __r = __pi / 4;
  else
    __r = __atan(__ay / __ax);
  if (__builtin_signbit(__x)) __r = __pi - __r;
  return __copysign(__r, __y);
}
template <class _T> __device__ inline _T __asin(_T __x) { return __atan2(__x, __sqrt((1 - __x) * (1 + __x))); }
template <class _T> __device__ inline _T __acos(_T __x) { return __atan2(__sqrt((1 - __x) * (1 + __x)), __x); }
template <class _T> __device__ inline _T __asinh(_T __x) {
  _T __a = __fabs(__x);
  _T __r = __a > (_T)1e15 ? __log(__a) + (_T)0.69314718055994530942
                          : __log1p(__a + __a * __a / (1 + __sqrt(1 + __a * __a)));
  return __copysign(__r, __x);
}
template <class _T> __device__ inline _T __acosh(_T __x) {
  if (__x > (_T)1e15) return __log(__x) + (_T)0.69314718055994530942;
  _T __t = __x - 1;
  return __log1p(__t + __sqrt(2 * __t + __t * __t));
}
template <class _T> __device__ inline _T __atanh(_T __x) {
  _T __a = __fabs(__x);
  return __copysign(__log1p(2 * __a / (1 - __a)) / 2, __x);
}
template <class _T> __device__ inline _T __cbrt(_T __x) {
  if (__x == 0 || __builtin_isinf(__x) || __x != __x) return __x;
  _T __a = __fabs(__x);
  _T __r = __exp2(__log2(__a) / 3);
  for (int __i = 0; __i < (sizeof(_T) == 8 ? 2 : 1); ++__i) __r = __r - (__r * __r * __r - __a) / (3 * __r * __r);
  return __copysign(__r, __x);
}
template <class _T> __device__ inline _T __hypot(_T __x, _T __y) {
  _T __a = __fabs(__x), __b = __fabs(__y);
  if (__builtin_isinf(__a) || __builtin_isinf(__b)) return __inf<_T>();
  _T __m = __a > __b ? __a : __b, __n = __a > __b ? __b : __a;
  if (__m == 0 || __n != __n) return __m + __n;
  _T __q = __n / __m;
  return __m * __sqrt(1 + __q * __q);
}
template <class _T> __device__ inline _T __len(_T __a, _T __b, _T __c, _T __d) {
  __a = __fabs(__a), __b = __fabs(__b), __c = __fabs(__c), __d = __fabs(__d);
  if (__builtin_isinf(__a) || __builtin_isinf(__b) || __builtin_isinf(__c) || __builtin_isinf(__d))
    return __inf<_T>();
  _T __m = __a > __b ? __a : __b;
  __m = __m > __c ? __m : __c;
  __m = __m > __d ? __m : __d;
  if (__m == 0 || __m != __m) return __a + __b + __c + __d;
  __a /= __m, __b /= __m, __c /= __m, __d /= __m;
  return __m * __sqrt(__a * __a + __b * __b + __c * __c + __d * __d);
}
template <class _T> __device__ inline _T __erfc_pos(_T __a) {  // Abramowitz & Stegun 7.1.26, a >= 0
  _T __t = 1 / (1 + (_T)0.3275911 * __a);
  _T __p = (_T)1.061405429;
  __p = __p * __t - (_T)1.453152027;
  __p = __p * __t + (_T)1.421413741;
  __p = __p * __t - (_T)0.284496736;
  __p = __p * __t + (_T)0.254829592;
  return __p * __t * __exp(-__a * __a);
}
template <class _T> __device__ inline _T __erf(_T __x) {
  return __x != __x ? __x : __copysign(1 - __erfc_pos(__fabs(__x)), __x);
}
template <class _T> __device__ inline _T __erfc(_T __x) {
  if (__x != __x) return __x;
  return __x >= 0 ? __erfc_pos(__x) : 2 - __erfc_pos(-__x);
}
template <class _T> __device__ inline _T __pow(_T __x, _T __y) {
  if (__y == 0 || __x == 1) return 1;
  if (__x != __x || __y != __y) return __x + __y;
  _T __a = __fabs(__x);
  if (__a == 1 && __builtin_isinf(__y)) return 1;
  bool __yint = __rint(__y) == __y;
  bool __yodd = __yint && __fmod(__y, (_T)2) != 0;
  if (__x < 0 && !__yint) return __nan<_T>();
  _T __r = __exp(__y * __log(__a));
  return (__builtin_signbit(__x) && __yodd) ? -__r : __r;
}
template <class _T> __device__ inline _T __sinpi(_T __x) {
  return __sin((_T)3.14159265358979323846 * (__x - 2 * __rint(__x / 2)));
}
template <class _T> __device__ inline _T __cospi(_T __x) {
  return __cos((_T)3.14159265358979323846 * (__x - 2 * __rint(__x / 2)));
}
template <class _T> __device__ inline _T __modf(_T __x, _T* __ip) {
  _T __i = __trunc(__x);
  *__ip = __i;
  return __copysign(__builtin_isinf(__x) ? (_T)0 : __x - __i, __x);
}
template <class _T> __device__ inline int __ilogb(_T __x) {
  if (__x != __x || __x == 0) return -2147483647 - 1;
  if (__builtin_isinf(__x)) return 2147483647;
  int __e;
  __frexp(__x, &__e);
  return __e - 1;
}
template <class _T, class _U> __device__ inline _T __nextafter(_T __x, _T __y) {
  if (__x != __x || __y != __y) return __x + __y;
  if (__x == __y) return __y;
  if (__x == 0) return __copysign(__builtin_bit_cast(_T, (_U)1), __y);
  _U __b = __builtin_bit_cast(_U, __x);
  __b += ((__y > __x) == (__x > 0)) ? 1 : (_U)-1;
  return __builtin_bit_cast(_T, __b);
}
template <class _T> __device__ inline _T __remquo(_T __x, _T __y, int* __q) {
  _T __n = __rint(__x / __y);
  *__q = (int)__fmod(__n, (_T)8);
  return __fma(-__n, __y, __x);
}
}  // namespace __hip_shim_m

// Called by the fallbacks of functions that need ROCm's device library; a call that is still there
// after optimisation stops the compile with this message.
__device__ void __hip_shim_no_device_library()
    __attribute__((error("this math function needs ROCm's device library (ocml), which the HIP shim "
                         "(gpu-reduce, no ROCm install) does not provide")));

#define __HIP_SHIM_OCML(__ret, __name, __params, __body) \
  extern "C" __device__ inline __ret __ocml_##__name __params { __body }
#define __HIP_SHIM_OCML_BOTH1(__name, __expr)                               \
  __HIP_SHIM_OCML(float, __name##_f32, (float __x), return __expr;)         \
  __HIP_SHIM_OCML(double, __name##_f64, (double __x), return __expr;)
#define __HIP_SHIM_OCML_BOTH2(__name, __expr)                               \
  __HIP_SHIM_OCML(float, __name##_f32, (float __x, float __y), return __expr;) \
  __HIP_SHIM_OCML(double, __name##_f64, (double __x, double __y), return __expr;)
#define __HIP_SHIM_OCML_MISSING1(__name)                                                            \
  __HIP_SHIM_OCML(float, __name##_f32, (float), __hip_shim_no_device_library(); return 0;)          \
  __HIP_SHIM_OCML(double, __name##_f64, (double), __hip_shim_no_device_library(); return 0;)
#define __HIP_SHIM_OCML_MISSING2(__name)                                                            \
  __HIP_SHIM_OCML(float, __name##_f32, (float, float), __hip_shim_no_device_library(); return 0;)   \
  __HIP_SHIM_OCML(double, __name##_f64, (double, double), __hip_shim_no_device_library(); return 0;)
#define __HIP_SHIM_OCML_MISSING3(__name)                                                                     \
  __HIP_SHIM_OCML(float, __name##_f32, (float, float, float), __hip_shim_no_device_library(); return 0;)     \
  __HIP_SHIM_OCML(double, __name##_f64, (double, double, double), __hip_shim_no_device_library(); return 0;)

// Double-only: the float versions are clang builtins in __clang_hip_math.h.
__HIP_SHIM_OCML(double, exp_f64, (double __x), return __hip_shim_m::__exp(__x);)
__HIP_SHIM_OCML(double, exp2_f64, (double __x), return __hip_shim_m::__exp2(__x);)
__HIP_SHIM_OCML(double, exp10_f64, (double __x), return __hip_shim_m::__exp(__x * 2.30258509299404568402);)
__HIP_SHIM_OCML(double, log_f64, (double __x), return __hip_shim_m::__log(__x);)
__HIP_SHIM_OCML(double, log2_f64, (double __x), return __hip_shim_m::__log2(__x);)
__HIP_SHIM_OCML(double, log10_f64, (double __x), return __hip_shim_m::__log(__x) * 0.43429448190325182765;)
// Single-only: the hardware approximations behind __sinf, __cosf, __fsqrt_rn & co.
__HIP_SHIM_OCML(float, native_sin_f32, (float __x), return __builtin_amdgcn_sinf(__x * 0.15915494309189533577f);)
__HIP_SHIM_OCML(float, native_cos_f32, (float __x), return __builtin_amdgcn_cosf(__x * 0.15915494309189533577f);)
__HIP_SHIM_OCML(float, native_sqrt_f32, (float __x), return __builtin_amdgcn_sqrtf(__x);)
__HIP_SHIM_OCML(float, rsqrt_f32, (float __x), return __builtin_amdgcn_rsqf(__x);)
__HIP_SHIM_OCML(double, rsqrt_f64, (double __x), return 1.0 / __builtin_sqrt(__x);)
__HIP_SHIM_OCML(float, pow_f32, (float __x, float __y), return __builtin_powf(__x, __y);)
__HIP_SHIM_OCML(double, pow_f64, (double __x, double __y), return __hip_shim_m::__pow(__x, __y);)
__HIP_SHIM_OCML(float, pown_f32, (float __x, int __n), return __builtin_powf(__x, (float)__n);)
__HIP_SHIM_OCML(double, pown_f64, (double __x, int __n), return __hip_shim_m::__pow(__x, (double)__n);)
__HIP_SHIM_OCML(int, ilogb_f32, (float __x), return __hip_shim_m::__ilogb(__x);)
__HIP_SHIM_OCML(int, ilogb_f64, (double __x), return __hip_shim_m::__ilogb(__x);)
__HIP_SHIM_OCML(float, nextafter_f32, (float __x, float __y),
                return (__hip_shim_m::__nextafter<float, unsigned int>)(__x, __y);)
__HIP_SHIM_OCML(double, nextafter_f64, (double __x, double __y),
                return (__hip_shim_m::__nextafter<double, unsigned long long>)(__x, __y);)
__HIP_SHIM_OCML(float, modf_f32, (float __x, __HIP_SHIM_PRIVATE float* __ip),
                float __i; float __r = __hip_shim_m::__modf(__x, &__i); *__ip = __i; return __r;)
__HIP_SHIM_OCML(double, modf_f64, (double __x, __HIP_SHIM_PRIVATE double* __ip),
                double __i; double __r = __hip_shim_m::__modf(__x, &__i); *__ip = __i; return __r;)
__HIP_SHIM_OCML(float, remquo_f32, (float __x, float __y, __HIP_SHIM_PRIVATE int* __q),
                int __i; float __r = __hip_shim_m::__remquo(__x, __y, &__i); *__q = __i; return __r;)
__HIP_SHIM_OCML(double, remquo_f64, (double __x, double __y, __HIP_SHIM_PRIVATE int* __q),
                int __i; double __r = __hip_shim_m::__remquo(__x, __y, &__i); *__q = __i; return __r;)
__HIP_SHIM_OCML(float, sincos_f32, (float __x, __HIP_SHIM_PRIVATE float* __c),
                *__c = __builtin_cosf(__x); return __builtin_sinf(__x);)
__HIP_SHIM_OCML(double, sincos_f64, (double __x, __HIP_SHIM_PRIVATE double* __c),
                double __s; double __cc; __hip_shim_m::__sincos64(__x, &__s, &__cc); *__c = __cc; return __s;)
__HIP_SHIM_OCML(float, sincospi_f32, (float __x, __HIP_SHIM_PRIVATE float* __c),
                *__c = __hip_shim_m::__cospi(__x); return __hip_shim_m::__sinpi(__x);)
__HIP_SHIM_OCML(double, sincospi_f64, (double __x, __HIP_SHIM_PRIVATE double* __c),
                *__c = __hip_shim_m::__cospi(__x); return __hip_shim_m::__sinpi(__x);)
__HIP_SHIM_OCML(float, len3_f32, (float __x, float __y, float __z), return __hip_shim_m::__len(__x, __y, __z, 0.0f);)
__HIP_SHIM_OCML(double, len3_f64, (double __x, double __y, double __z), return __hip_shim_m::__len(__x, __y, __z, 0.0);)
__HIP_SHIM_OCML(float, len4_f32, (float __x, float __y, float __z, float __w),
                return __hip_shim_m::__len(__x, __y, __z, __w);)
__HIP_SHIM_OCML(double, len4_f64, (double __x, double __y, double __z, double __w),
                return __hip_shim_m::__len(__x, __y, __z, __w);)
__HIP_SHIM_OCML(float, rlen3_f32, (float __x, float __y, float __z), return 1 / __hip_shim_m::__len(__x, __y, __z, 0.0f);)
__HIP_SHIM_OCML(double, rlen3_f64, (double __x, double __y, double __z),
                return 1 / __hip_shim_m::__len(__x, __y, __z, 0.0);)
__HIP_SHIM_OCML(float, rlen4_f32, (float __x, float __y, float __z, float __w),
                return 1 / __hip_shim_m::__len(__x, __y, __z, __w);)
__HIP_SHIM_OCML(double, rlen4_f64, (double __x, double __y, double __z, double __w),
                return 1 / __hip_shim_m::__len(__x, __y, __z, __w);)
// Both precisions, same formula.
__HIP_SHIM_OCML_BOTH1(sin, __hip_shim_m::__sin(__x))
__HIP_SHIM_OCML_BOTH1(cos, __hip_shim_m::__cos(__x))
__HIP_SHIM_OCML_BOTH1(tan, __hip_shim_m::__sin(__x) / __hip_shim_m::__cos(__x))
__HIP_SHIM_OCML_BOTH1(sinpi, __hip_shim_m::__sinpi(__x))
__HIP_SHIM_OCML_BOTH1(cospi, __hip_shim_m::__cospi(__x))
__HIP_SHIM_OCML_BOTH1(asin, __hip_shim_m::__asin(__x))
__HIP_SHIM_OCML_BOTH1(acos, __hip_shim_m::__acos(__x))
__HIP_SHIM_OCML_BOTH1(atan, __hip_shim_m::__atan(__x))
__HIP_SHIM_OCML_BOTH1(sinh, __hip_shim_m::__sinh(__x))
__HIP_SHIM_OCML_BOTH1(cosh, __hip_shim_m::__cosh(__x))
__HIP_SHIM_OCML_BOTH1(tanh, __hip_shim_m::__tanh(__x))
__HIP_SHIM_OCML_BOTH1(asinh, __hip_shim_m::__asinh(__x))
__HIP_SHIM_OCML_BOTH1(acosh, __hip_shim_m::__acosh(__x))
__HIP_SHIM_OCML_BOTH1(atanh, __hip_shim_m::__atanh(__x))
__HIP_SHIM_OCML_BOTH1(expm1, __hip_shim_m::__expm1(__x))
__HIP_SHIM_OCML_BOTH1(log1p, __hip_shim_m::__log1p(__x))
__HIP_SHIM_OCML_BOTH1(cbrt, __hip_shim_m::__cbrt(__x))
__HIP_SHIM_OCML_BOTH1(rcbrt, 1 / __hip_shim_m::__cbrt(__x))
__HIP_SHIM_OCML_BOTH1(erf, __hip_shim_m::__erf(__x))
__HIP_SHIM_OCML_BOTH1(erfc, __hip_shim_m::__erfc(__x))
__HIP_SHIM_OCML_BOTH1(erfcx, __hip_shim_m::__exp(__x * __x) * __hip_shim_m::__erfc(__x))
__HIP_SHIM_OCML_BOTH1(ncdf, __hip_shim_m::__erfc(-__x * (decltype(__x))0.70710678118654752440) / 2)
__HIP_SHIM_OCML_BOTH2(atan2, __hip_shim_m::__atan2(__x, __y))
__HIP_SHIM_OCML_BOTH2(hypot, __hip_shim_m::__hypot(__x, __y))
__HIP_SHIM_OCML_BOTH2(rhypot, 1 / __hip_shim_m::__hypot(__x, __y))
__HIP_SHIM_OCML_BOTH2(fmod, __hip_shim_m::__fmod(__x, __y))
__HIP_SHIM_OCML_BOTH2(fdim, (__x != __x || __y != __y) ? __x + __y : (__x > __y ? __x - __y : 0))
__HIP_SHIM_OCML_BOTH2(remainder, __hip_shim_m::__fma(-__hip_shim_m::__rint(__x / __y), __y, __x))
// Round-to-nearest-even arithmetic is the ordinary arithmetic.
__HIP_SHIM_OCML_BOTH2(add_rte, __x + __y)
__HIP_SHIM_OCML_BOTH2(sub_rte, __x - __y)
__HIP_SHIM_OCML_BOTH2(mul_rte, __x * __y)
__HIP_SHIM_OCML_BOTH2(div_rte, __x / __y)
__HIP_SHIM_OCML_BOTH1(sqrt_rte, __hip_shim_m::__sqrt(__x))
__HIP_SHIM_OCML(float, fma_rte_f32, (float __x, float __y, float __z), return __builtin_fmaf(__x, __y, __z);)
__HIP_SHIM_OCML(double, fma_rte_f64, (double __x, double __y, double __z), return __builtin_fma(__x, __y, __z);)
// No fallback: these need the device library.
__HIP_SHIM_OCML_MISSING1(erfinv)
__HIP_SHIM_OCML_MISSING1(erfcinv)
__HIP_SHIM_OCML_MISSING1(ncdfinv)
__HIP_SHIM_OCML_MISSING1(lgamma)
__HIP_SHIM_OCML_MISSING1(tgamma)
__HIP_SHIM_OCML_MISSING1(i0)
__HIP_SHIM_OCML_MISSING1(i1)
__HIP_SHIM_OCML_MISSING1(j0)
__HIP_SHIM_OCML_MISSING1(j1)
__HIP_SHIM_OCML_MISSING1(y0)
__HIP_SHIM_OCML_MISSING1(y1)
#define __HIP_SHIM_OCML_DIRECTED(__mode)       \
  __HIP_SHIM_OCML_MISSING2(add_##__mode)       \
  __HIP_SHIM_OCML_MISSING2(sub_##__mode)       \
  __HIP_SHIM_OCML_MISSING2(mul_##__mode)       \
  __HIP_SHIM_OCML_MISSING2(div_##__mode)       \
  __HIP_SHIM_OCML_MISSING1(sqrt_##__mode)      \
  __HIP_SHIM_OCML_MISSING3(fma_##__mode)
__HIP_SHIM_OCML_DIRECTED(rtn)
__HIP_SHIM_OCML_DIRECTED(rtp)
__HIP_SHIM_OCML_DIRECTED(rtz)
#undef __HIP_SHIM_OCML_DIRECTED
#undef __HIP_SHIM_OCML_MISSING3
#undef __HIP_SHIM_OCML_MISSING2
#undef __HIP_SHIM_OCML_MISSING1
#undef __HIP_SHIM_OCML_BOTH2
#undef __HIP_SHIM_OCML_BOTH1
#undef __HIP_SHIM_OCML
#undef __HIP_SHIM_PRIVATE

#include <__clang_hip_math.h>
#include <__clang_hip_stdlib.h>
#include <__clang_cuda_math_forward_declares.h>
#ifndef FP_NAN
#define __HIP_SHIM_FP_CLASSES
#define FP_NAN 0
#define FP_INFINITE 1
#define FP_ZERO 2
#define FP_SUBNORMAL 3
#define FP_NORMAL 4
#endif
#include <__clang_hip_cmath.h>
#ifdef __HIP_SHIM_FP_CLASSES
#undef __HIP_SHIM_FP_CLASSES
#undef FP_NAN
#undef FP_INFINITE
#undef FP_ZERO
#undef FP_SUBNORMAL
#undef FP_NORMAL
#endif
#pragma pop_macro("T")
#pragma pop_macro("a")
#pragma pop_macro("b")
#pragma pop_macro("c")
#pragma pop_macro("s")
#pragma pop_macro("val")
#pragma pop_macro("bits")
#pragma pop_macro("sign")
#pragma pop_macro("exponent")
#pragma pop_macro("mantissa")
#pragma pop_macro("quiet")
#pragma pop_macro("ieee_float")
#pragma pop_macro("ieee_double")
#pragma pop_macro("addr")
#pragma pop_macro("beg")

#endif
