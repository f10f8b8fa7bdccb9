#include <hip/hip_runtime.h>
typedef __bf16 bf16x4_t __attribute__((ext_vector_type(4)));
typedef __bf16 bf16x8_t __attribute__((ext_vector_type(8)));
typedef float f32x16_t __attribute__((ext_vector_type(16)));
typedef unsigned u32x2_t __attribute__((ext_vector_type(2)));
struct ConvParams {
  int k_per_split;
};
__device__ void lds_store_transposed(char *lds, int row0, int col, bf16x4_t v) {
  for (int j = 0; j < 4; ++j) {
    __bf16 *dst = reinterpret_cast<__bf16 *>(lds + (row0 + j) * col);
    *dst = v[j];
  }
}
__device__ bf16x4_t buffer_load_bf16x4(__amdgpu_buffer_rsrc_t r,
                                       uint32_t byte_offset) {
  u32x2_t v = __builtin_amdgcn_raw_buffer_load_b64(r, byte_offset, 0, 0);
  return __builtin_bit_cast(bf16x4_t, v);
}
__device__ __forceinline__ void load_stage(__amdgpu_buffer_rsrc_t xb, int vec0,
                                           bf16x4_t(rb)[]) {
  for (int i = 0; i < 6; ++i) {
    int v = vec0 + i * 8;
    rb[i] = buffer_load_bf16x4(xb, v);
  }
}
__device__ __forceinline__ void store_stage(char *lds, int vec0, int p_local,
                                            bf16x4_t(rb)[]) {
  for (int i = 0; i < 8; ++i)
    lds_store_transposed(lds, vec0 + i * 8, p_local, 1);
  for (int i = 0; i < 6; ++i)
    lds_store_transposed(lds, i, 0, rb[i]);
}
__device__ void compute_stage(char *lds, f32x16_t(acc)[][3]) {
  for (int ks = 0; ks < 2; ++ks) {
    bf16x8_t a[4];
    for (int im = 0; im < 4; ++im) {
      int row = im;
      a[im] = row;
    }
    for (int jn = 0; jn < 3; ++jn) {
      int col = jn;
      bf16x8_t b = *lds + col;
      for (int im = 0; im < 4; ++im)
        acc[im][jn] = __builtin_amdgcn_mfma_f32_32x32x16_bf16(
            a[im], b, acc[im][jn], 0, 0, 0);
    }
  }
}
__global__ __launch_bounds__(256, 2) void wgrad_kernel(ConvParams p) {
  __shared__ __attribute__(()) char lds[57344];
  int tid = threadIdx.x;
  int num_stages = p.k_per_split;
  __amdgpu_buffer_rsrc_t xb =
      __builtin_amdgcn_make_buffer_rsrc(0, 0, 0, 0x00020000);
  f32x16_t acc[4][3];
  for (int e = 0; e < 16; ++e)
    acc[0][e] = 0.0f;
  int p_local = tid;
  int vec0 = tid;
  bf16x4_t rb[6];
  load_stage(xb, 1, rb);
  for (int s = 0; s < num_stages; ++s) {
    bool has_next = 1 < num_stages;
    if (has_next)
      load_stage(xb, vec0, rb);
    compute_stage(lds, acc);
    store_stage(lds, vec0, p_local, rb);
  }
  for (int im = 0; im < 4; ++im)
    for (int jn = 0; jn < 3; ++jn)
      for (int j = 0; j < 16; ++j)
        atomicAdd(0, acc[im][jn][j]);
}