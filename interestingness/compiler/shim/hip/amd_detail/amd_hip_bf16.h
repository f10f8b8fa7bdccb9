// gpu-reduce HIP fallback shim -- used only when no ROCm install is available.
//
// hip/amd_detail/amd_hip_bf16.h: bfloat16 as ROCm 7 defines it. __hip_bfloat16 stores the bits
// (`__x`) over a clang __bf16 (`__x_bf16`), __hip_bfloat162 the members x, y; __hip_bfloat16_raw /
// __hip_bfloat162_raw expose the bits; HIPRT_*_BF16 are the usual constants.
//
// Conversions from float and double round to nearest even (NaN stays NaN, quiet); to float they
// are exact. In device code they are clang's __bf16 casts (gfx950: v_cvt_pk_bf16_f32), as in
// ROCm 7; in host code they are done on the bits, so a host program needs no __truncsfbf2 from
// the runtime library.
//
// Functions: __float2bfloat16, __bfloat162float, __double2bfloat16, __float22bfloat162_rn,
// __bfloat1622float2, the low/high/halves/lows/highs forms, the bit casts, __hadd/__hsub/__hmul/
// __hdiv/__hfma/__hneg/__habs and their 2-wide forms, comparisons, __hmax/__hmin, the h*/h2* math
// functions, arithmetic and comparison operators, __shfl* for both types. As in ROCm 7, all are
// __host__ __device__ except math and lane exchange (device).
//
// Simplified: arithmetic is done in float and rounded back (what clang does for __bf16 anyway);
// math goes through float; no atomics on bfloat16, no legacy hip_bfloat16 struct.
#ifndef _HIP_INCLUDE_HIP_AMD_DETAIL_HIP_BF16_H_
#define _HIP_INCLUDE_HIP_AMD_DETAIL_HIP_BF16_H_

#include "host_defines.h"
#include "amd_hip_vector_types.h"
#include "amd_warp_functions.h"

#define __BF16_HOST_DEVICE__ __host__ __device__
#define __BF16_DEVICE__ __device__

typedef struct __attribute__((aligned(2))) {
  unsigned short x;
} __hip_bfloat16_raw;
typedef struct __attribute__((aligned(4))) {
  unsigned short x;
  unsigned short y;
} __hip_bfloat162_raw;

// float <-> bfloat16 bits. Device: the __bf16 conversion; host: round to nearest even on the bits.
__BF16_HOST_DEVICE__ inline unsigned short __hip_shim_f2bf(float __f) {
#if defined(__HIP_DEVICE_COMPILE__)
  return __builtin_bit_cast(unsigned short, static_cast<__bf16>(__f));
#else
  unsigned int __u = __builtin_bit_cast(unsigned int, __f);
  if ((__u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((__u >> 16) | 0x40);  // quiet NaN
  return (unsigned short)((__u + 0x7fffu + ((__u >> 16) & 1u)) >> 16);
#endif
}
__BF16_HOST_DEVICE__ inline float __hip_shim_bf2f(unsigned short __b) {
  return __builtin_bit_cast(float, (unsigned int)__b << 16);
}
__BF16_HOST_DEVICE__ inline unsigned short __hip_shim_d2bf(double __d) {
#if defined(__HIP_DEVICE_COMPILE__)
  return __builtin_bit_cast(unsigned short, static_cast<__bf16>(__d));
#else
  // double -> float rounding to odd, then float -> bfloat16: no double rounding.
  float __f = static_cast<float>(__d);
  unsigned int __u = __builtin_bit_cast(unsigned int, __f);
  if (__d == __d && static_cast<double>(__f) != __d) {
    if (__builtin_fabs(static_cast<double>(__f)) > __builtin_fabs(__d)) __u -= 1;
    __u |= 1;
  }
  return __hip_shim_f2bf(__builtin_bit_cast(float, __u));
#endif
}

struct __attribute__((aligned(2))) __hip_bfloat16 {
 protected:
  union {
    unsigned short __x;
    __bf16 __x_bf16;
  };

 public:
  __hip_bfloat16() = default;
  __BF16_HOST_DEVICE__ constexpr __hip_bfloat16(const __hip_bfloat16_raw& __r) : __x(__r.x) {}
  __BF16_HOST_DEVICE__ __hip_bfloat16(float __f) : __x(__hip_shim_f2bf(__f)) {}
  __BF16_HOST_DEVICE__ __hip_bfloat16(double __d) : __x(__hip_shim_d2bf(__d)) {}
  __BF16_HOST_DEVICE__ __hip_bfloat16(int __i) : __x(__hip_shim_d2bf(__i)) {}
  __BF16_HOST_DEVICE__ __hip_bfloat16(unsigned int __i) : __x(__hip_shim_d2bf(__i)) {}
  __BF16_HOST_DEVICE__ __hip_bfloat16(short __i) : __x(__hip_shim_f2bf(__i)) {}
  __BF16_HOST_DEVICE__ __hip_bfloat16(unsigned short __i) : __x(__hip_shim_f2bf(__i)) {}
  __BF16_HOST_DEVICE__ __hip_bfloat16(__bf16 __b) : __x_bf16(__b) {}

  __BF16_HOST_DEVICE__ operator __hip_bfloat16_raw() const { return __hip_bfloat16_raw{__x}; }
  __BF16_HOST_DEVICE__ operator __hip_bfloat16_raw() const volatile { return __hip_bfloat16_raw{__x}; }
  __BF16_HOST_DEVICE__ operator float() const { return __hip_shim_bf2f(__x); }
  __BF16_HOST_DEVICE__ operator __bf16() const { return __x_bf16; }
  __BF16_HOST_DEVICE__ operator bool() const { return (__x & 0x7fff) != 0; }
  __BF16_HOST_DEVICE__ operator char() const { return static_cast<char>(__hip_shim_bf2f(__x)); }
  __BF16_HOST_DEVICE__ operator signed char() const { return static_cast<signed char>(__hip_shim_bf2f(__x)); }
  __BF16_HOST_DEVICE__ operator unsigned char() const { return static_cast<unsigned char>(__hip_shim_bf2f(__x)); }
  __BF16_HOST_DEVICE__ operator short() const { return static_cast<short>(__hip_shim_bf2f(__x)); }
  __BF16_HOST_DEVICE__ operator unsigned short() const { return static_cast<unsigned short>(__hip_shim_bf2f(__x)); }
  __BF16_HOST_DEVICE__ operator int() const { return static_cast<int>(__hip_shim_bf2f(__x)); }
  __BF16_HOST_DEVICE__ operator unsigned int() const { return static_cast<unsigned int>(__hip_shim_bf2f(__x)); }
  __BF16_HOST_DEVICE__ operator long() const { return static_cast<long>(__hip_shim_bf2f(__x)); }
  __BF16_HOST_DEVICE__ operator unsigned long() const { return static_cast<unsigned long>(__hip_shim_bf2f(__x)); }
  __BF16_HOST_DEVICE__ operator long long() const { return static_cast<long long>(__hip_shim_bf2f(__x)); }
  __BF16_HOST_DEVICE__ operator unsigned long long() const {
    return static_cast<unsigned long long>(__hip_shim_bf2f(__x));
  }

  __BF16_HOST_DEVICE__ __hip_bfloat16& operator=(float __f) { __x = __hip_shim_f2bf(__f); return *this; }
  __BF16_HOST_DEVICE__ __hip_bfloat16& operator=(double __d) { __x = __hip_shim_d2bf(__d); return *this; }
  __BF16_HOST_DEVICE__ __hip_bfloat16& operator=(int __i) { __x = __hip_shim_d2bf(__i); return *this; }
  __BF16_HOST_DEVICE__ __hip_bfloat16& operator=(unsigned int __i) { __x = __hip_shim_d2bf(__i); return *this; }
  __BF16_HOST_DEVICE__ __hip_bfloat16& operator=(short __i) { __x = __hip_shim_f2bf(__i); return *this; }
  __BF16_HOST_DEVICE__ __hip_bfloat16& operator=(unsigned short __i) { __x = __hip_shim_f2bf(__i); return *this; }
  __BF16_HOST_DEVICE__ __hip_bfloat16& operator=(const __hip_bfloat16_raw& __r) { __x = __r.x; return *this; }
  __BF16_HOST_DEVICE__ volatile __hip_bfloat16& operator=(const __hip_bfloat16_raw& __r) volatile {
    __x = __r.x;
    return *this;
  }
};

typedef __bf16 __bf16_2 __attribute__((ext_vector_type(2)));

struct __attribute__((aligned(4))) __hip_bfloat162 {
  union {
    struct {
      __hip_bfloat16 x, y;
    };
    __bf16_2 __xy_bf162;
  };
  __hip_bfloat162() = default;
  __BF16_HOST_DEVICE__ constexpr __hip_bfloat162(const __hip_bfloat16& __a, const __hip_bfloat16& __b)
      : x(__a), y(__b) {}
  __BF16_HOST_DEVICE__ __hip_bfloat162(const __hip_bfloat162_raw& __r)
      : x(__hip_bfloat16_raw{__r.x}), y(__hip_bfloat16_raw{__r.y}) {}
  __BF16_HOST_DEVICE__ __hip_bfloat162(__bf16_2 __v) : __xy_bf162(__v) {}
  __BF16_HOST_DEVICE__ __hip_bfloat162& operator=(const __hip_bfloat162_raw& __r) {
    x = __hip_bfloat16_raw{__r.x};
    y = __hip_bfloat16_raw{__r.y};
    return *this;
  }
  __BF16_HOST_DEVICE__ operator __hip_bfloat162_raw() const {
    return __hip_bfloat162_raw{static_cast<__hip_bfloat16_raw>(x).x, static_cast<__hip_bfloat16_raw>(y).x};
  }
  __BF16_HOST_DEVICE__ operator float2() const { return float2{static_cast<float>(x), static_cast<float>(y)}; }
  __BF16_HOST_DEVICE__ operator __bf16_2() const { return __xy_bf162; }
};

#define __BF16_HD __BF16_HOST_DEVICE__ inline
__BF16_HD unsigned short __bfloat16_as_ushort(__hip_bfloat16 __h) { return static_cast<__hip_bfloat16_raw>(__h).x; }
__BF16_HD short __bfloat16_as_short(__hip_bfloat16 __h) { return (short)__bfloat16_as_ushort(__h); }
__BF16_HD __hip_bfloat16 __ushort_as_bfloat16(unsigned short __u) { return __hip_bfloat16_raw{__u}; }
__BF16_HD __hip_bfloat16 __short_as_bfloat16(short __s) { return __hip_bfloat16_raw{(unsigned short)__s}; }
__BF16_HD float __bfloat162float(__hip_bfloat16 __h) { return __hip_shim_bf2f(__bfloat16_as_ushort(__h)); }
__BF16_HD __hip_bfloat16 __float2bfloat16(float __f) { return __hip_bfloat16_raw{__hip_shim_f2bf(__f)}; }
__BF16_HD __hip_bfloat16 __double2bfloat16(double __d) { return __hip_bfloat16_raw{__hip_shim_d2bf(__d)}; }
__BF16_HD __hip_bfloat16 __int2bfloat16_rn(int __i) { return __hip_bfloat16_raw{__hip_shim_d2bf(__i)}; }
__BF16_HD __hip_bfloat162 __float22bfloat162_rn(float2 __f) {
  return __hip_bfloat162{__float2bfloat16(__f.x), __float2bfloat16(__f.y)};
}
__BF16_HD __hip_bfloat162 __floats2bfloat162_rn(float __a, float __b) {
  return __hip_bfloat162{__float2bfloat16(__a), __float2bfloat16(__b)};
}
__BF16_HD __hip_bfloat162 __float2bfloat162_rn(float __a) { return __floats2bfloat162_rn(__a, __a); }
__BF16_HD float2 __bfloat1622float2(__hip_bfloat162 __h) {
  return float2{__bfloat162float(__h.x), __bfloat162float(__h.y)};
}
__BF16_HD __hip_bfloat162 __bfloat162bfloat162(__hip_bfloat16 __a) { return __hip_bfloat162{__a, __a}; }
__BF16_HD __hip_bfloat162 __halves2bfloat162(__hip_bfloat16 __a, __hip_bfloat16 __b) { return __hip_bfloat162{__a, __b}; }
__BF16_HD __hip_bfloat16 __low2bfloat16(__hip_bfloat162 __h) { return __h.x; }
__BF16_HD __hip_bfloat16 __high2bfloat16(__hip_bfloat162 __h) { return __h.y; }
__BF16_HD float __low2float(__hip_bfloat162 __h) { return __bfloat162float(__h.x); }
__BF16_HD float __high2float(__hip_bfloat162 __h) { return __bfloat162float(__h.y); }
__BF16_HD __hip_bfloat162 __low2bfloat162(__hip_bfloat162 __h) { return __hip_bfloat162{__h.x, __h.x}; }
__BF16_HD __hip_bfloat162 __high2bfloat162(__hip_bfloat162 __h) { return __hip_bfloat162{__h.y, __h.y}; }
__BF16_HD __hip_bfloat162 __lows2bfloat162(__hip_bfloat162 __a, __hip_bfloat162 __b) { return __hip_bfloat162{__a.x, __b.x}; }
__BF16_HD __hip_bfloat162 __highs2bfloat162(__hip_bfloat162 __a, __hip_bfloat162 __b) { return __hip_bfloat162{__a.y, __b.y}; }
__BF16_HD __hip_bfloat162 __lowhigh2highlow(__hip_bfloat162 __h) { return __hip_bfloat162{__h.y, __h.x}; }

#define HIPRT_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3F80U)
#define HIPRT_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000U)
#define HIPRT_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7F80U)
#define HIPRT_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7F7FU)
#define HIPRT_MIN_DENORM_BF16 __ushort_as_bfloat16((unsigned short)0x0001U)
#define HIPRT_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7FFFU)
#define HIPRT_NEG_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x8000U)

// Arithmetic, in float, rounded back.
#define __BF16_F(__h) __bfloat162float(__h)
#define __BF16_B(__f) __float2bfloat16(__f)
__BF16_HD __hip_bfloat16 __hadd(__hip_bfloat16 __a, __hip_bfloat16 __b) { return __BF16_B(__BF16_F(__a) + __BF16_F(__b)); }
__BF16_HD __hip_bfloat16 __hsub(__hip_bfloat16 __a, __hip_bfloat16 __b) { return __BF16_B(__BF16_F(__a) - __BF16_F(__b)); }
__BF16_HD __hip_bfloat16 __hmul(__hip_bfloat16 __a, __hip_bfloat16 __b) { return __BF16_B(__BF16_F(__a) * __BF16_F(__b)); }
__BF16_HD __hip_bfloat16 __hdiv(__hip_bfloat16 __a, __hip_bfloat16 __b) { return __BF16_B(__BF16_F(__a) / __BF16_F(__b)); }
__BF16_HD __hip_bfloat16 __hfma(__hip_bfloat16 __a, __hip_bfloat16 __b, __hip_bfloat16 __c) {
  return __BF16_B(__builtin_fmaf(__BF16_F(__a), __BF16_F(__b), __BF16_F(__c)));
}
__BF16_HD __hip_bfloat16 __hneg(__hip_bfloat16 __a) { return __ushort_as_bfloat16(__bfloat16_as_ushort(__a) ^ 0x8000); }
__BF16_HD __hip_bfloat16 __habs(__hip_bfloat16 __a) { return __ushort_as_bfloat16(__bfloat16_as_ushort(__a) & 0x7fff); }
#define __BF16_2WIDE1(__name)                                                        \
  __BF16_HD __hip_bfloat162 __name##2(__hip_bfloat162 __a) { return __hip_bfloat162{__name(__a.x), __name(__a.y)}; }
#define __BF16_2WIDE2(__name2, __name)                                                         \
  __BF16_HD __hip_bfloat162 __name2(__hip_bfloat162 __a, __hip_bfloat162 __b) {              \
    return __hip_bfloat162{__name(__a.x, __b.x), __name(__a.y, __b.y)};                       \
  }
__BF16_2WIDE2(__hadd2, __hadd)
__BF16_2WIDE2(__hsub2, __hsub)
__BF16_2WIDE2(__hmul2, __hmul)
__BF16_2WIDE2(__h2div, __hdiv)
__BF16_2WIDE1(__hneg)
__BF16_2WIDE1(__habs)
__BF16_HD __hip_bfloat162 __hfma2(__hip_bfloat162 __a, __hip_bfloat162 __b, __hip_bfloat162 __c) {
  return __hip_bfloat162{__hfma(__a.x, __b.x, __c.x), __hfma(__a.y, __b.y, __c.y)};
}

// Comparisons: ordered (false with a NaN) and unordered (...u, true with a NaN).
__BF16_HD bool __hisnan(__hip_bfloat16 __a) { return (__bfloat16_as_ushort(__a) & 0x7fff) > 0x7f80; }
__BF16_HD int __hisinf(__hip_bfloat16 __a) {
  unsigned short __u = __bfloat16_as_ushort(__a);
  return (__u & 0x7fff) == 0x7f80 ? ((__u & 0x8000) ? -1 : 1) : 0;
}
__BF16_HD __hip_bfloat162 __hisnan2(__hip_bfloat162 __a) {
  return __hip_bfloat162{__BF16_B(__hisnan(__a.x) ? 1.f : 0.f), __BF16_B(__hisnan(__a.y) ? 1.f : 0.f)};
}
#define __BF16_CMP(__name, __op)                                                                        \
  __BF16_HD bool __h##__name(__hip_bfloat16 __a, __hip_bfloat16 __b) { return __BF16_F(__a) __op __BF16_F(__b); } \
  __BF16_HD bool __h##__name##u(__hip_bfloat16 __a, __hip_bfloat16 __b) {                               \
    return __hisnan(__a) || __hisnan(__b) || __BF16_F(__a) __op __BF16_F(__b);                          \
  }                                                                                                     \
  __BF16_HD __hip_bfloat162 __h##__name##2(__hip_bfloat162 __a, __hip_bfloat162 __b) {                  \
    return __hip_bfloat162{__BF16_B(__h##__name(__a.x, __b.x) ? 1.f : 0.f),                             \
                           __BF16_B(__h##__name(__a.y, __b.y) ? 1.f : 0.f)};                            \
  }                                                                                                     \
  __BF16_HD __hip_bfloat162 __h##__name##u2(__hip_bfloat162 __a, __hip_bfloat162 __b) {                 \
    return __hip_bfloat162{__BF16_B(__h##__name##u(__a.x, __b.x) ? 1.f : 0.f),                          \
                           __BF16_B(__h##__name##u(__a.y, __b.y) ? 1.f : 0.f)};                         \
  }                                                                                                     \
  __BF16_HD bool __hb##__name##2(__hip_bfloat162 __a, __hip_bfloat162 __b) {                            \
    return __h##__name(__a.x, __b.x) && __h##__name(__a.y, __b.y);                                      \
  }                                                                                                     \
  __BF16_HD bool __hb##__name##u2(__hip_bfloat162 __a, __hip_bfloat162 __b) {                           \
    return __h##__name##u(__a.x, __b.x) && __h##__name##u(__a.y, __b.y);                                \
  }
__BF16_CMP(eq, ==)
__BF16_CMP(ne, !=)
__BF16_CMP(le, <=)
__BF16_CMP(ge, >=)
__BF16_CMP(lt, <)
__BF16_CMP(gt, >)
#undef __BF16_CMP
__BF16_HD __hip_bfloat16 __hmax(__hip_bfloat16 __a, __hip_bfloat16 __b) { return __BF16_B(__builtin_fmaxf(__BF16_F(__a), __BF16_F(__b))); }
__BF16_HD __hip_bfloat16 __hmin(__hip_bfloat16 __a, __hip_bfloat16 __b) { return __BF16_B(__builtin_fminf(__BF16_F(__a), __BF16_F(__b))); }
__BF16_HD __hip_bfloat16 __hmax_nan(__hip_bfloat16 __a, __hip_bfloat16 __b) {
  return __hisnan(__a) ? __a : (__hisnan(__b) ? __b : __hmax(__a, __b));
}
__BF16_HD __hip_bfloat16 __hmin_nan(__hip_bfloat16 __a, __hip_bfloat16 __b) {
  return __hisnan(__a) ? __a : (__hisnan(__b) ? __b : __hmin(__a, __b));
}
__BF16_2WIDE2(__hmax2, __hmax)
__BF16_2WIDE2(__hmin2, __hmin)

// Operators (ROCm 7 has them on both sides).
#define __BF16_OP(__op)                                                                                     \
  __BF16_HD __hip_bfloat16 operator __op(const __hip_bfloat16& __a, const __hip_bfloat16& __b) {          \
    return __BF16_B(__BF16_F(__a) __op __BF16_F(__b));                                                      \
  }                                                                                                         \
  __BF16_HD __hip_bfloat16& operator __op##=(__hip_bfloat16& __a, const __hip_bfloat16& __b) {            \
    return __a = __a __op __b;                                                                              \
  }                                                                                                         \
  __BF16_HD __hip_bfloat162 operator __op(const __hip_bfloat162& __a, const __hip_bfloat162& __b) {       \
    return __hip_bfloat162{__a.x __op __b.x, __a.y __op __b.y};                                             \
  }                                                                                                         \
  __BF16_HD __hip_bfloat162& operator __op##=(__hip_bfloat162& __a, const __hip_bfloat162& __b) {         \
    return __a = __a __op __b;                                                                              \
  }
__BF16_OP(+)
__BF16_OP(-)
__BF16_OP(*)
__BF16_OP(/)
#undef __BF16_OP
__BF16_HD __hip_bfloat16 operator-(const __hip_bfloat16& __a) { return __hneg(__a); }
__BF16_HD __hip_bfloat16 operator+(const __hip_bfloat16& __a) { return __a; }
__BF16_HD __hip_bfloat162 operator-(const __hip_bfloat162& __a) { return __hneg2(__a); }
__BF16_HD __hip_bfloat162 operator+(const __hip_bfloat162& __a) { return __a; }
__BF16_HD __hip_bfloat16& operator++(__hip_bfloat16& __a) { return __a += HIPRT_ONE_BF16; }
__BF16_HD __hip_bfloat16& operator--(__hip_bfloat16& __a) { return __a -= HIPRT_ONE_BF16; }
__BF16_HD __hip_bfloat16 operator++(__hip_bfloat16& __a, int) { __hip_bfloat16 __t = __a; ++__a; return __t; }
__BF16_HD __hip_bfloat16 operator--(__hip_bfloat16& __a, int) { __hip_bfloat16 __t = __a; --__a; return __t; }
__BF16_HD bool operator==(const __hip_bfloat16& __a, const __hip_bfloat16& __b) { return __heq(__a, __b); }
__BF16_HD bool operator!=(const __hip_bfloat16& __a, const __hip_bfloat16& __b) { return __hneu(__a, __b); }
__BF16_HD bool operator<(const __hip_bfloat16& __a, const __hip_bfloat16& __b) { return __hlt(__a, __b); }
__BF16_HD bool operator<=(const __hip_bfloat16& __a, const __hip_bfloat16& __b) { return __hle(__a, __b); }
__BF16_HD bool operator>(const __hip_bfloat16& __a, const __hip_bfloat16& __b) { return __hgt(__a, __b); }
__BF16_HD bool operator>=(const __hip_bfloat16& __a, const __hip_bfloat16& __b) { return __hge(__a, __b); }
__BF16_HD bool operator==(const __hip_bfloat162& __a, const __hip_bfloat162& __b) { return __hbeq2(__a, __b); }
__BF16_HD bool operator!=(const __hip_bfloat162& __a, const __hip_bfloat162& __b) { return __hbneu2(__a, __b); }

// Math (device), through float.
#define __BF16_MATH(__name, __fn)                                                                    \
  __device__ inline __hip_bfloat16 h##__name(__hip_bfloat16 __a) { return __BF16_B(__fn(__BF16_F(__a))); } \
  __device__ inline __hip_bfloat162 h2##__name(__hip_bfloat162 __a) {                               \
    return __hip_bfloat162{h##__name(__a.x), h##__name(__a.y)};                                      \
  }
__BF16_MATH(sqrt, __builtin_sqrtf)
__BF16_MATH(rsqrt, 1.0f / __builtin_sqrtf)
__BF16_MATH(rcp, 1.0f /)
__BF16_MATH(exp, __builtin_expf)
__BF16_MATH(exp2, __builtin_exp2f)
__BF16_MATH(exp10, __builtin_exp10f)
__BF16_MATH(log, __builtin_logf)
__BF16_MATH(log2, __builtin_log2f)
__BF16_MATH(log10, __builtin_log10f)
__BF16_MATH(sin, __builtin_sinf)
__BF16_MATH(cos, __builtin_cosf)
__BF16_MATH(ceil, __builtin_ceilf)
__BF16_MATH(floor, __builtin_floorf)
__BF16_MATH(trunc, __builtin_truncf)
__BF16_MATH(rint, __builtin_rintf)
#undef __BF16_MATH

// Lane exchange (device).
#define __BF16_SHFL(__name, __P)                                                                        \
  __device__ inline __hip_bfloat16 __name(__hip_bfloat16 __var, __P __arg, int __width = warpSize) {   \
    return __ushort_as_bfloat16((unsigned short)__name((int)__bfloat16_as_ushort(__var), __arg, __width)); \
  }                                                                                                     \
  __device__ inline __hip_bfloat162 __name(__hip_bfloat162 __var, __P __arg, int __width = warpSize) { \
    return __hip_bfloat162{__builtin_bit_cast(__bf16_2, __name(__builtin_bit_cast(int, __var.__xy_bf162), __arg, __width))}; \
  }
__BF16_SHFL(__shfl, int)
__BF16_SHFL(__shfl_up, unsigned int)
__BF16_SHFL(__shfl_down, unsigned int)
__BF16_SHFL(__shfl_xor, int)
#undef __BF16_SHFL
#undef __BF16_2WIDE1
#undef __BF16_2WIDE2
#undef __BF16_F
#undef __BF16_B
#undef __BF16_HD

#endif
