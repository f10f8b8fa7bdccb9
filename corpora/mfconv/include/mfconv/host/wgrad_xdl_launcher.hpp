// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Host entry point of the xdl weight-gradient kernels for one table entry:
//
//   template launch_result launch_wgrad_xdl<configs[i]>(const wgrad_args&, const stream_config&);
//
// is what every instance file (src/instances/wgrad_xdl_cNNN.hip) instantiates. It dispatches
// on the input type (fp16 / bf16: one kernel each), transposes NCHW inputs into the
// workspace first, and runs the split-K reduction and the output conversion when needed.
#pragma once

#include "mfconv/core.hpp"

#include "mfconv/conv/common/convert_kernel.hpp"
#include "mfconv/conv/common/layout_transform.hpp"
#include "mfconv/conv/config/config_name.hpp"
#include "mfconv/conv/config/make_configs.hpp"
#include "mfconv/conv/wgrad/wgrad_kernel.hpp"
#include "mfconv/conv/wgrad/wgrad_splitk_reduce.hpp"
#include "mfconv/host/conv_problem.hpp"
#include "mfconv/host/kernel_launch.hpp"
#include "mfconv/host/stream_config.hpp"
#include "mfconv/host/wgrad_args.hpp"
#include "mfconv/host/wgrad_heuristics.hpp"

namespace mfconv::host {

template <xdl_input_type T>
MFCONV_HOST conv::wgrad_kargs<T> make_wgrad_kargs(const conv_problem& p, const conv::kernel_config& c, index_t split_k,
                                                  const void* x, const void* dy, float* dw, float alpha, float beta)
{
    conv::wgrad_kargs<T> k{};
    k.geom          = p.geometry();
    k.gemm.gemm_k   = p.gemm_k();
    k.gemm.split_k  = split_k;
    k.gemm.k_per_split = integer_least_multiple(integer_divide_ceil(p.gemm_k(), split_k), c.tile_k());
    k.gemm.div_wo   = magic_divisor::make(static_cast<uint32_t>(p.wo()));
    k.gemm.div_ho   = magic_divisor::make(static_cast<uint32_t>(p.ho()));
    k.alpha         = alpha;
    k.beta          = beta;
    k.x             = make_tensor_view(static_cast<const T*>(x), p.x_descriptor());
    k.dy            = make_tensor_view(static_cast<const T*>(dy), p.dy_descriptor());
    k.dw            = make_tensor_view(dw, p.dw_descriptor());
    return k;
}

MFCONV_HOST constexpr dim3 wgrad_grid(const conv_problem& p, const conv::kernel_config& c, index_t split_k)
{
    const index_t tiles = integer_divide_ceil(p.k, c.tile_m()) * integer_divide_ceil(p.c, c.tile_n());
    return dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(split_k), 1u);
}

template <xdl_input_type T, conv::kernel_config C>
launch_result run_wgrad_xdl(const wgrad_args& a, const stream_config& s)
{
    const conv_problem& p = a.problem;
    const index_t split_k = a.split_k > 0 ? a.split_k : choose_split_k(C, p);
    const wgrad_workspace_layout ws = wgrad_workspace(p, C, split_k);
    if(ws.total > a.workspace_bytes)
        return launch_result::skipped("workspace too small");
    char* wsp = static_cast<char*>(a.workspace);

    // NCHW: transpose x and dy into the workspace.
    const void* x  = a.x;
    const void* dy = a.dy;
    if(p.format == tensor_format::nchw)
    {
        const conv::layout_transform_kargs tx{p.n, p.c, p.input[0] * p.input[1], a.x, wsp + ws.x_nhwc};
        const conv::layout_transform_kargs tdy{p.n, p.k, p.ho() * p.wo(), a.dy, wsp + ws.dy_nhwc};
        constexpr auto kDir = conv::transpose_direction::nchw_to_nhwc;
        const dim3 tblock(conv::kTransposeTile * conv::kTransposeRows);
        MFCONV_LAUNCH_OR_RETURN((conv::layout_transform_kernel<T, kDir>), conv::layout_transform_grid(tx, kDir), tblock,
                                0, s.stream, tx);
        MFCONV_LAUNCH_OR_RETURN((conv::layout_transform_kernel<T, kDir>), conv::layout_transform_grid(tdy, kDir),
                                tblock, 0, s.stream, tdy);
        x  = wsp + ws.x_nhwc;
        dy = wsp + ws.dy_nhwc;
    }

    float* dw_fp32 = p.out_type == data_type::f32 ? static_cast<float*>(a.dw) : reinterpret_cast<float*>(wsp + ws.dw_fp32);
    const bool use_partials = C.lb.split == conv::split_mode::workspace && split_k > 1;
    float* target = use_partials ? reinterpret_cast<float*>(wsp + ws.partials) : dw_fp32;

    const conv::wgrad_kargs<T> kargs = make_wgrad_kargs<T>(p, C, split_k, x, dy, target, use_partials ? 1.0f : a.alpha,
                                                           use_partials ? 0.0f : a.beta);
    MFCONV_LAUNCH_OR_RETURN((conv::wgrad::wgrad_xdl_kernel<T, C>), wgrad_grid(p, C, split_k), dim3(C.threads()), 0,
                            s.stream, kargs);

    if constexpr(C.lb.split == conv::split_mode::workspace)
    {
        if(use_partials)
        {
            const index_t elements = p.k * p.taps() * p.c;
            const conv::splitk_reduce_kargs rk{elements, split_k, a.alpha, a.beta, target, dw_fp32};
            const unsigned blocks = static_cast<unsigned>(integer_divide_ceil(elements, conv::wgrad::kSplitkReduceBlock * 4));
            MFCONV_LAUNCH_OR_RETURN((conv::wgrad::wgrad_splitk_reduce_kernel<4>), dim3(blocks),
                                    dim3(conv::wgrad::kSplitkReduceBlock), 0, s.stream, rk);
        }
    }

    if(p.out_type != data_type::f32)
    {
        const long_index_t elements = static_cast<long_index_t>(p.k) * p.taps() * p.c;
        const conv::convert_kargs ck{elements, 1.0f, dw_fp32, a.dw};
        const unsigned blocks =
            static_cast<unsigned>(integer_divide_ceil<long_index_t>(elements, conv::kConvertBlock * conv::kConvertItems));
        MFCONV_LAUNCH_OR_RETURN((conv::convert_output_kernel<T>), dim3(blocks), dim3(conv::kConvertBlock), 0, s.stream,
                                ck);
    }

    if(s.log_level > 0)
        (void)conv::config_name_v<C>.c_str();
    return launch_result::ok();
}

template <conv::kernel_config C>
launch_result launch_wgrad_xdl(const wgrad_args& a, const stream_config& s)
{
    if(!config_applicable(C, a.problem))
        return launch_result::skipped("config does not apply to the problem");
    if(a.deterministic && C.lb.split == conv::split_mode::atomic)
        return launch_result::skipped("atomics in deterministic mode");
    switch(a.problem.in_type)
    {
    case data_type::f16: return run_wgrad_xdl<half_t, C>(a, s);
    case data_type::bf16: return run_wgrad_xdl<bf16_t, C>(a, s);
    default: return launch_result::skipped("unsupported input type");
    }
}

} // namespace mfconv::host
