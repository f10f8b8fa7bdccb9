// Block-wide sum/max reduction in the style of rocPRIM / hipCUB: a warp reduction built on
// __shfl_xor (butterfly), a block reduction that combines one partial per warp through LDS, and a
// device-wide reduction kernel that reduces ITEMS_PER_THREAD items per thread and writes one
// partial per block. Explicitly instantiated for float and double, plus the host launcher.
#include <hip/hip_runtime.h>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace rs {
namespace detail {

template <class T>
struct plus {
  __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a + b; }
  static constexpr __host__ __device__ T identity() { return T(0); }
};

template <class T>
struct maximum {
  __device__ __forceinline__ T operator()(const T& a, const T& b) const { return a < b ? b : a; }
  static constexpr __host__ __device__ T identity() { return std::numeric_limits<T>::lowest(); }
};

constexpr bool is_power_of_two(unsigned int x) { return x && !(x & (x - 1)); }

}  // namespace detail

template <class T, unsigned int WarpSize = warpSize>
struct warp_reduce_xor {
  static_assert(detail::is_power_of_two(WarpSize), "WarpSize must be a power of two");

  template <class BinaryOp>
  __device__ __forceinline__ static T reduce(T value, BinaryOp op) {
#pragma unroll
    for (unsigned int mask = WarpSize / 2; mask > 0; mask >>= 1) {
      value = op(value, __shfl_xor(value, static_cast<int>(mask), WarpSize));
    }
    return value;  // every lane holds the result (all-reduce)
  }
};

template <class T, unsigned int BlockSize>
class block_reduce {
  static constexpr unsigned int warps = BlockSize / warpSize;
  static_assert(BlockSize % warpSize == 0, "BlockSize must be a multiple of the wavefront size");
  static_assert(warps <= warpSize, "one wavefront must be able to reduce the partials");

 public:
  struct storage_type {
    T partials[warps];
  };

  template <class BinaryOp>
  __device__ T reduce(T input, storage_type& storage, BinaryOp op) const {
    const unsigned int lane = __lane_id();
    const unsigned int warp_id = threadIdx.x / warpSize;

    T value = warp_reduce_xor<T>::reduce(input, op);
    if (lane == 0) storage.partials[warp_id] = value;
    __syncthreads();

    if (warp_id == 0) {
      value = lane < warps ? storage.partials[lane] : BinaryOp::identity();
      value = warp_reduce_xor<T, warps>::reduce(value, op);
    }
    return value;  // valid in thread 0
  }
};

template <unsigned int BlockSize, unsigned int ItemsPerThread, class T, class BinaryOp>
__global__ __launch_bounds__(BlockSize) void reduce_kernel(const T* __restrict__ input, T* __restrict__ partials,
                                                           std::size_t size, BinaryOp op) {
  using reduce_type = block_reduce<T, BlockSize>;
  __shared__ typename reduce_type::storage_type storage;

  constexpr unsigned int items_per_block = BlockSize * ItemsPerThread;
  const std::size_t block_offset = static_cast<std::size_t>(blockIdx.x) * items_per_block;

  T value = BinaryOp::identity();
#pragma unroll
  for (unsigned int i = 0; i < ItemsPerThread; ++i) {
    const std::size_t index = block_offset + i * BlockSize + threadIdx.x;
    if (index < size) value = op(value, input[index]);
  }

  value = reduce_type{}.reduce(value, storage, op);
  if (threadIdx.x == 0) partials[blockIdx.x] = value;
}

template <class T, class BinaryOp>
hipError_t reduce(const T* input, T* partials, std::size_t size, BinaryOp op, hipStream_t stream) {
  constexpr unsigned int block_size = 256;
  constexpr unsigned int items_per_thread = 8;
  const unsigned int blocks =
      static_cast<unsigned int>((size + block_size * items_per_thread - 1) / (block_size * items_per_thread));
  hipLaunchKernelGGL(HIP_KERNEL_NAME(reduce_kernel<block_size, items_per_thread, T, BinaryOp>), dim3(blocks),
                     dim3(block_size), 0, stream, input, partials, size, op);
  return hipGetLastError();
}

template hipError_t reduce<float, detail::plus<float>>(const float*, float*, std::size_t, detail::plus<float>,
                                                       hipStream_t);
template hipError_t reduce<double, detail::maximum<double>>(const double*, double*, std::size_t,
                                                            detail::maximum<double>, hipStream_t);

}  // namespace rs
