// Minimal HIP runtime shim: enough of <hip/hip_runtime.h> to compile device code with
// `clang++ -x hip -nogpuinc -nogpulib` and no ROCm install. Only what kernels need to
// compile; nothing here runs on a GPU.
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))

// ROCm's expansion: clang's CUDA-style launch_bounds caps VGPRs at 128 and spills in both modes.
#define __HIP_LB_1(T) __attribute__((amdgpu_flat_work_group_size(1, T)))
#define __HIP_LB_2(T, W) __attribute__((amdgpu_flat_work_group_size(1, T), amdgpu_waves_per_eu(W)))
#define __HIP_LB_PICK(_1, _2, NAME, ...) NAME
#define __launch_bounds__(...) __HIP_LB_PICK(__VA_ARGS__, __HIP_LB_2, __HIP_LB_1, )(__VA_ARGS__)

typedef struct ihipStream_t* hipStream_t;
typedef enum hipError_t { hipSuccess = 0 } hipError_t;

struct dim3 {
  unsigned x, y, z;
  __host__ __device__ constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

#define __HIP_DIM(NAME, FN)                                                        \
  struct __hip_##NAME##_t {                                                        \
    __declspec(property(get = __get_x)) unsigned x;                                \
    __declspec(property(get = __get_y)) unsigned y;                                \
    __declspec(property(get = __get_z)) unsigned z;                                \
    static __device__ __forceinline__ unsigned __get_x() { return FN(x); }         \
    static __device__ __forceinline__ unsigned __get_y() { return FN(y); }         \
    static __device__ __forceinline__ unsigned __get_z() { return FN(z); }         \
  };                                                                               \
  extern const __device__ __hip_##NAME##_t NAME;

#define __HIP_TID(d) __builtin_amdgcn_workitem_id_##d()
#define __HIP_BID(d) __builtin_amdgcn_workgroup_id_##d()
#define __HIP_BDIM(d) __builtin_amdgcn_workgroup_size_##d()
#define __HIP_GDIM(d) (__builtin_amdgcn_grid_size_##d() / __builtin_amdgcn_workgroup_size_##d())
__HIP_DIM(threadIdx, __HIP_TID)
__HIP_DIM(blockIdx, __HIP_BID)
__HIP_DIM(blockDim, __HIP_BDIM)
__HIP_DIM(gridDim, __HIP_GDIM)

__device__ __forceinline__ void __syncthreads() { __builtin_amdgcn_s_barrier(); }

// Host side of `<<<...>>>`: declarations only, device-only compiles never call them.
extern "C" hipError_t __hipPushCallConfiguration(dim3 grid, dim3 block, unsigned long shmem = 0,
                                                 hipStream_t stream = nullptr);
extern "C" hipError_t __hipPopCallConfiguration(dim3* grid, dim3* block, unsigned long* shmem,
                                                hipStream_t* stream);
extern "C" hipError_t hipLaunchKernel(const void* f, dim3 grid, dim3 block, void** args,
                                      unsigned long shmem, hipStream_t stream);
