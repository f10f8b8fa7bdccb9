// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Launch helpers shared by the host-side entry points.
#pragma once

#include "mfconv/core.hpp"

#include <cstdint>

#include "mfconv/core/config.hpp"
#include "mfconv/host/stream_config.hpp"

namespace mfconv::host {

// Largest grid dimension the runtime accepts in y and z.
inline constexpr unsigned kMaxGridYZ = 65535u;

MFCONV_HOST constexpr bool grid_fits(dim3 g)
{
    return g.x >= 1 && g.y >= 1 && g.z >= 1 && g.y <= kMaxGridYZ && g.z <= kMaxGridYZ;
}

#define MFCONV_LAUNCH_OR_RETURN(kernel, grid, block, lds, stream, ...)                                              \
    do                                                                                                           \
    {                                                                                                            \
        if(!::mfconv::host::grid_fits(grid))                                                                     \
            return ::mfconv::host::launch_result::skipped("grid too large");                                   \
        hipLaunchKernelGGL(kernel, grid, block, lds, stream, __VA_ARGS__);                                       \
    } while(0)

} // namespace mfconv::host
