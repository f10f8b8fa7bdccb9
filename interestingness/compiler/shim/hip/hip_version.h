// gpu-reduce HIP fallback shim -- used only when no ROCm install is available.
//
// hip/hip_version.h: the version macros a ROCm install generates at build time. The shim follows
// the API shape of ROCm 7.0 (see hip_runtime.h for where it differs), so it reports 7.0.0; code
// that needs to know it is not on a real ROCm can test __HIP_SHIM__ (hip/hip_common.h).
#ifndef HIP_VERSION_H
#define HIP_VERSION_H

#define HIP_VERSION_MAJOR 7
#define HIP_VERSION_MINOR 0
#define HIP_VERSION_PATCH 0
#define HIP_VERSION_GITHASH "gpu-reduce-shim"
#define HIP_VERSION_BUILD_ID 0
#define HIP_VERSION_BUILD_NAME "gpu-reduce HIP shim"
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)

#endif
