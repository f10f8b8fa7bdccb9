// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
#pragma once

#include "mfconv/core.hpp"

#include "mfconv/core/config.hpp"

namespace mfconv::host {

// Where and how to launch: the stream, and whether the caller wants the launch timed (the
// timed path needs the HIP runtime's events and is compiled only against a full ROCm).
struct stream_config
{
    hipStream_t stream = nullptr;
    bool time_kernel   = false;
    int log_level      = 0;
    int cold_niters    = 3;
    int nrepeat        = 10;
};

// Launch result: 0 means launched; the timed path returns milliseconds per launch.
struct launch_result
{
    bool launched      = false;
    float milliseconds = 0.0f;
    const char* reason = nullptr;

    MFCONV_HOST static launch_result ok(float ms = 0.0f) { return {true, ms, nullptr}; }
    MFCONV_HOST static launch_result skipped(const char* why) { return {false, 0.0f, why}; }
};

} // namespace mfconv::host
