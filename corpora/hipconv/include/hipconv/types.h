// Scalar and vector types used by the device code.
#pragma once

#include <stdint.h>
#include <hipconv/version.h>

namespace hipconv {

// Vector types. The `using X = __attribute__((ext_vector_type(N))) T;` spelling is what
// the rest of the code base uses; keep it consistent (clang accepts both this and the
// typedef form).
using bf16x2_t = __attribute__((ext_vector_type(2))) __bf16;
using bf16x4_t = __attribute__((ext_vector_type(4))) __bf16;
using bf16x8_t = __attribute__((ext_vector_type(8))) __bf16;
using f16x4_t = __attribute__((ext_vector_type(4))) _Float16;
using f16x8_t = __attribute__((ext_vector_type(8))) _Float16;
using f32x2_t = __attribute__((ext_vector_type(2))) float;
using f32x4_t = __attribute__((ext_vector_type(4))) float;
using f32x16_t = __attribute__((ext_vector_type(16))) float;
using i32x4_t = __attribute__((ext_vector_type(4))) int;
using u32x2_t = __attribute__((ext_vector_type(2))) unsigned;
using u32x4_t = __attribute__((ext_vector_type(4))) unsigned;

using bf16_t = __bf16;

template <typename T, int N>
struct VecOf;
template <> struct VecOf<__bf16, 2> { using type = bf16x2_t; };
template <> struct VecOf<__bf16, 4> { using type = bf16x4_t; };
template <> struct VecOf<__bf16, 8> { using type = bf16x8_t; };
template <> struct VecOf<float, 2> { using type = f32x2_t; };
template <> struct VecOf<float, 4> { using type = f32x4_t; };
template <> struct VecOf<float, 16> { using type = f32x16_t; };
template <typename T, int N>
using vec_t = typename VecOf<T, N>::type;

// Round-to-nearest-even float -> bf16 without relying on the hardware cvt (gfx90a has none).
HIPCONV_HOST_DEVICE inline uint16_t float_to_bf16_bits(float f) {
  uint32_t u = __builtin_bit_cast(uint32_t, f);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) return uint16_t((u >> 16) | 0x40);
  uint32_t rounding_bias = 0x7fffu + ((u >> 16) & 1u);
  return uint16_t((u + rounding_bias) >> 16);
}

HIPCONV_HOST_DEVICE inline float bf16_bits_to_float(uint16_t b) {
  return __builtin_bit_cast(float, uint32_t(b) << 16);
}

HIPCONV_HOST_DEVICE inline __bf16 to_bf16(float f) {
  return __builtin_bit_cast(__bf16, float_to_bf16_bits(f));
}

HIPCONV_HOST_DEVICE inline float to_float(__bf16 b) {
  return bf16_bits_to_float(__builtin_bit_cast(uint16_t, b));
}

template <typename T>
struct TypeTraits;
template <> struct TypeTraits<float> { static constexpr int bytes = 4; static constexpr const char* name = "f32"; };
template <> struct TypeTraits<__bf16> { static constexpr int bytes = 2; static constexpr const char* name = "bf16"; };
template <> struct TypeTraits<_Float16> { static constexpr int bytes = 2; static constexpr const char* name = "f16"; };

} // namespace hipconv
