#include <hip/hip_runtime.h>
report_clamped_eps();
__host__ __device__ effective_eps() { report_clamped_eps; }