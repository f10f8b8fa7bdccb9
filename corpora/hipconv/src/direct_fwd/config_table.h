// Tuned configurations of the direct forward kernels (fp16/bf16, NHWC). Append only.
#pragma once

#include <hipconv/config.h>

namespace hipconv::cdna4::direct_fwd {

// The forward kernels tile output pixels (M) x output channels (N) and loop over C*Y*X.
struct FwdConfig {
  int fy, fx;
  int tile_p, tile_k, tile_c;
  int waves_p, waves_k;
  int stages;
  int waves_per_eu;
  bool nt_loads;     // non-temporal loads of the filter
  bool fuse_bias;
  bool fuse_relu;
};

constexpr FwdConfig fwd_configs[] = {
    {1, 1, 128, 128, 32, 2, 2, 2, 2, false, true, false},
    {1, 1, 256, 128, 32, 4, 1, 2, 1, false, true, false},
    {1, 1, 128, 256, 32, 1, 4, 2, 1, true, true, false},
    {3, 3, 64, 128, 16, 2, 2, 2, 2, false, true, true},
    {3, 3, 128, 64, 16, 2, 2, 3, 2, false, true, true},
    {3, 3, 128, 128, 16, 2, 2, 2, 1, false, true, true},
    {5, 5, 64, 64, 16, 2, 2, 2, 2, false, false, false},
    {7, 7, 64, 64, 8, 2, 2, 2, 2, true, false, false},
    {1, 7, 128, 64, 16, 2, 2, 2, 2, false, true, false},
    {7, 1, 128, 64, 16, 2, 2, 2, 2, false, true, false},
};

constexpr int num_fwd_configs = int(sizeof(fwd_configs) / sizeof(fwd_configs[0]));

constexpr int fwd_lds_bytes(const FwdConfig& c) {
  return c.stages * (c.tile_p * c.tile_c + c.tile_k * c.tile_c * c.fy * c.fx) * 2;
}

static_assert(fwd_lds_bytes(fwd_configs[5]) <= 160 * 1024, "fwd config 5 exceeds LDS");

} // namespace hipconv::cdna4::direct_fwd
