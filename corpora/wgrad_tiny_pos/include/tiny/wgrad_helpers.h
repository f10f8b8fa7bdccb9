// Helpers of the weight-gradient kernel: the workgroup's tile, LDS addressing, buffer loads.
// Plain external __device__ functions, as in corpora/hipconv (compiled once per TU).
#pragma once

#include <stdint.h>
#include <hip/hip_runtime.h>

typedef __bf16 bf16x4_t __attribute__((ext_vector_type(4)));
typedef __bf16 bf16x8_t __attribute__((ext_vector_type(8)));
typedef float f32x16_t __attribute__((ext_vector_type(16)));
typedef unsigned u32x2_t __attribute__((ext_vector_type(2)));

// The convolution as the kernel sees it: a 1x1 filter with stride 1 and no padding, NHWC
// activations, KC weights; channel counts and GEMM-K are multiples of the tile sizes.
struct ConvParams {
  int n, c, h, w;   // input
  int k;            // output channels
  int gemm_k;       // n * h * w
  int k_per_split;  // GEMM-K positions per workgroup along gridDim.y
  int64_t x_stride, dy_stride;  // elements per GEMM-K position
};

// The output tile and GEMM-K range of one workgroup.
struct BlockTile {
  int m0, c0;
  int k_begin;
};

__device__ BlockTile block_tile(const ConvParams& p, int tile_m, int tile_n) {
  const int tiles_n = (p.c + tile_n - 1) / tile_n;
  const int bx = blockIdx.x;
  BlockTile t;
  t.m0 = (bx / tiles_n) * tile_m;
  t.c0 = (bx % tiles_n) * tile_n;
  t.k_begin = int(blockIdx.y) * p.k_per_split;
  return t;
}

// Byte offset of element [row][col] of an LDS tile with row_elems bf16 per row.
__device__ uint32_t lds_elem_offset(int row, int col, int row_elems) {
  return uint32_t(row * row_elems + col) * 2u;
}

// Store 4 channels of one GEMM-K position down a column: global memory is channel-contiguous,
// the LDS tiles are GEMM-K contiguous.
__device__ void lds_store_transposed(char* lds, uint32_t base, int row0, int col, int row_elems, bf16x4_t v) {
  for (int j = 0; j < 4; ++j) {
    __bf16* dst = reinterpret_cast<__bf16*>(lds + base + lds_elem_offset(row0 + j, col, row_elems));
    *dst = v[j];
  }
}

__device__ __forceinline__ __amdgpu_buffer_rsrc_t make_buffer(const void* base, uint32_t bytes) {
  return __builtin_amdgcn_make_buffer_rsrc(const_cast<void*>(base), 0, int(bytes), 0x00020000);
}

__device__ __forceinline__ bf16x4_t buffer_load_bf16x4(__amdgpu_buffer_rsrc_t r, uint32_t byte_offset) {
  u32x2_t v = __builtin_amdgcn_raw_buffer_load_b64(r, int(byte_offset), 0, 0);
  return __builtin_bit_cast(bf16x4_t, v);
}

// Unused by the kernel below: the fp32 -> bf16 rounding of the weight-update kernels.
__host__ __device__ inline __bf16 to_bf16(float f) {
  uint32_t u = __builtin_bit_cast(uint32_t, f);
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) return __builtin_bit_cast(__bf16, uint16_t((u >> 16) | 0x40));
  return __builtin_bit_cast(__bf16, uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16));
}
