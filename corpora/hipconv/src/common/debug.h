// Device-side debugging helpers. Everything here compiles to nothing unless
// HIPCONV_DEVICE_DEBUG is defined.
#pragma once

#include <hipconv/version.h>

#ifndef HIPCONV_DEVICE_DEBUG
#define HIPCONV_DEVICE_DEBUG 0
#endif

#if HIPCONV_DEVICE_DEBUG
#define HIPCONV_DASSERT(cond)                                                                  \
  do {                                                                                         \
    if (!(cond)) __builtin_trap();                                                             \
  } while (0)
#else
#define HIPCONV_DASSERT(cond) ((void)0)
#endif

namespace hipconv::debug {

// Packs (block, wave, stage) into a 32-bit tag for the s_ttracedata-based tracing build.
HIPCONV_DEVICE_EXTERN uint32_t trace_tag(uint32_t block, uint32_t wave, uint32_t stage) {
  return (block << 12) ^ (wave << 8) ^ (stage & 0xffu);
}

template <int N>
struct StaticCounter {
  static constexpr int value = N;
};

// Compile-time report of a configuration's resource estimate (shows up in -ftime-trace).
template <int AccRegs, int LdsBytes>
struct ResourceEstimate {
  static constexpr int acc_regs = AccRegs;
  static constexpr int lds_bytes = LdsBytes;
  static constexpr bool fits_two_waves = AccRegs <= 192 && LdsBytes <= 80 * 1024;
};

} // namespace hipconv::debug
