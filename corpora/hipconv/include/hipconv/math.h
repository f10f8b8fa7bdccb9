// Integer helpers shared by the address computations of all kernel families.
#pragma once

#include <stdint.h>
#include <hipconv/config.h>

namespace hipconv {

constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }
constexpr int round_up(int a, int b) { return ceil_div(a, b) * b; }
constexpr bool is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }
constexpr int log2_floor(int v) { int r = 0; while (v > 1) { v >>= 1; ++r; } return r; }
template <typename T> constexpr T cmin(T a, T b) { return a < b ? a : b; }
template <typename T> constexpr T cmax(T a, T b) { return a < b ? b : a; }

// Host: compute the magic numbers for division by `d` (1 <= d < 2^31).
inline FastDivmod make_fast_divmod(uint32_t d) {
  FastDivmod r{d, 0, 0};
  if (d == 1) return r;
  uint32_t shift = 0;
  while ((1u << shift) < d) ++shift;
  uint64_t one = 1;
  uint64_t m = ((one << 32) * ((one << shift) - d)) / d + 1;
  r.multiplier = uint32_t(m);
  r.shift = shift;
  return r;
}

// Device: q = n / d for the divisor described by `fd`. Deliberately out of line (see
// HIPCONV_DEVICE_EXTERN in version.h).
HIPCONV_DEVICE_EXTERN uint32_t fast_div(const FastDivmod& fd, uint32_t n) {
  if (fd.divisor == 1) return n;
  uint32_t t = uint32_t((uint64_t(n) * fd.multiplier) >> 32);
  return (t + n) >> fd.shift;
}

HIPCONV_DEVICE_EXTERN uint32_t fast_divmod(const FastDivmod& fd, uint32_t n, uint32_t* rem) {
  uint32_t q = fast_div(fd, n);
  *rem = n - q * fd.divisor;
  return q;
}

// Unsigned min/max that map onto v_min_u32/v_max_u32.
HIPCONV_INLINE uint32_t umin(uint32_t a, uint32_t b) { return a < b ? a : b; }
HIPCONV_INLINE uint32_t umax(uint32_t a, uint32_t b) { return a < b ? b : a; }

// a * b + c with 24-bit operands (v_mad_u32_u24): every index below 2^24 qualifies.
HIPCONV_INLINE uint32_t mad24(uint32_t a, uint32_t b, uint32_t c) {
  return (a & 0xffffffu) * (b & 0xffffffu) + c;
}

// Unsigned "0 <= v < bound" for a signed v in one compare.
HIPCONV_INLINE bool in_range(int v, int bound) { return uint32_t(v) < uint32_t(bound); }

// Wave-uniform value broadcast (readfirstlane) for values the compiler cannot prove uniform.
HIPCONV_INLINE int wave_uniform(int v) { return __builtin_amdgcn_readfirstlane(v); }

} // namespace hipconv
