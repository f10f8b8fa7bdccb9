// Helpers of the direct weight-gradient kernel: GEMM-K coordinates, LDS addressing, buffer
// loads. Plain external __device__ functions, as in corpora/hipconv (compiled once per TU).
#pragma once

#include <stdint.h>
#include <hip/hip_runtime.h>

typedef __bf16 bf16x4_t __attribute__((ext_vector_type(4)));
typedef __bf16 bf16x8_t __attribute__((ext_vector_type(8)));
typedef float f32x4_t __attribute__((ext_vector_type(4)));
typedef float f32x16_t __attribute__((ext_vector_type(16)));
typedef unsigned u32x2_t __attribute__((ext_vector_type(2)));

// Division by a runtime-invariant divisor: multiplier and shift computed on the host.
struct FastDivmod {
  uint32_t divisor;
  uint32_t multiplier;
  uint32_t shift;
};

// The convolution as the kernel sees it: a 1x1 filter with stride 1 and no padding, NHWC
// activations, KC weights; channel counts are multiples of the tile sizes.
struct ConvParams {
  int n, c, h, w;   // input
  int k, ho, wo;    // output (ho == h, wo == w)
  int gemm_k;       // n * ho * wo
  int k_per_split;  // GEMM-K positions per workgroup along gridDim.y
  FastDivmod div_wo, div_ho;
  int64_t x_stride_n, x_stride_h, x_stride_w;
  int64_t dy_stride_n, dy_stride_h, dy_stride_w;
  int64_t dw_stride_k;
};

__device__ uint32_t fast_divmod(const FastDivmod& fd, uint32_t n, uint32_t* rem) {
  uint32_t q = (uint32_t((uint64_t(n) * fd.multiplier) >> 32) + n) >> fd.shift;
  *rem = n - q * fd.divisor;
  return q;
}

// One GEMM-K position (an output pixel), or a fixed step through GEMM-K, in coordinates.
struct OutCoord {
  int n, ho, wo;
  int pos;
};

// The output tile and GEMM-K range of one workgroup.
struct BlockTile {
  int m0, c0;
  int k_begin, k_end;
};

__device__ BlockTile block_tile(const ConvParams& p, int tile_m, int tile_n) {
  const int tiles_n = (p.c + tile_n - 1) / tile_n;
  const int bx = blockIdx.x;
  BlockTile t;
  t.m0 = (bx / tiles_n) * tile_m;
  t.c0 = (bx % tiles_n) * tile_n;
  t.k_begin = int(blockIdx.y) * p.k_per_split;
  t.k_end = t.k_begin + p.k_per_split;
  return t;
}

__device__ OutCoord decompose_position(const ConvParams& p, int pos) {
  uint32_t wo = 0, ho = 0;
  uint32_t t = fast_divmod(p.div_wo, uint32_t(pos), &wo);
  uint32_t n = fast_divmod(p.div_ho, t, &ho);
  return OutCoord{int(n), int(ho), int(wo), pos};
}

// c += s with carries: the same as decompose_position(p, c->pos + s.pos), without divisions.
__device__ void advance_coord(const ConvParams& p, const OutCoord& s, OutCoord* c) {
  int wo = c->wo + s.wo;
  int ho = c->ho + s.ho;
  int n = c->n + s.n;
  if (wo >= p.wo) {
    wo -= p.wo;
    ho += 1;
  }
  if (ho >= p.ho) {
    ho -= p.ho;
    n += 1;
  }
  c->wo = wo;
  c->ho = ho;
  c->n = n;
  c->pos += s.pos;
}

// Byte offset of element [row][col] of an LDS tile with row_elems bf16 per row.
__device__ uint32_t lds_elem_offset(int row, int col, int row_elems) {
  return uint32_t(row * row_elems + col) * 2u;
}

// Store 4 channels of one GEMM-K position down a column: global memory is channel-contiguous,
// the LDS tiles are GEMM-K contiguous.
__device__ void lds_store_transposed(char* lds, uint32_t base, int row0, int col, int row_elems, bf16x4_t v) {
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    __bf16* dst = reinterpret_cast<__bf16*>(lds + base + lds_elem_offset(row0 + j, col, row_elems));
    *dst = v[j];
  }
}

// Buffer loads return zero for an offset outside the buffer: that is how padding is read.
constexpr uint32_t kInvalidOffset = 0x80000000u;

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
