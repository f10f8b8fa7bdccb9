// Single-pass inclusive prefix sum with decoupled look-back, in the style of rocPRIM's
// lookback_scan_state / hipCUB's DeviceScan: blocks take an ordered id from a global counter
// (atomicAdd), scan their tile with __shfl_up wavefront scans and an LDS pass, publish their
// aggregate and later their inclusive prefix as 64-bit (status, value) words (atomicExch,
// __threadfence), and the first wavefront of each block walks back over its predecessors'
// words (atomicAdd(ptr, 0) as an atomic load) until it meets an inclusive prefix. A small init
// kernel resets the words; the launcher sizes the grid.
#include <hip/hip_runtime.h>

#include <cstdint>
#include <type_traits>

namespace scan {

enum class prefix_flag : uint32_t { empty = 0, partial = 1, complete = 2 };

struct lookback_state {
  unsigned long long* words;  // one per block: status in the high half, value bits in the low half
  unsigned int* tile_counter;

  __device__ static unsigned long long pack(prefix_flag f, uint32_t v) {
    return (static_cast<unsigned long long>(f) << 32) | v;
  }
  __device__ void publish(unsigned int tile, prefix_flag f, uint32_t v) const {
    __threadfence();
    atomicExch(words + tile, pack(f, v));
  }
  __device__ unsigned long long peek(unsigned int tile) const { return atomicAdd(words + tile, 0ull); }
};

template <unsigned int BlockSize, unsigned int ItemsPerThread>
struct tile_scan {
  static constexpr unsigned int warps = BlockSize / warpSize;
  static constexpr unsigned int items_per_tile = BlockSize * ItemsPerThread;
  struct storage_type {
    uint32_t warp_totals[warps];
    uint32_t block_prefix;
  };

  __device__ static uint32_t warp_inclusive_scan(uint32_t v) {
    const unsigned int lane = __lane_id();
#pragma unroll
    for (unsigned int d = 1; d < warpSize; d *= 2) {
      const uint32_t up = __shfl_up(v, d);
      if (lane >= d) v += up;
    }
    return v;
  }

  // Exclusive scan of one value per thread; returns the tile total through `total`.
  __device__ static uint32_t block_exclusive_scan(uint32_t v, uint32_t& total, storage_type& s) {
    const unsigned int lane = __lane_id();
    const unsigned int warp = threadIdx.x / warpSize;
    const uint32_t inclusive = warp_inclusive_scan(v);
    if (lane == warpSize - 1) s.warp_totals[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
      uint32_t t = lane < warps ? s.warp_totals[lane] : 0;
      t = warp_inclusive_scan(t);
      if (lane < warps) s.warp_totals[lane] = t;
    }
    __syncthreads();
    total = s.warp_totals[warps - 1];
    return inclusive - v + (warp == 0 ? 0 : s.warp_totals[warp - 1]);
  }

  // The first wavefront waits for its predecessors and returns the prefix of everything before `tile`.
  __device__ static uint32_t look_back(const lookback_state& state, unsigned int tile) {
    uint32_t prefix = 0;
    int pred = static_cast<int>(tile) - 1 - static_cast<int>(__lane_id());
    while (true) {
      unsigned long long w = pred >= 0 ? state.peek(pred) : lookback_state::pack(prefix_flag::complete, 0);
      auto flag = static_cast<prefix_flag>(w >> 32);
      if (__any(flag == prefix_flag::empty)) continue;  // someone not ready: poll again
      const unsigned long long complete = __ballot(flag == prefix_flag::complete);
      const int stop = complete ? __ffsll(static_cast<long long>(complete)) - 1 : warpSize;
      uint32_t v = static_cast<int>(__lane_id()) <= stop ? static_cast<uint32_t>(w) : 0u;
      for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_xor(v, offset);
      prefix += v;
      if (complete) return prefix;
      pred -= warpSize;
    }
  }
};

template <unsigned int BlockSize, unsigned int ItemsPerThread>
__global__ __launch_bounds__(BlockSize) void inclusive_scan_kernel(const uint32_t* __restrict__ in,
                                                                   uint32_t* __restrict__ out, uint32_t n,
                                                                   lookback_state state) {
  using scan_t = tile_scan<BlockSize, ItemsPerThread>;
  __shared__ typename scan_t::storage_type storage;
  __shared__ unsigned int tile_id;
  if (threadIdx.x == 0) tile_id = atomicAdd(state.tile_counter, 1u);
  __syncthreads();
  const unsigned int tile = tile_id;
  const uint32_t base = tile * scan_t::items_per_tile + threadIdx.x * ItemsPerThread;

  uint32_t items[ItemsPerThread];
  uint32_t thread_sum = 0;
#pragma unroll
  for (unsigned int i = 0; i < ItemsPerThread; ++i) {
    items[i] = base + i < n ? in[base + i] : 0u;
    thread_sum += items[i];
  }

  uint32_t tile_total;
  uint32_t prefix = scan_t::block_exclusive_scan(thread_sum, tile_total, storage);

  if (threadIdx.x < warpSize) {
    if (tile == 0) {
      if (threadIdx.x == 0) state.publish(0, prefix_flag::complete, tile_total);
      if (threadIdx.x == 0) storage.block_prefix = 0;
    } else {
      if (threadIdx.x == 0) state.publish(tile, prefix_flag::partial, tile_total);
      const uint32_t before = scan_t::look_back(state, tile);
      if (threadIdx.x == 0) {
        state.publish(tile, prefix_flag::complete, before + tile_total);
        storage.block_prefix = before;
      }
    }
  }
  __syncthreads();
  prefix += storage.block_prefix;

#pragma unroll
  for (unsigned int i = 0; i < ItemsPerThread; ++i) {
    prefix += items[i];
    if (base + i < n) out[base + i] = prefix;
  }
}

__global__ void init_lookback(lookback_state state, unsigned int tiles) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < tiles) state.words[i] = 0;
  if (i == 0) *state.tile_counter = 0;
}

hipError_t inclusive_scan(const uint32_t* in, uint32_t* out, uint32_t n, lookback_state state, hipStream_t stream) {
  constexpr unsigned int block_size = 256, items_per_thread = 4;
  const unsigned int tiles = (n + block_size * items_per_thread - 1) / (block_size * items_per_thread);
  hipLaunchKernelGGL(init_lookback, dim3((tiles + 255) / 256), dim3(256), 0, stream, state, tiles);
  hipLaunchKernelGGL(HIP_KERNEL_NAME(inclusive_scan_kernel<block_size, items_per_thread>), dim3(tiles),
                     dim3(block_size), 0, stream, in, out, n, state);
  return hipGetLastError();
}

}  // namespace scan
