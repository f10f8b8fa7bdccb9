// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// The software pipeline of the xdl wgrad kernels: global -> registers -> LDS -> MFMA.
//
//   prologue:  load stage 0 into registers, store it to LDS[0], barrier
//   stage s:   load stage s+1 into registers        (in flight during the MFMAs, prefetch)
//              MFMAs of stage s from LDS[s % ring]
//              store the registers to LDS[(s+1) % ring] (transposed)
//              barrier
#pragma once

#include "mfconv/core.hpp"

#include <type_traits>

#include "mfconv/conv/config/kernel_config.hpp"
#include "mfconv/conv/conv_kargs.hpp"
#include "mfconv/conv/wgrad/wgrad_coords.hpp"
#include "mfconv/conv/wgrad/wgrad_lds_layout.hpp"
#include "mfconv/core/arch/amd_buffer_addressing.hpp"
#include "mfconv/core/arch/mfma.hpp"
#include "mfconv/core/numeric/vector_type.hpp"

namespace mfconv::conv::wgrad {

// Derived compile-time shape of one kernel instance.
template <typename T, kernel_config C>
struct pipeline_shape
{
    using warp_gemm_t = warp_gemm<T, C.mma>;
    using acc_t       = typename warp_gemm_t::acc_t;
    using frag_t      = typename warp_gemm_t::frag_t;

    static constexpr index_t kTaps    = C.taps();
    static constexpr index_t kThreads = C.threads();
    static constexpr index_t kTileM   = C.tile_m();
    static constexpr index_t kTileN   = C.tile_n();
    static constexpr index_t kTileK   = C.tile_k();
    static constexpr index_t kRepM    = C.block.rep.m;
    static constexpr index_t kRepN    = C.block.rep.n;
    static constexpr index_t kVec     = C.mem.vec;
    using vec_t                       = ext_vector_t<T, kVec>;

    // Global -> register mapping: GEMM-K position fastest across lanes (so that the
    // transposed LDS stores of a wave hit consecutive addresses), channel vectors slowest.
    static constexpr index_t kAVecs     = C.global_vectors_a();
    static constexpr index_t kBVecs     = C.global_vectors_b();
    static constexpr bool kAFull        = kTileK * kTileM / kVec % kThreads == 0;
    static constexpr bool kBFull        = kTileK * kTileN / kVec % kThreads == 0;
    static constexpr index_t kVecStride = kThreads / kTileK;

    static_assert(kVec == 4 || kVec == 8, "global loads are dwordx2 or dwordx4");
    static_assert(kThreads == 256, "xdl wgrad kernels are written for four waves");
    static_assert(kTileK <= kThreads, "one GEMM-K position per thread and stage");
};

template <typename T, kernel_config C>
using acc_tile_t = typename pipeline_shape<T, C>::acc_t[C.taps()][C.block.rep.m][C.block.rep.n];

// Registers of one stage between global memory and LDS.
template <typename T, kernel_config C>
struct stage_registers
{
    using S = pipeline_shape<T, C>;
    typename S::vec_t a[S::kAVecs];
    typename S::vec_t b[S::kTaps][S::kBVecs];
};

// Per-thread state of the global loads.
template <typename T, kernel_config C>
struct global_loader
{
    using S = pipeline_shape<T, C>;

    gemm_k_coord coord;
    gemm_k_step step;
    index_t p_local; // position inside the stage
    index_t a_vec0;  // first dy channel vector of this thread
    index_t b_vec0;  // first x channel vector of this thread

    MFCONV_FORCEINLINE void init(const wgrad_kargs<T>& ka, const block_work& bw, index_t tid)
    {
        p_local = tid % S::kTileK;
        a_vec0  = tid / S::kTileK;
        b_vec0  = tid / S::kTileK;
        coord   = decompose_gemm_k(ka.gemm, bw.k_begin + p_local);
        step    = make_gemm_k_step(ka.gemm, S::kTileK);
    }

    template <index_t N>
    MFCONV_FORCEINLINE static ext_vector_t<T, N> load_vector(const buffer_resource& r, uint32_t off)
    {
        return buffer_load<ext_vector_t<T, N>>(r, off);
    }

    MFCONV_FORCEINLINE void load(const wgrad_kargs<T>& ka, const block_work& bw, const buffer_resource& xb,
                                 const buffer_resource& yb, stage_registers<T, C>& r) const
    {
        constexpr index_t kVecsPerRowA = S::kTileM / S::kVec;
        constexpr index_t kVecsPerRowB = S::kTileN / S::kVec;
        const bool pos_ok              = coord.pos < bw.k_end;
#pragma unroll
        for(index_t i = 0; i < S::kAVecs; ++i)
        {
            const index_t v = a_vec0 + i * S::kVecStride;
            const index_t m = bw.m0 + v * S::kVec;
            const bool ok   = pos_ok && (S::kAFull || v < kVecsPerRowA) && output_channel_valid(ka.geom, m);
            const uint32_t off = ka.dy.byte_offset(coord.n, coord.ho, coord.wo, m);
            if constexpr(C.mem.dy_buffer)
                r.a[i] = load_vector<S::kVec>(yb, buffer_offset_or_invalid(ok, off));
            else
                r.a[i] = ok ? ka.dy.template get_vector_at<typename S::vec_t>(off) : typename S::vec_t{};
        }
        const input_window w = make_input_window(ka.geom, ka.x.desc, coord, bw.c0, bw.k_end, sizeof(T));
#pragma unroll
        for(index_t t = 0; t < S::kTaps; ++t)
        {
            const uint32_t toff = tap_byte_offset(ka.geom, ka.x.desc, w, t / C.filter.x, t % C.filter.x, sizeof(T));
#pragma unroll
            for(index_t i = 0; i < S::kBVecs; ++i)
            {
                const index_t v = b_vec0 + i * S::kVecStride;
                const bool ok   = (S::kBFull || v < kVecsPerRowB) && input_channel_valid(ka.geom, bw.c0 + v * S::kVec);
                r.b[t][i] = load_vector<S::kVec>(xb, ok ? toff + static_cast<uint32_t>(v * S::kVec * sizeof(T))
                                                        : kInvalidOffset);
            }
        }
    }

    MFCONV_FORCEINLINE void advance(const wgrad_kargs<T>& ka) { move_gemm_k_coord(ka.geom, step, &coord); }
};

// Registers -> LDS stage `buf` (transposed column stores).
template <typename T, kernel_config C>
MFCONV_FORCEINLINE void store_stage(char* lds, index_t buf, const global_loader<T, C>& g,
                                    const stage_registers<T, C>& r)
{
    using S = pipeline_shape<T, C>;
    using L = lds_layout<T, C>;
#pragma unroll
    for(index_t i = 0; i < S::kAVecs; ++i)
    {
        const index_t v = g.a_vec0 + i * S::kVecStride;
        if(S::kAFull || v < S::kTileM / S::kVec)
            lds_store_column<T, S::kVec>(lds, L::a_base(buf), v * S::kVec, g.p_local, L::kRow, r.a[i]);
    }
#pragma unroll
    for(index_t t = 0; t < S::kTaps; ++t)
    {
#pragma unroll
        for(index_t i = 0; i < S::kBVecs; ++i)
        {
            const index_t v = g.b_vec0 + i * S::kVecStride;
            if(S::kBFull || v < S::kTileN / S::kVec)
                lds_store_column<T, S::kVec>(lds, L::b_base(buf, t), v * S::kVec, g.p_local, L::kRow, r.b[t][i]);
        }
    }
}

// All MFMAs of one stage. With taps_inner the k-steps are the outer loop and the A
// fragments are read once per k-step for all taps; otherwise taps are outer and A is
// re-read per tap (fewer live registers, more LDS traffic).
template <typename T, kernel_config C>
MFCONV_FORCEINLINE void compute_stage(const char* lds, index_t buf, index_t wm, index_t wn, index_t lane,
                                      acc_tile_t<T, C>& acc)
{
    using S  = pipeline_shape<T, C>;
    using L  = lds_layout<T, C>;
    using WG = typename S::warp_gemm_t;
    using F  = typename S::frag_t;
    const index_t frow = WG::frag_row(lane);
    const index_t fk   = WG::frag_k(lane);
    if constexpr(C.pipe.taps_inner)
    {
#pragma unroll
        for(index_t ks = 0; ks < C.block.k_steps; ++ks)
        {
            F a[S::kRepM];
#pragma unroll
            for(index_t im = 0; im < S::kRepM; ++im)
            {
                const index_t row = (wm * S::kRepM + im) * WG::kM + frow;
                a[im]             = lds_load<F>(lds, L::a_base(buf) + L::frag_offset(row, ks * WG::kK + fk));
            }
#pragma unroll
            for(index_t t = 0; t < S::kTaps; ++t)
            {
#pragma unroll
                for(index_t jn = 0; jn < S::kRepN; ++jn)
                {
                    const index_t col = (wn * S::kRepN + jn) * WG::kN + frow;
                    const F b = lds_load<F>(lds, L::b_base(buf, t) + L::frag_offset(col, ks * WG::kK + fk));
#pragma unroll
                    for(index_t im = 0; im < S::kRepM; ++im)
                        acc[t][im][jn] = WG::run(a[im], b, acc[t][im][jn]);
                }
            }
        }
    }
    else
    {
#pragma unroll
        for(index_t t = 0; t < S::kTaps; ++t)
        {
#pragma unroll
            for(index_t ks = 0; ks < C.block.k_steps; ++ks)
            {
#pragma unroll
                for(index_t jn = 0; jn < S::kRepN; ++jn)
                {
                    const index_t col = (wn * S::kRepN + jn) * WG::kN + frow;
                    const F b = lds_load<F>(lds, L::b_base(buf, t) + L::frag_offset(col, ks * WG::kK + fk));
#pragma unroll
                    for(index_t im = 0; im < S::kRepM; ++im)
                    {
                        const index_t row = (wm * S::kRepM + im) * WG::kM + frow;
                        const F a = lds_load<F>(lds, L::a_base(buf) + L::frag_offset(row, ks * WG::kK + fk));
                        acc[t][im][jn] = WG::run(a, b, acc[t][im][jn]);
                    }
                }
            }
        }
    }
}

} // namespace mfconv::conv::wgrad
