// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Epilogue of the xdl wgrad kernels: scale the per-tap accumulators and write, or atomically
// add, them into dW[k][y][x][c] (fp32), or into the split-K workspace.
#pragma once

#include "mfconv/core.hpp"

#include "mfconv/conv/config/kernel_config.hpp"
#include "mfconv/conv/conv_kargs.hpp"
#include "mfconv/core/arch/arch.hpp"
#include "mfconv/core/arch/mfma.hpp"

namespace mfconv::conv::wgrad {

// Element offset of dW[m][tap][ch] (taps flattened, KYXC).
MFCONV_DEVICE_EXTERN uint32_t dw_element_offset(const conv_geometry& g, const kyxc_descriptor& wd, index_t m,
                                                index_t tap, index_t ch)
{
    return static_cast<uint32_t>(m * static_cast<index_t>(wd.stride(0)) + tap * g.c + ch);
}

MFCONV_DEVICE_EXTERN float scale_output(float alpha, float v) { return alpha * v; }

MFCONV_DEVICE_EXTERN void store_output(float* dw, uint32_t off, float v, split_mode mode)
{
    if(mode == split_mode::atomic)
        __hip_atomic_fetch_add(dw + off, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    else
        dw[off] = v;
}

MFCONV_DEVICE_EXTERN void store_output_beta(float beta, float* dw, uint32_t off, float v)
{
    // Without split-K only: read-modify-write of the previous gradient.
    dw[off] = beta != 0.0f ? v + beta * dw[off] : v;
}

// Write one MFMA accumulator tile of tap `tap`.
template <typename WarpGemm, split_mode Mode, typename T>
MFCONV_FORCEINLINE void store_accumulator_tile(const wgrad_kargs<T>& ka, index_t m_base, index_t c_base,
                                               index_t tap, typename WarpGemm::acc_t acc)
{
    const index_t lane = get_lane_id();
    const index_t ch   = c_base + WarpGemm::acc_col(lane);
    if(ch >= ka.geom.c)
        return;
#pragma unroll
    for(index_t j = 0; j < WarpGemm::kAccElems; ++j)
    {
        const index_t m = m_base + WarpGemm::acc_row(lane, j);
        if(m < ka.geom.k)
        {
            const float v      = scale_output(ka.alpha, acc[j]);
            const uint32_t off = dw_element_offset(ka.geom, ka.dw.desc, m, tap, ch);
            if constexpr(Mode == split_mode::none)
                store_output_beta(ka.beta, ka.dw.data, off, v);
            else
                store_output(ka.dw.data, off, v, Mode);
        }
    }
}

} // namespace mfconv::conv::wgrad
