// gpu-reduce HIP fallback shim -- used only when no ROCm install is available.
//
// hip/amd_detail/amd_hip_vector_types.h: CUDA-style vector types (char1 .. double4) as ROCm
// defines them: HIP_vector_type<T, N>, deriving from HIP_vector_base<T, N>, whose storage is a
// union of a clang ext_vector_type `data` and the members x, y, z, w. Sizes and alignments are
// therefore ROCm's: those of the ext_vector_type for 1, 2 and 4 components (CUDA's, except that
// the 4-component 64-bit types are 32-byte aligned, CUDA's 16), and of T for 3 components, whose
// storage is a plain array (12 bytes for float3, as in CUDA).
//
// Operators as in ROCm: ++ --, + - * / with a vector or a scalar on either side, == !=, unary -
// (signed and floating types), and for integer types ~ % ^ | & << >>; compound assignments;
// make_<type><N>(...) constructors.
//
// Simplified: no __hipMapVector, no std::iostream support, no hipRTC variant.
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_HIP_VECTOR_TYPES_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_HIP_VECTOR_TYPES_H

#include "host_defines.h"

#include <type_traits>

#ifndef __HOST_DEVICE__
#define __HOST_DEVICE__ __host__ __device__
#endif

template <typename _Tp, unsigned int __n>
struct HIP_vector_base;

template <typename _Tp>
struct HIP_vector_base<_Tp, 1> {
  using Native_vec_ = _Tp __attribute__((ext_vector_type(1)));
  union {
    Native_vec_ data;
    struct {
      _Tp x;
    };
  };
  using value_type = _Tp;
  HIP_vector_base() = default;
  __HOST_DEVICE__ explicit constexpr HIP_vector_base(_Tp __a) noexcept : data{__a} {}
};

template <typename _Tp>
struct HIP_vector_base<_Tp, 2> {
  using Native_vec_ = _Tp __attribute__((ext_vector_type(2)));
  union {
    Native_vec_ data;
    struct {
      _Tp x, y;
    };
  };
  using value_type = _Tp;
  HIP_vector_base() = default;
  __HOST_DEVICE__ explicit constexpr HIP_vector_base(_Tp __a) noexcept : data{__a, __a} {}
  __HOST_DEVICE__ constexpr HIP_vector_base(_Tp __a, _Tp __b) noexcept : data{__a, __b} {}
};

// Three components: a plain array (ext_vector_type(3) would be padded to four), with the
// element-wise operators HIP_vector_type applies to `data`.
template <typename _Tp>
struct __hip_vec3_storage {
  _Tp __d[3];
  __HOST_DEVICE__ _Tp& operator[](unsigned int __i) noexcept { return __d[__i]; }
  __HOST_DEVICE__ constexpr _Tp operator[](unsigned int __i) const noexcept { return __d[__i]; }
#define __HIP_SHIM_VEC3_OP(__op)                                                        \
  __HOST_DEVICE__ __hip_vec3_storage& operator __op(const __hip_vec3_storage& __o) noexcept { \
    __d[0] __op __o.__d[0];                                                             \
    __d[1] __op __o.__d[1];                                                             \
    __d[2] __op __o.__d[2];                                                             \
    return *this;                                                                       \
  }
  __HIP_SHIM_VEC3_OP(+=)
  __HIP_SHIM_VEC3_OP(-=)
  __HIP_SHIM_VEC3_OP(*=)
  __HIP_SHIM_VEC3_OP(/=)
  __HIP_SHIM_VEC3_OP(%=)
  __HIP_SHIM_VEC3_OP(^=)
  __HIP_SHIM_VEC3_OP(|=)
  __HIP_SHIM_VEC3_OP(&=)
  __HIP_SHIM_VEC3_OP(<<=)
  __HIP_SHIM_VEC3_OP(>>=)
#undef __HIP_SHIM_VEC3_OP
  __HOST_DEVICE__ __hip_vec3_storage operator-() const noexcept { return {{-__d[0], -__d[1], -__d[2]}}; }
  __HOST_DEVICE__ __hip_vec3_storage operator~() const noexcept { return {{~__d[0], ~__d[1], ~__d[2]}}; }
};

template <typename _Tp>
struct HIP_vector_base<_Tp, 3> {
  using Native_vec_ = __hip_vec3_storage<_Tp>;
  union {
    Native_vec_ data;
    struct {
      _Tp x, y, z;
    };
  };
  using value_type = _Tp;
  HIP_vector_base() = default;
  __HOST_DEVICE__ explicit constexpr HIP_vector_base(_Tp __a) noexcept : data{{__a, __a, __a}} {}
  __HOST_DEVICE__ constexpr HIP_vector_base(_Tp __a, _Tp __b, _Tp __c) noexcept : data{{__a, __b, __c}} {}
};

template <typename _Tp>
struct HIP_vector_base<_Tp, 4> {
  using Native_vec_ = _Tp __attribute__((ext_vector_type(4)));
  union {
    Native_vec_ data;
    struct {
      _Tp x, y, z, w;
    };
  };
  using value_type = _Tp;
  HIP_vector_base() = default;
  __HOST_DEVICE__ explicit constexpr HIP_vector_base(_Tp __a) noexcept : data{__a, __a, __a, __a} {}
  __HOST_DEVICE__ constexpr HIP_vector_base(_Tp __a, _Tp __b, _Tp __c, _Tp __d) noexcept
      : data{__a, __b, __c, __d} {}
};

template <typename _Tp, unsigned int __n>
struct HIP_vector_type : public HIP_vector_base<_Tp, __n> {
  using HIP_vector_base<_Tp, __n>::data;
  using typename HIP_vector_base<_Tp, __n>::Native_vec_;

  HIP_vector_type() = default;
  template <typename _Up, typename std::enable_if<std::is_convertible<_Up, _Tp>::value>::type* = nullptr>
  __HOST_DEVICE__ explicit constexpr HIP_vector_type(_Up __a) noexcept
      : HIP_vector_base<_Tp, __n>{static_cast<_Tp>(__a)} {}
  template <typename... _Us, typename std::enable_if<(__n > 1) && sizeof...(_Us) == __n>::type* = nullptr>
  __HOST_DEVICE__ constexpr HIP_vector_type(_Us... __as) noexcept
      : HIP_vector_base<_Tp, __n>{static_cast<_Tp>(__as)...} {}

  __HOST_DEVICE__ HIP_vector_type& operator++() noexcept { return *this += HIP_vector_type{1}; }
  __HOST_DEVICE__ HIP_vector_type operator++(int) noexcept {
    HIP_vector_type __old(*this);
    ++*this;
    return __old;
  }
  __HOST_DEVICE__ HIP_vector_type& operator--() noexcept { return *this -= HIP_vector_type{1}; }
  __HOST_DEVICE__ HIP_vector_type operator--(int) noexcept {
    HIP_vector_type __old(*this);
    --*this;
    return __old;
  }

#define __HIP_SHIM_VEC_COMPOUND(__op)                                                          \
  __HOST_DEVICE__ HIP_vector_type& operator __op(const HIP_vector_type& __o) noexcept {        \
    data __op __o.data;                                                                        \
    return *this;                                                                              \
  }                                                                                            \
  template <typename _Up, typename std::enable_if<std::is_convertible<_Up, _Tp>::value>::type* = nullptr> \
  __HOST_DEVICE__ HIP_vector_type& operator __op(_Up __s) noexcept {                           \
    return *this __op HIP_vector_type{__s};                                                    \
  }
  __HIP_SHIM_VEC_COMPOUND(+=)
  __HIP_SHIM_VEC_COMPOUND(-=)
  __HIP_SHIM_VEC_COMPOUND(*=)
  __HIP_SHIM_VEC_COMPOUND(/=)
#undef __HIP_SHIM_VEC_COMPOUND

#define __HIP_SHIM_VEC_INT_COMPOUND(__op)                                                      \
  template <typename _Up = _Tp, typename std::enable_if<std::is_integral<_Up>::value>::type* = nullptr> \
  __HOST_DEVICE__ HIP_vector_type& operator __op(const HIP_vector_type& __o) noexcept {        \
    data __op __o.data;                                                                        \
    return *this;                                                                              \
  }
  __HIP_SHIM_VEC_INT_COMPOUND(%=)
  __HIP_SHIM_VEC_INT_COMPOUND(^=)
  __HIP_SHIM_VEC_INT_COMPOUND(|=)
  __HIP_SHIM_VEC_INT_COMPOUND(&=)
  __HIP_SHIM_VEC_INT_COMPOUND(<<=)
  __HIP_SHIM_VEC_INT_COMPOUND(>>=)
#undef __HIP_SHIM_VEC_INT_COMPOUND

  template <typename _Up = _Tp, typename std::enable_if<std::is_signed<_Up>::value>::type* = nullptr>
  __HOST_DEVICE__ HIP_vector_type operator-() const noexcept {
    HIP_vector_type __r(*this);
    __r.data = -__r.data;
    return __r;
  }
  template <typename _Up = _Tp, typename std::enable_if<std::is_integral<_Up>::value>::type* = nullptr>
  __HOST_DEVICE__ HIP_vector_type operator~() const noexcept {
    HIP_vector_type __r(*this);
    __r.data = ~__r.data;
    return __r;
  }
};

// Binary operators: vector with vector, vector with scalar, scalar with vector.
#define __HIP_SHIM_VEC_BINARY(__op, __cond)                                                              \
  template <typename _Tp, unsigned int __n, typename std::enable_if<__cond>::type* = nullptr>            \
  __HOST_DEVICE__ inline constexpr HIP_vector_type<_Tp, __n> operator __op(                              \
      const HIP_vector_type<_Tp, __n>& __a, const HIP_vector_type<_Tp, __n>& __b) noexcept {             \
    return HIP_vector_type<_Tp, __n>{__a} __op## = __b;                                                  \
  }                                                                                                      \
  template <typename _Tp, unsigned int __n, typename _Up,                                                \
            typename std::enable_if<(__cond) && std::is_convertible<_Up, _Tp>::value>::type* = nullptr>  \
  __HOST_DEVICE__ inline constexpr HIP_vector_type<_Tp, __n> operator __op(                              \
      const HIP_vector_type<_Tp, __n>& __a, _Up __s) noexcept {                                          \
    return HIP_vector_type<_Tp, __n>{__a} __op## = HIP_vector_type<_Tp, __n>{__s};                       \
  }                                                                                                      \
  template <typename _Tp, unsigned int __n, typename _Up,                                                \
            typename std::enable_if<(__cond) && std::is_convertible<_Up, _Tp>::value>::type* = nullptr>  \
  __HOST_DEVICE__ inline constexpr HIP_vector_type<_Tp, __n> operator __op(                              \
      _Up __s, const HIP_vector_type<_Tp, __n>& __b) noexcept {                                          \
    return HIP_vector_type<_Tp, __n>{__s} __op## = __b;                                                  \
  }
__HIP_SHIM_VEC_BINARY(+, true)
__HIP_SHIM_VEC_BINARY(-, true)
__HIP_SHIM_VEC_BINARY(*, true)
__HIP_SHIM_VEC_BINARY(/, true)
__HIP_SHIM_VEC_BINARY(%, std::is_integral<_Tp>::value)
__HIP_SHIM_VEC_BINARY(^, std::is_integral<_Tp>::value)
__HIP_SHIM_VEC_BINARY(|, std::is_integral<_Tp>::value)
__HIP_SHIM_VEC_BINARY(&, std::is_integral<_Tp>::value)
__HIP_SHIM_VEC_BINARY(<<, std::is_integral<_Tp>::value)
__HIP_SHIM_VEC_BINARY(>>, std::is_integral<_Tp>::value)
#undef __HIP_SHIM_VEC_BINARY

template <typename _Tp, unsigned int __n>
__HOST_DEVICE__ inline constexpr bool operator==(const HIP_vector_type<_Tp, __n>& __a,
                                                 const HIP_vector_type<_Tp, __n>& __b) noexcept {
  for (unsigned int __i = 0; __i < __n; ++__i)
    if (__a.data[__i] != __b.data[__i]) return false;
  return true;
}
template <typename _Tp, unsigned int __n, typename _Up,
          typename std::enable_if<std::is_convertible<_Up, _Tp>::value>::type* = nullptr>
__HOST_DEVICE__ inline constexpr bool operator==(const HIP_vector_type<_Tp, __n>& __a, _Up __s) noexcept {
  return __a == HIP_vector_type<_Tp, __n>{__s};
}
template <typename _Tp, unsigned int __n, typename _Up,
          typename std::enable_if<std::is_convertible<_Up, _Tp>::value>::type* = nullptr>
__HOST_DEVICE__ inline constexpr bool operator==(_Up __s, const HIP_vector_type<_Tp, __n>& __b) noexcept {
  return HIP_vector_type<_Tp, __n>{__s} == __b;
}
template <typename _Tp, unsigned int __n>
__HOST_DEVICE__ inline constexpr bool operator!=(const HIP_vector_type<_Tp, __n>& __a,
                                                 const HIP_vector_type<_Tp, __n>& __b) noexcept {
  return !(__a == __b);
}
template <typename _Tp, unsigned int __n, typename _Up,
          typename std::enable_if<std::is_convertible<_Up, _Tp>::value>::type* = nullptr>
__HOST_DEVICE__ inline constexpr bool operator!=(const HIP_vector_type<_Tp, __n>& __a, _Up __s) noexcept {
  return !(__a == __s);
}
template <typename _Tp, unsigned int __n, typename _Up,
          typename std::enable_if<std::is_convertible<_Up, _Tp>::value>::type* = nullptr>
__HOST_DEVICE__ inline constexpr bool operator!=(_Up __s, const HIP_vector_type<_Tp, __n>& __b) noexcept {
  return !(__s == __b);
}

#define __HIP_SHIM_VECTOR_TYPES(__name, __T)                                                         \
  using __name##1 = HIP_vector_type<__T, 1>;                                                          \
  using __name##2 = HIP_vector_type<__T, 2>;                                                          \
  using __name##3 = HIP_vector_type<__T, 3>;                                                          \
  using __name##4 = HIP_vector_type<__T, 4>;                                                          \
  __HOST_DEVICE__ static inline constexpr __name##1 make_##__name##1(__T __a) { return __name##1{__a}; } \
  __HOST_DEVICE__ static inline constexpr __name##2 make_##__name##2(__T __a, __T __b) {              \
    return __name##2{__a, __b};                                                                       \
  }                                                                                                   \
  __HOST_DEVICE__ static inline constexpr __name##3 make_##__name##3(__T __a, __T __b, __T __c) {     \
    return __name##3{__a, __b, __c};                                                                  \
  }                                                                                                   \
  __HOST_DEVICE__ static inline constexpr __name##4 make_##__name##4(__T __a, __T __b, __T __c, __T __d) { \
    return __name##4{__a, __b, __c, __d};                                                             \
  }
__HIP_SHIM_VECTOR_TYPES(uchar, unsigned char)
__HIP_SHIM_VECTOR_TYPES(char, char)
__HIP_SHIM_VECTOR_TYPES(ushort, unsigned short)
__HIP_SHIM_VECTOR_TYPES(short, short)
__HIP_SHIM_VECTOR_TYPES(uint, unsigned int)
__HIP_SHIM_VECTOR_TYPES(int, int)
__HIP_SHIM_VECTOR_TYPES(ulong, unsigned long)
__HIP_SHIM_VECTOR_TYPES(long, long)
__HIP_SHIM_VECTOR_TYPES(ulonglong, unsigned long long)
__HIP_SHIM_VECTOR_TYPES(longlong, long long)
__HIP_SHIM_VECTOR_TYPES(float, float)
__HIP_SHIM_VECTOR_TYPES(double, double)
#undef __HIP_SHIM_VECTOR_TYPES

#endif
