// gpu-reduce HIP fallback shim -- used only when no ROCm install is available.
//
// hip/amd_detail/amd_hip_fp16.h: IEEE half precision as ROCm defines it. __half holds a clang
// _Float16 (`data`, protected) and __half2 a _Float16 ext_vector_type(2) (`data`) or the members
// x, y; __half_raw / __half2_raw expose the bits; `half` and `half2` are the same types (unless
// HIP_NO_HALF). __HIP_NO_HALF_CONVERSIONS__ and __HIP_NO_HALF_OPERATORS__ remove the implicit
// conversions and the operators, as in ROCm.
//
// Functions: the conversions (__float2half and its _rn/_rz/_rd/_ru forms, __half2float,
// __float22half2_rn, __half22float2, __low2half, __high2half, __halves2half2, the integer
// conversions with their rounding suffixes, the bit casts), arithmetic (__hadd, __hsub, __hmul,
// __hdiv, __hfma, __hneg, __habs, the _sat forms and the 2-wide __hadd2 ... __h2div), comparisons
// (__heq ... __hgtu, __hisnan, __hisinf, the 2-wide forms, the __hb*2 forms returning bool),
// __hmax/__hmin, the h* / h2* math functions, and __shfl* for __half and __half2. Conversions are
// __host__ __device__; arithmetic, comparisons and math are device functions, as in ROCm.
//
// Simplified: conversions are clang's (_Float16 casts: round to nearest even, with overflow to
// infinity); the directed-rounding forms correct the nearest result by one step. Math works on
// _Float16 with clang's elementwise builtins (the instructions ocml's f16 functions use) or in
// float. No atomicAdd on __half2, no __ldg overloads, no amd_mixed_dot.
#pragma once
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_HIP_FP16_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_HIP_FP16_H

#include "host_defines.h"
#include "amd_hip_vector_types.h"
#include "amd_warp_functions.h"

#ifndef __HOST_DEVICE__
#define __HOST_DEVICE__ __host__ __device__
#endif

typedef _Float16 _Float16_2 __attribute__((ext_vector_type(2)));

struct __half_raw {
  union {
    _Float16 data;
    unsigned short x;
  };
};
struct __half2_raw {
  union {
    struct {
      __half_raw x, y;
    };
    _Float16_2 data;
  };
};

struct __half {
 protected:
  union {
    _Float16 data;
    unsigned short __x;
  };

 public:
  __half() = default;
  __HOST_DEVICE__ constexpr __half(const __half_raw& __r) : data{__r.data} {}
#if !defined(__HIP_NO_HALF_CONVERSIONS__)
  __HOST_DEVICE__ constexpr __half(_Float16 __v) : data{__v} {}
  template <typename _Tp, typename __hip_shim_enable = decltype(static_cast<_Float16>(_Tp{})),
            bool = __is_arithmetic(_Tp)>
  __HOST_DEVICE__ constexpr __half(_Tp __v) : data{static_cast<_Float16>(__v)} {}
#endif
  __HOST_DEVICE__ __half& operator=(const __half_raw& __r) {
    data = __r.data;
    return *this;
  }
  __HOST_DEVICE__ volatile __half& operator=(const __half_raw& __r) volatile {
    data = __r.data;
    return *this;
  }
#if !defined(__HIP_NO_HALF_CONVERSIONS__)
  template <typename _Tp, bool __ok = __is_arithmetic(_Tp), typename = char[__ok ? 1 : -1]>
  __HOST_DEVICE__ __half& operator=(_Tp __v) {
    data = static_cast<_Float16>(__v);
    return *this;
  }
  template <typename _Tp, bool __ok = __is_arithmetic(_Tp), typename = char[__ok ? 1 : -1]>
  __HOST_DEVICE__ constexpr operator _Tp() const {
    return static_cast<_Tp>(data);
  }
#endif
  __HOST_DEVICE__ constexpr operator __half_raw() const { return __half_raw{{data}}; }
  __HOST_DEVICE__ operator __half_raw() const volatile { return __half_raw{{data}}; }

#if !defined(__HIP_NO_HALF_OPERATORS__)
  __device__ __half& operator+=(const __half& __o) { data += __o.data; return *this; }
  __device__ __half& operator-=(const __half& __o) { data -= __o.data; return *this; }
  __device__ __half& operator*=(const __half& __o) { data *= __o.data; return *this; }
  __device__ __half& operator/=(const __half& __o) { data /= __o.data; return *this; }
  __device__ __half& operator++() { ++data; return *this; }
  __device__ __half operator++(int) { __half __t = *this; ++data; return __t; }
  __device__ __half& operator--() { --data; return *this; }
  __device__ __half operator--(int) { __half __t = *this; --data; return __t; }
  __device__ __half operator+() const { return *this; }
  __device__ __half operator-() const { return __half_raw{{static_cast<_Float16>(-data)}}; }
  friend __device__ inline __half operator+(__half __a, const __half& __b) { return __a += __b; }
  friend __device__ inline __half operator-(__half __a, const __half& __b) { return __a -= __b; }
  friend __device__ inline __half operator*(__half __a, const __half& __b) { return __a *= __b; }
  friend __device__ inline __half operator/(__half __a, const __half& __b) { return __a /= __b; }
  friend __device__ inline bool operator==(const __half& __a, const __half& __b) { return __a.data == __b.data; }
  friend __device__ inline bool operator!=(const __half& __a, const __half& __b) { return __a.data != __b.data; }
  friend __device__ inline bool operator<(const __half& __a, const __half& __b) { return __a.data < __b.data; }
  friend __device__ inline bool operator>(const __half& __a, const __half& __b) { return __a.data > __b.data; }
  friend __device__ inline bool operator<=(const __half& __a, const __half& __b) { return __a.data <= __b.data; }
  friend __device__ inline bool operator>=(const __half& __a, const __half& __b) { return __a.data >= __b.data; }
#endif
};

struct __half2 {
  union {
    struct {
      __half x, y;
    };
    _Float16_2 data;
  };
  __half2() = default;
  __HOST_DEVICE__ __half2(const __half2_raw& __r) : data{__r.data} {}
  __HOST_DEVICE__ __half2(_Float16_2 __v) : data{__v} {}
  __HOST_DEVICE__ constexpr __half2(const __half& __a, const __half& __b)
      : data{static_cast<__half_raw>(__a).data, static_cast<__half_raw>(__b).data} {}
  __HOST_DEVICE__ __half2& operator=(const __half2_raw& __r) {
    data = __r.data;
    return *this;
  }
  __HOST_DEVICE__ constexpr operator __half2_raw() const {
    __half2_raw __r{};
    __r.data = data;
    return __r;
  }
#if !defined(__HIP_NO_HALF_OPERATORS__)
  __device__ __half2& operator+=(const __half2& __o) { data += __o.data; return *this; }
  __device__ __half2& operator-=(const __half2& __o) { data -= __o.data; return *this; }
  __device__ __half2& operator*=(const __half2& __o) { data *= __o.data; return *this; }
  __device__ __half2& operator/=(const __half2& __o) { data /= __o.data; return *this; }
  __device__ __half2& operator++() { data += _Float16_2{1, 1}; return *this; }
  __device__ __half2 operator++(int) { __half2 __t = *this; ++*this; return __t; }
  __device__ __half2& operator--() { data -= _Float16_2{1, 1}; return *this; }
  __device__ __half2 operator--(int) { __half2 __t = *this; --*this; return __t; }
  __device__ __half2 operator+() const { return *this; }
  __device__ __half2 operator-() const { return __half2{-data}; }
  friend __device__ inline __half2 operator+(__half2 __a, const __half2& __b) { return __a += __b; }
  friend __device__ inline __half2 operator-(__half2 __a, const __half2& __b) { return __a -= __b; }
  friend __device__ inline __half2 operator*(__half2 __a, const __half2& __b) { return __a *= __b; }
  friend __device__ inline __half2 operator/(__half2 __a, const __half2& __b) { return __a /= __b; }
  friend __device__ inline bool operator==(const __half2& __a, const __half2& __b) {
    return __a.data.x == __b.data.x && __a.data.y == __b.data.y;
  }
  friend __device__ inline bool operator!=(const __half2& __a, const __half2& __b) { return !(__a == __b); }
#endif
};

#if !defined(HIP_NO_HALF)
using half = __half;
using half2 = __half2;
#endif

// ---- Conversions (host and device) ----
__HOST_DEVICE__ inline _Float16 __hip_shim_hdata(__half __h) { return static_cast<__half_raw>(__h).data; }
__HOST_DEVICE__ inline __half __hip_shim_mkhalf(_Float16 __v) { return __half_raw{{__v}}; }
__HOST_DEVICE__ inline __half2 __hip_shim_mkhalf2(_Float16 __a, _Float16 __b) { return __half2{_Float16_2{__a, __b}}; }

// Round to nearest even, then one step toward zero (1), -inf (2) or +inf (3) where needed.
__HOST_DEVICE__ inline __half __hip_shim_float2half(float __f, int __mode) {
  _Float16 __h = static_cast<_Float16>(__f);
  float __back = static_cast<float>(__h);
  unsigned short __b = __builtin_bit_cast(unsigned short, __h);
  bool __neg = __b & 0x8000;
  if (__f == __f && __back != __f) {
    if (__mode == 1 && __builtin_fabsf(__back) > __builtin_fabsf(__f)) __b -= 1;
    else if (__mode == 2 && __back > __f) __b += __neg ? 1 : -1;
    else if (__mode == 3 && __back < __f) __b += __neg ? -1 : 1;
  }
  return __hip_shim_mkhalf(__builtin_bit_cast(_Float16, __b));
}
__HOST_DEVICE__ inline __half __float2half(float __f) { return __hip_shim_mkhalf(static_cast<_Float16>(__f)); }
__HOST_DEVICE__ inline __half __float2half_rn(float __f) { return __hip_shim_mkhalf(static_cast<_Float16>(__f)); }
__HOST_DEVICE__ inline __half __float2half_rz(float __f) { return __hip_shim_float2half(__f, 1); }
__HOST_DEVICE__ inline __half __float2half_rd(float __f) { return __hip_shim_float2half(__f, 2); }
__HOST_DEVICE__ inline __half __float2half_ru(float __f) { return __hip_shim_float2half(__f, 3); }
__HOST_DEVICE__ inline __half __double2half(double __d) { return __hip_shim_mkhalf(static_cast<_Float16>(__d)); }
__HOST_DEVICE__ inline float __half2float(__half __h) { return static_cast<float>(__hip_shim_hdata(__h)); }
__HOST_DEVICE__ inline __half2 __float2half2_rn(float __f) {
  _Float16 __h = static_cast<_Float16>(__f);
  return __hip_shim_mkhalf2(__h, __h);
}
__HOST_DEVICE__ inline __half2 __floats2half2_rn(float __a, float __b) {
  return __hip_shim_mkhalf2(static_cast<_Float16>(__a), static_cast<_Float16>(__b));
}
__HOST_DEVICE__ inline __half2 __float22half2_rn(float2 __f) { return __floats2half2_rn(__f.x, __f.y); }
__HOST_DEVICE__ inline float2 __half22float2(__half2 __h) {
  return float2{static_cast<float>(__h.data.x), static_cast<float>(__h.data.y)};
}
__HOST_DEVICE__ inline float __low2float(__half2 __h) { return static_cast<float>(__h.data.x); }
__HOST_DEVICE__ inline float __high2float(__half2 __h) { return static_cast<float>(__h.data.y); }
__HOST_DEVICE__ inline __half __low2half(__half2 __h) { return __hip_shim_mkhalf(__h.data.x); }
__HOST_DEVICE__ inline __half __high2half(__half2 __h) { return __hip_shim_mkhalf(__h.data.y); }
__HOST_DEVICE__ inline __half2 __halves2half2(__half __a, __half __b) { return __half2{__a, __b}; }
__HOST_DEVICE__ inline __half2 __half2half2(__half __a) { return __half2{__a, __a}; }
__HOST_DEVICE__ inline __half2 make_half2(__half __a, __half __b) { return __half2{__a, __b}; }
__HOST_DEVICE__ inline __half2 __low2half2(__half2 __h) { return __hip_shim_mkhalf2(__h.data.x, __h.data.x); }
__HOST_DEVICE__ inline __half2 __high2half2(__half2 __h) { return __hip_shim_mkhalf2(__h.data.y, __h.data.y); }
__HOST_DEVICE__ inline __half2 __lows2half2(__half2 __a, __half2 __b) { return __hip_shim_mkhalf2(__a.data.x, __b.data.x); }
__HOST_DEVICE__ inline __half2 __highs2half2(__half2 __a, __half2 __b) { return __hip_shim_mkhalf2(__a.data.y, __b.data.y); }
__HOST_DEVICE__ inline __half2 __lowhigh2highlow(__half2 __h) { return __hip_shim_mkhalf2(__h.data.y, __h.data.x); }
__HOST_DEVICE__ inline short __half_as_short(__half __h) { return __builtin_bit_cast(short, __hip_shim_hdata(__h)); }
__HOST_DEVICE__ inline unsigned short __half_as_ushort(__half __h) {
  return __builtin_bit_cast(unsigned short, __hip_shim_hdata(__h));
}
__HOST_DEVICE__ inline __half __short_as_half(short __s) { return __hip_shim_mkhalf(__builtin_bit_cast(_Float16, __s)); }
__HOST_DEVICE__ inline __half __ushort_as_half(unsigned short __s) {
  return __hip_shim_mkhalf(__builtin_bit_cast(_Float16, __s));
}
// half -> integer with a rounding mode (rn, rz, rd, ru), and integer -> half.
#define __HIP_SHIM_H2I(__name, __T)                                                                         \
  __HOST_DEVICE__ inline __T __half2##__name##_rn(__half __h) { return (__T)__builtin_rintf(__half2float(__h)); } \
  __HOST_DEVICE__ inline __T __half2##__name##_rz(__half __h) { return (__T)__half2float(__h); }            \
  __HOST_DEVICE__ inline __T __half2##__name##_rd(__half __h) { return (__T)__builtin_floorf(__half2float(__h)); } \
  __HOST_DEVICE__ inline __T __half2##__name##_ru(__half __h) { return (__T)__builtin_ceilf(__half2float(__h)); } \
  __HOST_DEVICE__ inline __half __##__name##2half_rn(__T __i) { return __hip_shim_mkhalf(static_cast<_Float16>(__i)); } \
  __HOST_DEVICE__ inline __half __##__name##2half_rz(__T __i) { return __hip_shim_float2half((float)__i, 1); } \
  __HOST_DEVICE__ inline __half __##__name##2half_rd(__T __i) { return __hip_shim_float2half((float)__i, 2); } \
  __HOST_DEVICE__ inline __half __##__name##2half_ru(__T __i) { return __hip_shim_float2half((float)__i, 3); }
__HIP_SHIM_H2I(int, int)
__HIP_SHIM_H2I(uint, unsigned int)
__HIP_SHIM_H2I(short, short)
__HIP_SHIM_H2I(ushort, unsigned short)
__HIP_SHIM_H2I(ll, long long)
__HIP_SHIM_H2I(ull, unsigned long long)
#undef __HIP_SHIM_H2I

// ---- Arithmetic and comparisons (device) ----
__device__ inline _Float16 __hip_shim_sat(_Float16 __v) {
  return __v != __v ? (_Float16)0 : (__v < (_Float16)0 ? (_Float16)0 : (__v > (_Float16)1 ? (_Float16)1 : __v));
}
__device__ inline _Float16_2 __hip_shim_sat2(_Float16_2 __v) {
  return _Float16_2{__hip_shim_sat(__v.x), __hip_shim_sat(__v.y)};
}
#define __HIP_SHIM_H(__e) __hip_shim_mkhalf(__e)
#define __HIP_SHIM_D(__h) __hip_shim_hdata(__h)
__device__ inline __half __hadd(__half __a, __half __b) { return __HIP_SHIM_H(__HIP_SHIM_D(__a) + __HIP_SHIM_D(__b)); }
__device__ inline __half __hsub(__half __a, __half __b) { return __HIP_SHIM_H(__HIP_SHIM_D(__a) - __HIP_SHIM_D(__b)); }
__device__ inline __half __hmul(__half __a, __half __b) { return __HIP_SHIM_H(__HIP_SHIM_D(__a) * __HIP_SHIM_D(__b)); }
__device__ inline __half __hdiv(__half __a, __half __b) { return __HIP_SHIM_H(__HIP_SHIM_D(__a) / __HIP_SHIM_D(__b)); }
__device__ inline __half __hfma(__half __a, __half __b, __half __c) {
  return __HIP_SHIM_H(__builtin_elementwise_fma(__HIP_SHIM_D(__a), __HIP_SHIM_D(__b), __HIP_SHIM_D(__c)));
}
__device__ inline __half __hadd_sat(__half __a, __half __b) { return __HIP_SHIM_H(__hip_shim_sat(__HIP_SHIM_D(__hadd(__a, __b)))); }
__device__ inline __half __hsub_sat(__half __a, __half __b) { return __HIP_SHIM_H(__hip_shim_sat(__HIP_SHIM_D(__hsub(__a, __b)))); }
__device__ inline __half __hmul_sat(__half __a, __half __b) { return __HIP_SHIM_H(__hip_shim_sat(__HIP_SHIM_D(__hmul(__a, __b)))); }
__device__ inline __half __hfma_sat(__half __a, __half __b, __half __c) {
  return __HIP_SHIM_H(__hip_shim_sat(__HIP_SHIM_D(__hfma(__a, __b, __c))));
}
__device__ inline __half __hneg(__half __a) { return __HIP_SHIM_H(-__HIP_SHIM_D(__a)); }
__device__ inline __half __habs(__half __a) { return __HIP_SHIM_H(__builtin_elementwise_abs(__HIP_SHIM_D(__a))); }
__device__ inline __half2 __hadd2(__half2 __a, __half2 __b) { return __half2{__a.data + __b.data}; }
__device__ inline __half2 __hsub2(__half2 __a, __half2 __b) { return __half2{__a.data - __b.data}; }
__device__ inline __half2 __hmul2(__half2 __a, __half2 __b) { return __half2{__a.data * __b.data}; }
__device__ inline __half2 __h2div(__half2 __a, __half2 __b) { return __half2{__a.data / __b.data}; }
__device__ inline __half2 __hfma2(__half2 __a, __half2 __b, __half2 __c) {
  return __half2{__builtin_elementwise_fma(__a.data, __b.data, __c.data)};
}
__device__ inline __half2 __hadd2_sat(__half2 __a, __half2 __b) { return __half2{__hip_shim_sat2(__a.data + __b.data)}; }
__device__ inline __half2 __hsub2_sat(__half2 __a, __half2 __b) { return __half2{__hip_shim_sat2(__a.data - __b.data)}; }
__device__ inline __half2 __hmul2_sat(__half2 __a, __half2 __b) { return __half2{__hip_shim_sat2(__a.data * __b.data)}; }
__device__ inline __half2 __hfma2_sat(__half2 __a, __half2 __b, __half2 __c) {
  return __half2{__hip_shim_sat2(__builtin_elementwise_fma(__a.data, __b.data, __c.data))};
}
__device__ inline __half2 __hneg2(__half2 __a) { return __half2{-__a.data}; }
__device__ inline __half2 __habs2(__half2 __a) { return __half2{__builtin_elementwise_abs(__a.data)}; }

// Ordered comparisons are false with a NaN operand, the unordered (...u) ones true.
#define __HIP_SHIM_HCMP(__name, __op)                                                                  \
  __device__ inline bool __h##__name(__half __a, __half __b) { return __HIP_SHIM_D(__a) __op __HIP_SHIM_D(__b); } \
  __device__ inline bool __h##__name##u(__half __a, __half __b) {                                    \
    return !(__HIP_SHIM_D(__a) == __HIP_SHIM_D(__a) && __HIP_SHIM_D(__b) == __HIP_SHIM_D(__b)) ||    \
           __HIP_SHIM_D(__a) __op __HIP_SHIM_D(__b);                                                 \
  }                                                                                                  \
  __device__ inline __half2 __h##__name##2(__half2 __a, __half2 __b) {                               \
    return __hip_shim_mkhalf2(__h##__name(__low2half(__a), __low2half(__b)),                         \
                              __h##__name(__high2half(__a), __high2half(__b)));                      \
  }                                                                                                  \
  __device__ inline __half2 __h##__name##u2(__half2 __a, __half2 __b) {                              \
    return __hip_shim_mkhalf2(__h##__name##u(__low2half(__a), __low2half(__b)),                      \
                              __h##__name##u(__high2half(__a), __high2half(__b)));                   \
  }                                                                                                  \
  __device__ inline bool __hb##__name##2(__half2 __a, __half2 __b) {                                 \
    return __h##__name(__low2half(__a), __low2half(__b)) && __h##__name(__high2half(__a), __high2half(__b)); \
  }                                                                                                  \
  __device__ inline bool __hb##__name##u2(__half2 __a, __half2 __b) {                                \
    return __h##__name##u(__low2half(__a), __low2half(__b)) &&                                      \
           __h##__name##u(__high2half(__a), __high2half(__b));                                       \
  }
__HIP_SHIM_HCMP(eq, ==)
__HIP_SHIM_HCMP(ne, !=)
__HIP_SHIM_HCMP(le, <=)
__HIP_SHIM_HCMP(ge, >=)
__HIP_SHIM_HCMP(lt, <)
__HIP_SHIM_HCMP(gt, >)
#undef __HIP_SHIM_HCMP
__device__ inline bool __hisnan(__half __a) { return __HIP_SHIM_D(__a) != __HIP_SHIM_D(__a); }
__device__ inline int __hisinf(__half __a) {
  return __builtin_isinf(__half2float(__a)) ? (__HIP_SHIM_D(__a) < 0 ? -1 : 1) : 0;
}
__device__ inline __half2 __hisnan2(__half2 __a) {
  return __hip_shim_mkhalf2(__hisnan(__low2half(__a)), __hisnan(__high2half(__a)));
}
__device__ inline __half __hmax(__half __a, __half __b) {
  return __HIP_SHIM_H(__builtin_elementwise_maxnum(__HIP_SHIM_D(__a), __HIP_SHIM_D(__b)));
}
__device__ inline __half __hmin(__half __a, __half __b) {
  return __HIP_SHIM_H(__builtin_elementwise_minnum(__HIP_SHIM_D(__a), __HIP_SHIM_D(__b)));
}
__device__ inline __half __hmax_nan(__half __a, __half __b) {
  return __hisnan(__a) ? __a : (__hisnan(__b) ? __b : __hmax(__a, __b));
}
__device__ inline __half __hmin_nan(__half __a, __half __b) {
  return __hisnan(__a) ? __a : (__hisnan(__b) ? __b : __hmin(__a, __b));
}
__device__ inline __half2 __hmax2(__half2 __a, __half2 __b) {
  return __half2{__builtin_elementwise_maxnum(__a.data, __b.data)};
}
__device__ inline __half2 __hmin2(__half2 __a, __half2 __b) {
  return __half2{__builtin_elementwise_minnum(__a.data, __b.data)};
}

// ---- Math (device) ----
#define __HIP_SHIM_HMATH(__name, __f)                                                          \
  __device__ inline __half h##__name(__half __a) { return __HIP_SHIM_H(__f(__HIP_SHIM_D(__a))); } \
  __device__ inline __half2 h2##__name(__half2 __a) { return __half2{__f(__a.data)}; }
__HIP_SHIM_HMATH(sqrt, __builtin_elementwise_sqrt)
__HIP_SHIM_HMATH(exp, __builtin_elementwise_exp)
__HIP_SHIM_HMATH(exp2, __builtin_elementwise_exp2)
__HIP_SHIM_HMATH(exp10, __builtin_elementwise_exp10)
__HIP_SHIM_HMATH(log, __builtin_elementwise_log)
__HIP_SHIM_HMATH(log2, __builtin_elementwise_log2)
__HIP_SHIM_HMATH(log10, __builtin_elementwise_log10)
__HIP_SHIM_HMATH(sin, __builtin_elementwise_sin)
__HIP_SHIM_HMATH(cos, __builtin_elementwise_cos)
__HIP_SHIM_HMATH(ceil, __builtin_elementwise_ceil)
__HIP_SHIM_HMATH(floor, __builtin_elementwise_floor)
__HIP_SHIM_HMATH(trunc, __builtin_elementwise_trunc)
__HIP_SHIM_HMATH(rint, __builtin_elementwise_roundeven)
#undef __HIP_SHIM_HMATH
__device__ inline __half hrcp(__half __a) { return __HIP_SHIM_H((_Float16)1 / __HIP_SHIM_D(__a)); }
__device__ inline __half2 h2rcp(__half2 __a) { return __half2{_Float16_2{1, 1} / __a.data}; }
__device__ inline __half hrsqrt(__half __a) { return __HIP_SHIM_H((_Float16)1 / __builtin_elementwise_sqrt(__HIP_SHIM_D(__a))); }
__device__ inline __half2 h2rsqrt(__half2 __a) { return __half2{_Float16_2{1, 1} / __builtin_elementwise_sqrt(__a.data)}; }
#undef __HIP_SHIM_D
#undef __HIP_SHIM_H

// ---- Lane exchange (device) ----
#define __HIP_SHIM_HSHFL(__name, __P)                                                                    \
  __device__ inline __half __name(__half __var, __P __arg, int __width = warpSize) {                     \
    return __ushort_as_half((unsigned short)__name((int)__half_as_ushort(__var), __arg, __width));       \
  }                                                                                                      \
  __device__ inline __half2 __name(__half2 __var, __P __arg, int __width = warpSize) {                   \
    return __half2{__builtin_bit_cast(_Float16_2, __name(__builtin_bit_cast(int, __var.data), __arg, __width))}; \
  }
__HIP_SHIM_HSHFL(__shfl, int)
__HIP_SHIM_HSHFL(__shfl_up, unsigned int)
__HIP_SHIM_HSHFL(__shfl_down, unsigned int)
__HIP_SHIM_HSHFL(__shfl_xor, int)
#undef __HIP_SHIM_HSHFL

#endif
