// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// wgrad_xdl_kernel<T, C>: direct weight gradient with MFMA, 16-bit inputs, fp32 output.
//
// One workgroup computes a tile_m x tile_n block of dW for all filter taps (one accumulator
// set per tap) over its share of GEMM-K; see wgrad_pipeline.hpp for the main loop.
#pragma once

#include "mfconv/core.hpp"

#include "mfconv/conv/config/kernel_config.hpp"
#include "mfconv/conv/conv_kargs.hpp"
#include "mfconv/conv/wgrad/wgrad_coords.hpp"
#include "mfconv/conv/wgrad/wgrad_epilogue.hpp"
#include "mfconv/conv/wgrad/wgrad_lds_layout.hpp"
#include "mfconv/conv/wgrad/wgrad_pipeline.hpp"
#include "mfconv/core/arch/arch.hpp"
#include "mfconv/core/numeric/math.hpp"

namespace mfconv::conv::wgrad {

// Configurations the xdl wgrad kernel accepts for element type T.
template <kernel_config C, typename T>
concept xdl_wgrad_config = xdl_input_type<T> && C.threads() == 256 && (C.mem.vec == 4 || C.mem.vec == 8) &&
                           C.tile_k() <= C.threads() && C.lds_bytes(sizeof(T)) <= kGfx950LdsBytes &&
                           C.pipe.ring_depth() == 2 && C.lb.waves_per_eu >= 1;

template <xdl_input_type T, kernel_config C>
    requires xdl_wgrad_config<C, T>
__global__ MFCONV_KERNEL_ATTRIBUTES(C.threads(), C.lb.waves_per_eu) void wgrad_xdl_kernel(wgrad_kargs<T> kargs)
{
    using S   = pipeline_shape<T, C>;
    using L   = lds_layout<T, C>;
    using Acc = typename S::acc_t;
    using WG  = typename S::warp_gemm_t;
    __shared__ __attribute__((aligned(16))) char lds[L::kTotalBytes];

    const index_t tid  = get_thread_local_1d_id();
    const index_t lane = tid % kWaveSize;
    const index_t wave = get_warp_id();
    const index_t wm   = wave / C.block.waves.n;
    const index_t wn   = wave % C.block.waves.n;

    const block_work bw = make_block_work(kargs.geom, kargs.gemm, S::kTileM, S::kTileN);
    const index_t num_stages =
        bw.k_end > bw.k_begin ? integer_divide_ceil(bw.k_end - bw.k_begin, S::kTileK) : 0;

    const buffer_resource xb = kargs.x.make_buffer();
    const buffer_resource yb = kargs.dy.make_buffer();

    Acc acc[S::kTaps][S::kRepM][S::kRepN];
#pragma unroll
    for(index_t t = 0; t < S::kTaps; ++t)
#pragma unroll
        for(index_t im = 0; im < S::kRepM; ++im)
#pragma unroll
            for(index_t jn = 0; jn < S::kRepN; ++jn)
                acc[t][im][jn] = WG::zero();

    global_loader<T, C> g;
    g.init(kargs, bw, tid);
    stage_registers<T, C> regs;

    // Prologue.
    g.load(kargs, bw, xb, yb, regs);
    store_stage<T, C>(lds, 0, g, regs);
    block_sync_lds();

    // Main loop.
#pragma unroll 2
    for(index_t s = 0; s < num_stages; ++s)
    {
        const index_t buf     = s % L::kRing;
        const bool has_next   = s + 1 < num_stages;
        if(C.pipe.prefetch && has_next)
        {
            g.advance(kargs);
            g.load(kargs, bw, xb, yb, regs);
        }
        compute_stage<T, C>(lds, buf, wm, wn, lane, acc);
        if(has_next)
        {
            if(!C.pipe.prefetch)
            {
                g.advance(kargs);
                g.load(kargs, bw, xb, yb, regs);
            }
            store_stage<T, C>(lds, (s + 1) % L::kRing, g, regs);
        }
        block_sync_lds();
    }

    // Epilogue.
#pragma unroll
    for(index_t t = 0; t < S::kTaps; ++t)
#pragma unroll
        for(index_t im = 0; im < S::kRepM; ++im)
#pragma unroll
            for(index_t jn = 0; jn < S::kRepN; ++jn)
            {
                const index_t m_base = bw.m0 + (wm * S::kRepM + im) * WG::kM;
                const index_t c_base = bw.c0 + (wn * S::kRepN + jn) * WG::kN;
                store_accumulator_tile<WG, C.lb.split>(kargs, m_base, c_base, t, acc[t][im][jn]);
            }
}

} // namespace mfconv::conv::wgrad
