// Host-side helpers of the direct wgrad family: config naming, applicability checks and
// the split-K heuristic. The per-config launchers are instantiated one per translation
// unit by the generated files in src/direct_wgrad/instances/ (wgrad_cNNN.hip).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <hipconv/config.h>
#include <hipconv/math.h>
#include <hipconv/tensor.h>

namespace hipconv::cdna4::direct_wgrad {

// Signature shared by every launch_impl<Config> instance (see kernel.h).
using LaunchFn = void (*)(const LaunchParams&, const ConvParams&, const void*, const void*, void*, void*,
                          hipStream_t);

struct Instance {
  int index;
  LaunchFn launch;
  const char* name;
};

// Registered by the generated instance files (static initialisers).
const Instance* find_instance(int index);
void register_instance(const Instance& inst);

inline bool config_applicable(const Config& c, const ConvParams& p) {
  if (c.fy != p.fy || c.fx != p.fx) return false;
  if (p.c % c.vec != 0 || p.k % c.vec != 0) return false;
  if (c.split == int(SplitMode::none) && p.split_k > 1) return false;
  return true;
}

// Split GEMM-K until there are at least ~2 workgroups per CU.
inline int choose_split_k(const Config& c, const ConvParams& p, int num_cus) {
  const int tiles = ceil_div(p.k, c.tile_m()) * ceil_div(p.c, c.tile_n());
  const int stages = ceil_div(p.gemm_k, c.tile_k());
  int split = 1;
  while (tiles * split < 2 * num_cus && stages / (split * 2) >= 8 && split < 64) split *= 2;
  return c.split == int(SplitMode::none) ? 1 : split;
}

// Rough cost model used to rank applicable configs before the tuning DB is consulted.
inline double estimate_cost(const Config& c, const ConvParams& p, int num_cus) {
  const double tiles = double(ceil_div(p.k, c.tile_m())) * ceil_div(p.c, c.tile_n());
  const double waste = (double(ceil_div(p.k, c.tile_m()) * c.tile_m()) / p.k) *
                       (double(ceil_div(p.c, c.tile_n()) * c.tile_n()) / p.c);
  const double waves = tiles * choose_split_k(c, p, num_cus) / (double(num_cus) * c.waves_per_eu);
  return waste * (waves < 1.0 ? 1.0 : waves) * (c.prefetch ? 0.9 : 1.0);
}

inline int format_config_name(const Config& c, char* buf, size_t n) {
  // e.g. "wgrad_f3x3_w2x2_r1x2_k4_m16_e2_s1" (no snprintf in this header: keep it freestanding)
  const int vals[] = {c.fy, c.fx, c.waves_m, c.waves_n, c.rep_m, c.rep_n, c.k_steps, c.mfma, c.waves_per_eu, c.split};
  const char* seps[] = {"wgrad_f", "x", "_w", "x", "_r", "x", "_k", "_m", "_e", "_s"};
  size_t pos = 0;
  for (int i = 0; i < 10; ++i) {
    for (const char* s = seps[i]; *s && pos + 1 < n; ++s) buf[pos++] = *s;
    char digits[12];
    int d = 0, v = vals[i];
    do { digits[d++] = char('0' + v % 10); v /= 10; } while (v && d < 11);
    while (d && pos + 1 < n) buf[pos++] = digits[--d];
  }
  if (n) buf[pos < n ? pos : n - 1] = 0;
  return int(pos);
}

} // namespace hipconv::cdna4::direct_wgrad
