// wgrad_tiny: the LTO-only register spill in the smallest case. One instantiation of the wgrad
// kernel of include/tiny/wgrad_kernel.h, the way a library's instance file has it.
#include <hip/hip_runtime.h>

#include "tiny/wgrad_kernel.h"

template void launch_wgrad<configs[1]>(const ConvParams&, const void*, const void*, float*, hipStream_t);
