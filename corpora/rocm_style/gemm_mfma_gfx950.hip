// A half / bfloat16 GEMM tile for gfx950 in the style of composable_kernel: a GridwiseGemm
// policy struct (tile sizes as static constexpr members), an MFMA wrapper selected by data type
// (__builtin_amdgcn_mfma_f32_32x32x16_f16 / _bf16, gfx950's 16-deep K), LDS staging with 128-bit
// loads, a 64x64 block tile of four 32x32 wave tiles, and a scaled epilogue that converts the fp32
// accumulators with __float2half / __float2bfloat16. Explicit instances for both types, and the
// host-side launcher.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>

#include <cstdint>
#include <type_traits>

namespace tile {

using index_t = int32_t;
using half_t = _Float16;
using bhalf_t = __bf16;
template <typename T, index_t N>
using vector_t = T __attribute__((ext_vector_type(N)));
using floatx16_t = vector_t<float, 16>;

template <typename T>
struct mfma_32x32x16;

template <>
struct mfma_32x32x16<half_t> {
  using operand_t = vector_t<half_t, 8>;
  __device__ static floatx16_t run(const operand_t& a, const operand_t& b, const floatx16_t& c) {
    return __builtin_amdgcn_mfma_f32_32x32x16_f16(a, b, c, 0, 0, 0);
  }
};

template <>
struct mfma_32x32x16<bhalf_t> {
  using operand_t = vector_t<bhalf_t, 8>;
  __device__ static floatx16_t run(const operand_t& a, const operand_t& b, const floatx16_t& c) {
    return __builtin_amdgcn_mfma_f32_32x32x16_bf16(a, b, c, 0, 0, 0);
  }
};

// Storage type used by the public API -> compute type fed to the MFMA.
template <typename T>
struct compute_type;
template <>
struct compute_type<__half> {
  using type = half_t;
  __device__ static __half from_float(float v) { return __float2half(v); }
};
template <>
struct compute_type<__hip_bfloat16> {
  using type = bhalf_t;
  __device__ static __hip_bfloat16 from_float(float v) { return __float2bfloat16(v); }
};

struct GemmArgs {
  const void* a;  // M x K, row major
  const void* b;  // N x K, row major (B transposed)
  void* c;        // M x N, row major
  index_t m, n, k;
  index_t lda, ldb, ldc;
  float alpha;
};

template <typename DataType, index_t BlockSize = 256>
struct GridwiseGemm {
  using T = typename compute_type<DataType>::type;
  using mfma = mfma_32x32x16<T>;
  using operand_t = typename mfma::operand_t;

  static constexpr index_t MPerBlock = 64;
  static constexpr index_t NPerBlock = 64;
  static constexpr index_t KPerBlock = 32;
  static constexpr index_t MPerWave = 32;
  static constexpr index_t NPerWave = 32;
  static constexpr index_t KPerMfma = 16;
  static constexpr index_t WavesN = NPerBlock / NPerWave;
  static constexpr index_t VectorSize = 16 / sizeof(T);  // 128-bit global loads
  static constexpr index_t LdsPad = 8;                   // keeps the transposed reads bank-conflict free
  static_assert(BlockSize == (MPerBlock / MPerWave) * WavesN * warpSize, "one wave per 32x32 C tile");
  static_assert(MPerBlock * KPerBlock == BlockSize * VectorSize, "one vector load per thread and operand");

  struct SharedStorage {
    T a[MPerBlock][KPerBlock + LdsPad];
    T b[NPerBlock][KPerBlock + LdsPad];
  };

  __device__ static void load_tile(const T* __restrict__ src, index_t ld, index_t row0, index_t rows, index_t k0,
                                   index_t k, T (*dst)[KPerBlock + LdsPad]) {
    const index_t row = threadIdx.x / (KPerBlock / VectorSize);
    const index_t col = (threadIdx.x % (KPerBlock / VectorSize)) * VectorSize;
    vector_t<T, VectorSize> v{};
    if (row0 + row < rows && k0 + col + VectorSize <= k)
      v = *reinterpret_cast<const vector_t<T, VectorSize>*>(src + (row0 + row) * ld + k0 + col);
#pragma unroll
    for (index_t i = 0; i < VectorSize; ++i) dst[row][col + i] = v[i];
  }

  __device__ static void Run(const GemmArgs& args, SharedStorage& smem) {
    const T* __restrict__ a = static_cast<const T*>(args.a);
    const T* __restrict__ b = static_cast<const T*>(args.b);
    DataType* __restrict__ c = static_cast<DataType*>(args.c);

    const index_t wave = threadIdx.x / warpSize;
    const index_t lane = __lane_id();
    const index_t wave_m = (wave / WavesN) * MPerWave;
    const index_t wave_n = (wave % WavesN) * NPerWave;
    const index_t block_m = blockIdx.y * MPerBlock;
    const index_t block_n = blockIdx.x * NPerBlock;

    floatx16_t acc{};
    for (index_t k0 = 0; k0 < args.k; k0 += KPerBlock) {
      load_tile(a, args.lda, block_m, args.m, k0, args.k, smem.a);
      load_tile(b, args.ldb, block_n, args.n, k0, args.k, smem.b);
      __syncthreads();
#pragma unroll
      for (index_t kk = 0; kk < KPerBlock; kk += KPerMfma) {
        operand_t av, bv;
        const index_t kl = kk + (lane / 32) * 8;
#pragma unroll
        for (index_t i = 0; i < 8; ++i) {
          av[i] = smem.a[wave_m + lane % 32][kl + i];
          bv[i] = smem.b[wave_n + lane % 32][kl + i];
        }
        acc = mfma::run(av, bv, acc);
      }
      __syncthreads();
    }

    // 32x32 accumulator layout: element i of lane l is row (i/4)*8 + (l/32)*4 + i%4, column l%32.
#pragma unroll
    for (index_t i = 0; i < 16; ++i) {
      const index_t row = block_m + wave_m + (i / 4) * 8 + (lane / 32) * 4 + i % 4;
      const index_t col = block_n + wave_n + lane % 32;
      if (row < args.m && col < args.n) c[row * args.ldc + col] = compute_type<DataType>::from_float(args.alpha * acc[i]);
    }
  }
};

template <typename Gemm>
__global__ __launch_bounds__(256, 1) void kernel_gemm(GemmArgs args) {
  __shared__ typename Gemm::SharedStorage smem;
  Gemm::Run(args, smem);
}

template <typename DataType>
struct DeviceGemm {
  using Gemm = GridwiseGemm<DataType>;
  static hipError_t Run(const GemmArgs& args, hipStream_t stream) {
    const dim3 grid((args.n + Gemm::NPerBlock - 1) / Gemm::NPerBlock, (args.m + Gemm::MPerBlock - 1) / Gemm::MPerBlock);
    hipLaunchKernelGGL(kernel_gemm<Gemm>, grid, dim3(256), 0, stream, args);
    return hipPeekAtLastError();
  }
};

template struct DeviceGemm<__half>;
template struct DeviceGemm<__hip_bfloat16>;

}  // namespace tile
