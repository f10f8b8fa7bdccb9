// Raw buffer access helpers (CDNA). Out-of-range offsets return zero on loads and are
// dropped on stores, which is how the kernels implement padding without branches: an
// invalid element gets offset `kInvalidOffset`.
#pragma once

#include <hipconv/types.h>

namespace hipconv::cdna4 {

// Word 3 of the buffer descriptor for gfx9 (DATA_FORMAT=32, NUM_FORMAT=UINT).
constexpr int kBufferRsrcWord3 = 0x00020000;
constexpr uint32_t kInvalidOffset = 0x80000000u;

struct BufferResource {
  __amdgpu_buffer_rsrc_t rsrc;
};

HIPCONV_INLINE BufferResource make_buffer(const void* base, uint32_t bytes) {
  return {__builtin_amdgcn_make_buffer_rsrc(const_cast<void*>(base), 0, int(bytes), kBufferRsrcWord3)};
}

HIPCONV_INLINE bf16x8_t buffer_load_bf16x8(const BufferResource& r, uint32_t byte_offset) {
  u32x4_t v = __builtin_amdgcn_raw_buffer_load_b128(r.rsrc, int(byte_offset), 0, 0);
  return __builtin_bit_cast(bf16x8_t, v);
}

HIPCONV_INLINE bf16x4_t buffer_load_bf16x4(const BufferResource& r, uint32_t byte_offset) {
  u32x2_t v = __builtin_amdgcn_raw_buffer_load_b64(r.rsrc, int(byte_offset), 0, 0);
  return __builtin_bit_cast(bf16x4_t, v);
}

HIPCONV_INLINE float buffer_load_f32(const BufferResource& r, uint32_t byte_offset) {
  return __builtin_bit_cast(float, __builtin_amdgcn_raw_buffer_load_b32(r.rsrc, int(byte_offset), 0, 0));
}

HIPCONV_INLINE void buffer_store_f32x4(const BufferResource& r, uint32_t byte_offset, f32x4_t v) {
  __builtin_amdgcn_raw_buffer_store_b128(__builtin_bit_cast(u32x4_t, v), r.rsrc, int(byte_offset), 0, 0);
}

HIPCONV_INLINE uint32_t select_offset(bool valid, uint32_t byte_offset) {
  return valid ? byte_offset : kInvalidOffset;
}

} // namespace hipconv::cdna4
