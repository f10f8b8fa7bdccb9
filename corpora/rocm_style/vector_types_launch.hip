// Vector-type kernels and their host driver, in the style of the rocm-examples and hipBLAS
// samples: float4 AXPY with scalar * vector operators, an RGBA (uchar4) to grey conversion with
// make_float3 / make_uchar4, a double2 complex multiply-accumulate, int2 2-D indexing, and a
// host program that queries the device, allocates, copies, times with events and launches every
// kernel with hipLaunchKernelGGL on a stream, checking each HIP call.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define HIP_CHECK(expression)                                                                  \
  do {                                                                                         \
    const hipError_t status = (expression);                                                    \
    if (status != hipSuccess) {                                                                \
      std::fprintf(stderr, "HIP error %d (%s) at %s:%d\n", static_cast<int>(status),           \
                   hipGetErrorString(status), __FILE__, __LINE__);                             \
      std::exit(EXIT_FAILURE);                                                                 \
    }                                                                                          \
  } while (false)

template <unsigned int BlockSize>
__global__ __launch_bounds__(BlockSize) void axpy4(float alpha, const float4* __restrict__ x,
                                                   float4* __restrict__ y, unsigned int n4) {
  const unsigned int i = blockIdx.x * BlockSize + threadIdx.x;
  if (i < n4) {
    float4 v = y[i];
    v += alpha * x[i];
    y[i] = v;
  }
}

__global__ void rgba_to_grey(const uchar4* __restrict__ rgba, unsigned char* __restrict__ grey, int2 size) {
  const int2 pos = make_int2(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y);
  if (pos.x >= size.x || pos.y >= size.y) return;
  const int index = pos.y * size.x + pos.x;
  const uchar4 p = rgba[index];
  const float3 weights = make_float3(0.299f, 0.587f, 0.114f);
  const float3 c = make_float3(p.x, p.y, p.z) * weights;
  grey[index] = static_cast<unsigned char>(fminf(c.x + c.y + c.z, 255.0f));
}

__device__ inline double2 cmul(double2 a, double2 b) { return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

__global__ void complex_mac(const double2* __restrict__ a, const double2* __restrict__ b, double2* __restrict__ c,
                            unsigned int n) {
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    c[i] += cmul(a[i], b[i]);
  }
}

int run_examples(unsigned int n) {
  hipDeviceProp_t props;
  HIP_CHECK(hipGetDeviceProperties(&props, 0));
  std::printf("%s (%s), %d CUs, warp size %d\n", props.name, props.gcnArchName, props.multiProcessorCount,
              props.warpSize);

  constexpr unsigned int block_size = 256;
  const unsigned int n4 = n / 4;
  std::vector<float4> hx(n4, make_float4(1.0f, 2.0f, 3.0f, 4.0f)), hy(n4, float4(0.5f));

  float4 *dx = nullptr, *dy = nullptr;
  HIP_CHECK(hipMalloc(&dx, n4 * sizeof(float4)));
  HIP_CHECK(hipMalloc(&dy, n4 * sizeof(float4)));
  hipStream_t stream;
  HIP_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  HIP_CHECK(hipMemcpyAsync(dx, hx.data(), n4 * sizeof(float4), hipMemcpyHostToDevice, stream));
  HIP_CHECK(hipMemcpyAsync(dy, hy.data(), n4 * sizeof(float4), hipMemcpyHostToDevice, stream));

  hipEvent_t start, stop;
  HIP_CHECK(hipEventCreate(&start));
  HIP_CHECK(hipEventCreate(&stop));
  HIP_CHECK(hipEventRecord(start, stream));
  hipLaunchKernelGGL(axpy4<block_size>, dim3((n4 + block_size - 1) / block_size), dim3(block_size), 0, stream, 2.0f,
                     dx, dy, n4);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipEventRecord(stop, stream));
  HIP_CHECK(hipEventSynchronize(stop));
  float ms = 0.0f;
  HIP_CHECK(hipEventElapsedTime(&ms, start, stop));

  const int2 image = make_int2(640, 480);
  uchar4* d_rgba = nullptr;
  unsigned char* d_grey = nullptr;
  HIP_CHECK(hipMalloc(&d_rgba, image.x * image.y * sizeof(uchar4)));
  HIP_CHECK(hipMalloc(&d_grey, image.x * image.y));
  HIP_CHECK(hipMemset(d_rgba, 0x7f, image.x * image.y * sizeof(uchar4)));
  const dim3 block2d(16, 16);
  const dim3 grid2d((image.x + block2d.x - 1) / block2d.x, (image.y + block2d.y - 1) / block2d.y);
  hipLaunchKernelGGL(rgba_to_grey, grid2d, block2d, 0, stream, d_rgba, d_grey, image);
  HIP_CHECK(hipGetLastError());

  double2* d_c = nullptr;
  HIP_CHECK(hipMalloc(&d_c, 3 * n * sizeof(double2)));
  hipLaunchKernelGGL(complex_mac, dim3(props.multiProcessorCount * 4), dim3(block_size), 0, stream, d_c, d_c + n,
                     d_c + 2 * n, n);
  HIP_CHECK(hipGetLastError());

  HIP_CHECK(hipMemcpy(hy.data(), dy, n4 * sizeof(float4), hipMemcpyDeviceToHost));
  HIP_CHECK(hipStreamSynchronize(stream));
  std::printf("axpy4: %.3f ms, y[0] = (%g, %g, %g, %g)\n", ms, hy[0].x, hy[0].y, hy[0].z, hy[0].w);

  HIP_CHECK(hipEventDestroy(start));
  HIP_CHECK(hipEventDestroy(stop));
  HIP_CHECK(hipStreamDestroy(stream));
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dy));
  HIP_CHECK(hipFree(d_rgba));
  HIP_CHECK(hipFree(d_grey));
  HIP_CHECK(hipFree(d_c));
  return 0;
}
