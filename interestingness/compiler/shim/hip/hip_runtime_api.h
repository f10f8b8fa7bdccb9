// gpu-reduce HIP fallback shim -- used only when no ROCm install is available.
//
// hip/hip_runtime_api.h: the host API's types and declarations -- what host code that launches
// kernels names: hipError_t, hipStream_t, hipEvent_t, dim3, hipMemcpyKind, hipDeviceProp_t, and
// hipMalloc / hipMemcpy / hipStreamCreate / hipEventRecord / ... The oracle compiles device code
// only, so nothing here is ever called or linked: declarations are enough, and a program built
// against the shim has no runtime to link with.
//
// Simplified: a subset of ROCm's API (memory, streams, events, device queries, errors, occupancy,
// launch); hipDeviceProp_t has the commonly read fields, not ROCm's full R0600 layout; error codes
// have ROCm's values, device attributes do not; no textures, surfaces, graphs, modules, IPC or
// interop. The C++ template overloads (hipMalloc(T**, ...), hipMemcpyToSymbol(symbol, ...),
// hipLaunchKernel(kernel, ...), occupancy queries) are ROCm's conveniences.
#ifndef HIP_INCLUDE_HIP_HIP_RUNTIME_API_H
#define HIP_INCLUDE_HIP_HIP_RUNTIME_API_H

#include "hip_common.h"
#include "hip_version.h"
#include "amd_detail/host_defines.h"

#include <stddef.h>
#include <stdint.h>

typedef struct ihipStream_t* hipStream_t;
typedef struct ihipEvent_t* hipEvent_t;
typedef struct ihipModule_t* hipModule_t;
typedef struct ihipModuleSymbol_t* hipFunction_t;
typedef struct ihipCtx_t* hipCtx_t;
typedef struct ihipMemPoolHandle_t* hipMemPool_t;
typedef void* hipDeviceptr_t;
typedef int hipDevice_t;

typedef enum hipError_t {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorMemoryAllocation = 2,
  hipErrorNotInitialized = 3,
  hipErrorInitializationError = 3,
  hipErrorDeinitialized = 4,
  hipErrorInvalidConfiguration = 9,
  hipErrorInvalidPitchValue = 12,
  hipErrorInvalidSymbol = 13,
  hipErrorInvalidDevicePointer = 17,
  hipErrorInvalidMemcpyDirection = 21,
  hipErrorInsufficientDriver = 35,
  hipErrorMissingConfiguration = 52,
  hipErrorPriorLaunchFailure = 53,
  hipErrorInvalidDeviceFunction = 98,
  hipErrorNoDevice = 100,
  hipErrorInvalidDevice = 101,
  hipErrorInvalidImage = 200,
  hipErrorInvalidContext = 201,
  hipErrorNoBinaryForGpu = 209,
  hipErrorInvalidKernelFile = 218,
  hipErrorInvalidSource = 300,
  hipErrorFileNotFound = 301,
  hipErrorInvalidHandle = 400,
  hipErrorInvalidResourceHandle = 400,
  hipErrorNotFound = 500,
  hipErrorNotReady = 600,
  hipErrorIllegalAddress = 700,
  hipErrorLaunchOutOfResources = 701,
  hipErrorLaunchTimeOut = 702,
  hipErrorPeerAccessAlreadyEnabled = 704,
  hipErrorPeerAccessNotEnabled = 705,
  hipErrorLaunchFailure = 719,
  hipErrorCooperativeLaunchTooLarge = 720,
  hipErrorNotSupported = 801,
  hipErrorUnknown = 999,
} hipError_t;

struct dim3 {
  unsigned x, y, z;
  __host__ __device__ constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

typedef enum hipMemcpyKind {
  hipMemcpyHostToHost = 0,
  hipMemcpyHostToDevice = 1,
  hipMemcpyDeviceToHost = 2,
  hipMemcpyDeviceToDevice = 3,
  hipMemcpyDefault = 4,
} hipMemcpyKind;

// Enumerator values are the shim's own (ROCm numbers them by position in a long list).
typedef enum hipDeviceAttribute_t {
  hipDeviceAttributeEccEnabled,
  hipDeviceAttributeCanMapHostMemory,
  hipDeviceAttributeClockRate,
  hipDeviceAttributeComputeCapabilityMajor,
  hipDeviceAttributeComputeCapabilityMinor,
  hipDeviceAttributeL2CacheSize,
  hipDeviceAttributeMaxBlockDimX,
  hipDeviceAttributeMaxGridDimX,
  hipDeviceAttributeMaxSharedMemoryPerBlock,
  hipDeviceAttributeMaxSharedMemoryPerMultiprocessor,
  hipDeviceAttributeMaxThreadsPerBlock,
  hipDeviceAttributeMaxThreadsPerMultiProcessor,
  hipDeviceAttributeMemoryBusWidth,
  hipDeviceAttributeMemoryClockRate,
  hipDeviceAttributeMultiprocessorCount,
  hipDeviceAttributeSharedMemPerBlockOptin,
  hipDeviceAttributeTotalConstantMemory,
  hipDeviceAttributeWarpSize,
} hipDeviceAttribute_t;

typedef struct hipUUID_t {
  char bytes[16];
} hipUUID;

// The fields host code commonly reads; ROCm's struct has many more.
typedef struct hipDeviceProp_t {
  char name[256];
  hipUUID uuid;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  size_t totalConstMem;
  int major;
  int minor;
  int multiProcessorCount;
  int integrated;
  int canMapHostMemory;
  int computeMode;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryClockRate;
  int memoryBusWidth;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int cooperativeLaunch;
  size_t sharedMemPerBlockOptin;
  int maxBlocksPerMultiProcessor;
  char gcnArchName[256];
  size_t maxSharedMemoryPerMultiProcessor;
  int clockInstructionRate;
} hipDeviceProp_t;

typedef struct hipFuncAttributes {
  int binaryVersion;
  int cacheModeCA;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxDynamicSharedSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int preferredShmemCarveout;
  int ptxVersion;
  size_t sharedSizeBytes;
} hipFuncAttributes;

typedef enum hipFuncCache_t {
  hipFuncCachePreferNone = 0,
  hipFuncCachePreferShared = 1,
  hipFuncCachePreferL1 = 2,
  hipFuncCachePreferEqual = 3,
} hipFuncCache_t;

#define hipStreamDefault 0x00
#define hipStreamNonBlocking 0x01
#define hipEventDefault 0x0
#define hipEventBlockingSync 0x1
#define hipEventDisableTiming 0x2
#define hipEventInterprocess 0x4
#define hipHostMallocDefault 0x0
#define hipHostMallocPortable 0x1
#define hipHostMallocMapped 0x2
#define hipHostMallocWriteCombined 0x4
#define hipHostMallocNumaUser 0x20000000
#define hipHostMallocCoherent 0x40000000
#define hipHostMallocNonCoherent 0x80000000
#define hipHostRegisterDefault 0x0
#define hipHostRegisterPortable 0x1
#define hipHostRegisterMapped 0x2
#define hipMemAttachGlobal 0x01
#define hipMemAttachHost 0x02
#define hipDeviceScheduleAuto 0x0
#define hipDeviceScheduleSpin 0x1
#define hipDeviceScheduleYield 0x2
#define hipDeviceScheduleBlockingSync 0x4
#define hipDeviceMapHost 0x8
#define hipStreamPerThread ((hipStream_t)2)

// (The parameter names of these historical declarations are shielded from user macros.)
#pragma push_macro("grid")
#undef grid
#pragma push_macro("block")
#undef block
#pragma push_macro("shmem")
#undef shmem
#pragma push_macro("stream")
#undef stream
#pragma push_macro("f")
#undef f
#pragma push_macro("args")
#undef args
// Host side of `<<<...>>>`: declarations only, device-only compiles never call them.
extern "C" hipError_t __hipPushCallConfiguration(dim3 grid, dim3 block, unsigned long shmem = 0,
                                                 hipStream_t stream = nullptr);
extern "C" hipError_t __hipPopCallConfiguration(dim3* grid, dim3* block, unsigned long* shmem,
                                                hipStream_t* stream);
extern "C" hipError_t hipLaunchKernel(const void* f, dim3 grid, dim3 block, void** args,
                                      unsigned long shmem, hipStream_t stream);
#pragma pop_macro("grid")
#pragma pop_macro("block")
#pragma pop_macro("shmem")
#pragma pop_macro("stream")
#pragma pop_macro("f")
#pragma pop_macro("args")

extern "C" {
// errors
hipError_t hipGetLastError(void);
hipError_t hipPeekAtLastError(void);
const char* hipGetErrorString(hipError_t __error);
const char* hipGetErrorName(hipError_t __error);
// devices
hipError_t hipGetDeviceCount(int* __count);
hipError_t hipGetDevice(int* __device);
hipError_t hipSetDevice(int __device);
hipError_t hipGetDeviceProperties(hipDeviceProp_t* __prop, int __device);
hipError_t hipDeviceGetAttribute(int* __value, hipDeviceAttribute_t __attr, int __device);
hipError_t hipDeviceSynchronize(void);
hipError_t hipDeviceReset(void);
hipError_t hipSetDeviceFlags(unsigned __flags);
hipError_t hipDeviceCanAccessPeer(int* __can, int __device, int __peer);
hipError_t hipDeviceEnablePeerAccess(int __peer, unsigned int __flags);
hipError_t hipDriverGetVersion(int* __version);
hipError_t hipRuntimeGetVersion(int* __version);
hipError_t hipMemGetInfo(size_t* __free, size_t* __total);
// memory
hipError_t hipMalloc(void** __ptr, size_t __size);
hipError_t hipFree(void* __ptr);
hipError_t hipMallocManaged(void** __ptr, size_t __size, unsigned int __flags = hipMemAttachGlobal);
hipError_t hipHostMalloc(void** __ptr, size_t __size, unsigned int __flags = hipHostMallocDefault);
hipError_t hipHostFree(void* __ptr);
hipError_t hipHostRegister(void* __ptr, size_t __size, unsigned int __flags);
hipError_t hipHostUnregister(void* __ptr);
hipError_t hipHostGetDevicePointer(void** __dev, void* __host, unsigned int __flags);
hipError_t hipMallocAsync(void** __ptr, size_t __size, hipStream_t __stream = nullptr);
hipError_t hipFreeAsync(void* __ptr, hipStream_t __stream = nullptr);
hipError_t hipMallocPitch(void** __ptr, size_t* __pitch, size_t __width, size_t __height);
hipError_t hipMemcpy(void* __dst, const void* __src, size_t __bytes, hipMemcpyKind __kind);
hipError_t hipMemcpyAsync(void* __dst, const void* __src, size_t __bytes, hipMemcpyKind __kind,
                          hipStream_t __stream = nullptr);
hipError_t hipMemcpy2D(void* __dst, size_t __dpitch, const void* __src, size_t __spitch, size_t __width,
                       size_t __height, hipMemcpyKind __kind);
hipError_t hipMemcpy2DAsync(void* __dst, size_t __dpitch, const void* __src, size_t __spitch,
                            size_t __width, size_t __height, hipMemcpyKind __kind, hipStream_t __stream = nullptr);
hipError_t hipMemcpyHtoD(hipDeviceptr_t __dst, void* __src, size_t __bytes);
hipError_t hipMemcpyDtoH(void* __dst, hipDeviceptr_t __src, size_t __bytes);
hipError_t hipMemcpyDtoD(hipDeviceptr_t __dst, hipDeviceptr_t __src, size_t __bytes);
hipError_t hipMemcpyPeer(void* __dst, int __dst_device, const void* __src, int __src_device, size_t __bytes);
hipError_t hipMemcpyToSymbol(const void* __symbol, const void* __src, size_t __bytes, size_t __offset = 0,
                             hipMemcpyKind __kind = hipMemcpyHostToDevice);
hipError_t hipMemcpyToSymbolAsync(const void* __symbol, const void* __src, size_t __bytes, size_t __offset,
                                  hipMemcpyKind __kind, hipStream_t __stream = nullptr);
hipError_t hipMemcpyFromSymbol(void* __dst, const void* __symbol, size_t __bytes, size_t __offset = 0,
                               hipMemcpyKind __kind = hipMemcpyDeviceToHost);
hipError_t hipGetSymbolAddress(void** __ptr, const void* __symbol);
hipError_t hipMemset(void* __dst, int __value, size_t __bytes);
hipError_t hipMemsetAsync(void* __dst, int __value, size_t __bytes, hipStream_t __stream = nullptr);
hipError_t hipMemsetD32(hipDeviceptr_t __dst, int __value, size_t __count);
hipError_t hipMemsetD8(hipDeviceptr_t __dst, unsigned char __value, size_t __count);
hipError_t hipMemPrefetchAsync(const void* __ptr, size_t __bytes, int __device, hipStream_t __stream = nullptr);
// streams
hipError_t hipStreamCreate(hipStream_t* __stream);
hipError_t hipStreamCreateWithFlags(hipStream_t* __stream, unsigned int __flags);
hipError_t hipStreamCreateWithPriority(hipStream_t* __stream, unsigned int __flags, int __priority);
hipError_t hipStreamDestroy(hipStream_t __stream);
hipError_t hipStreamSynchronize(hipStream_t __stream);
hipError_t hipStreamQuery(hipStream_t __stream);
hipError_t hipStreamWaitEvent(hipStream_t __stream, hipEvent_t __event, unsigned int __flags = 0);
hipError_t hipDeviceGetStreamPriorityRange(int* __least, int* __greatest);
// events
hipError_t hipEventCreate(hipEvent_t* __event);
hipError_t hipEventCreateWithFlags(hipEvent_t* __event, unsigned __flags);
hipError_t hipEventRecord(hipEvent_t __event, hipStream_t __stream = nullptr);
hipError_t hipEventSynchronize(hipEvent_t __event);
hipError_t hipEventQuery(hipEvent_t __event);
hipError_t hipEventElapsedTime(float* __ms, hipEvent_t __start, hipEvent_t __stop);
hipError_t hipEventDestroy(hipEvent_t __event);
// kernels
hipError_t hipFuncGetAttributes(hipFuncAttributes* __attr, const void* __func);
hipError_t hipFuncSetCacheConfig(const void* __func, hipFuncCache_t __config);
hipError_t hipLaunchCooperativeKernel(const void* __func, dim3 __grid, dim3 __block, void** __args,
                                      unsigned int __shmem, hipStream_t __stream);
hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* __blocks, const void* __func, int __block_size,
                                                        size_t __shmem);
hipError_t hipOccupancyMaxPotentialBlockSize(int* __grid_size, int* __block_size, const void* __func,
                                             size_t __shmem, int __block_size_limit);
}  // extern "C"

// The C++ conveniences ROCm adds on top of the C API.
template <class __T>
static inline hipError_t hipMalloc(__T** __ptr, size_t __size) {
  return hipMalloc(reinterpret_cast<void**>(__ptr), __size);
}
template <class __T>
static inline hipError_t hipMallocManaged(__T** __ptr, size_t __size, unsigned int __flags = hipMemAttachGlobal) {
  return hipMallocManaged(reinterpret_cast<void**>(__ptr), __size, __flags);
}
template <class __T>
static inline hipError_t hipHostMalloc(__T** __ptr, size_t __size, unsigned int __flags = hipHostMallocDefault) {
  return hipHostMalloc(reinterpret_cast<void**>(__ptr), __size, __flags);
}
template <class __T>
static inline hipError_t hipMallocAsync(__T** __ptr, size_t __size, hipStream_t __stream = nullptr) {
  return hipMallocAsync(reinterpret_cast<void**>(__ptr), __size, __stream);
}
template <class __T>
static inline hipError_t hipMemcpyToSymbol(const __T& __symbol, const void* __src, size_t __bytes,
                                           size_t __offset = 0, hipMemcpyKind __kind = hipMemcpyHostToDevice) {
  return hipMemcpyToSymbol(static_cast<const void*>(&__symbol), __src, __bytes, __offset, __kind);
}
template <class __T>
static inline hipError_t hipMemcpyFromSymbol(void* __dst, const __T& __symbol, size_t __bytes,
                                             size_t __offset = 0, hipMemcpyKind __kind = hipMemcpyDeviceToHost) {
  return hipMemcpyFromSymbol(__dst, static_cast<const void*>(&__symbol), __bytes, __offset, __kind);
}
template <class __F>
static inline hipError_t hipLaunchKernel(__F __func, dim3 __grid, dim3 __block, void** __args, size_t __shmem,
                                         hipStream_t __stream) {
  return hipLaunchKernel(reinterpret_cast<const void*>(__func), __grid, __block, __args, __shmem, __stream);
}
template <class __F>
static inline hipError_t hipFuncGetAttributes(hipFuncAttributes* __attr, __F __func) {
  return hipFuncGetAttributes(__attr, reinterpret_cast<const void*>(__func));
}
template <class __F>
static inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int* __blocks, __F __func, int __block_size,
                                                                      size_t __shmem) {
  return hipOccupancyMaxActiveBlocksPerMultiprocessor(__blocks, reinterpret_cast<const void*>(__func),
                                                      __block_size, __shmem);
}
template <class __F>
static inline hipError_t hipOccupancyMaxPotentialBlockSize(int* __grid_size, int* __block_size, __F __func,
                                                           size_t __shmem = 0, int __block_size_limit = 0) {
  return hipOccupancyMaxPotentialBlockSize(__grid_size, __block_size, reinterpret_cast<const void*>(__func),
                                           __shmem, __block_size_limit);
}

#endif
