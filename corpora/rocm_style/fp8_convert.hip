// FP8 quantisation kernels in the style of hipBLASLt / rocBLAS amax-and-scale epilogues:
// (1) float -> OCP e4m3 with a per-tensor scale, four values per thread through float4 loads and
//     __hip_fp8x4_e4m3 packs, plus the absolute maximum of the input (wavefront max via
//     __shfl_down, then a float atomicMax on the bit pattern, valid for non-negative values);
// (2) e5m2 -> half dequantisation with the inverse scale;
// (3) a templated cast between any two of float / __half / __hip_bfloat16 / e4m3 / e5m2.
// The OCP formats are gfx950's; the conversions use its v_cvt_pk_fp8_f32 family.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>
#include <hip/hip_fp8.h>

#include <cstdint>
#include <type_traits>

namespace quant {

constexpr int kBlockSize = 256;

__device__ inline float wave_max(float v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v = fmaxf(v, __shfl_down(v, offset));
  return v;
}

__global__ __launch_bounds__(kBlockSize) void quantize_e4m3(const float4* __restrict__ in,
                                                            __hip_fp8x4_e4m3* __restrict__ out,
                                                            float* __restrict__ amax, const float* __restrict__ scale,
                                                            uint32_t n4) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const float s = *scale;
  float local_amax = 0.0f;
  if (i < n4) {
    const float4 v = in[i];
    local_amax = fmaxf(fmaxf(fabsf(v.x), fabsf(v.y)), fmaxf(fabsf(v.z), fabsf(v.w)));
    out[i] = __hip_fp8x4_e4m3(v * s);  // saturating (ROCm's default for the fp8 types)
  }
  local_amax = wave_max(local_amax);
  if (__lane_id() == 0 && local_amax > 0.0f) {
    atomicMax(reinterpret_cast<unsigned int*>(amax), __float_as_uint(local_amax));
  }
}

__global__ __launch_bounds__(kBlockSize) void dequantize_e5m2(const __hip_fp8_e5m2* __restrict__ in,
                                                              __half* __restrict__ out, float inv_scale,
                                                              uint32_t n) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float v = static_cast<float>(in[i]);
    out[i] = __float2half(v * inv_scale);
  }
}

template <typename To, typename From>
__device__ inline To convert(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (std::is_same_v<To, float>) {
    if constexpr (std::is_same_v<From, __half>) return __half2float(x);
    else if constexpr (std::is_same_v<From, __hip_bfloat16>) return __bfloat162float(x);
    else return static_cast<float>(x);  // the fp8 types
  } else if constexpr (std::is_same_v<To, __half>) {
    return __float2half(convert<float>(x));
  } else if constexpr (std::is_same_v<To, __hip_bfloat16>) {
    return __float2bfloat16(convert<float>(x));
  } else {
    return To(convert<float>(x));  // -> fp8, saturating
  }
}

template <typename To, typename From>
__global__ __launch_bounds__(kBlockSize) void cast_kernel(const From* __restrict__ in, To* __restrict__ out,
                                                          uint32_t n) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = convert<To>(in[i]);
}

template <typename To, typename From>
hipError_t cast(const From* in, To* out, uint32_t n, hipStream_t stream) {
  cast_kernel<To, From><<<(n + kBlockSize - 1) / kBlockSize, kBlockSize, 0, stream>>>(in, out, n);
  return hipGetLastError();
}

template hipError_t cast<__hip_fp8_e4m3, __half>(const __half*, __hip_fp8_e4m3*, uint32_t, hipStream_t);
template hipError_t cast<__hip_fp8_e5m2, __hip_bfloat16>(const __hip_bfloat16*, __hip_fp8_e5m2*, uint32_t,
                                                         hipStream_t);
template hipError_t cast<float, __hip_fp8_e4m3>(const __hip_fp8_e4m3*, float*, uint32_t, hipStream_t);
template hipError_t cast<__hip_bfloat16, __hip_fp8_e5m2>(const __hip_fp8_e5m2*, __hip_bfloat16*, uint32_t,
                                                         hipStream_t);

}  // namespace quant
