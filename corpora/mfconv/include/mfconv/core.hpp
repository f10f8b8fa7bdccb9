// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// Everything in mfconv/core. Kernel headers include this rather than picking headers one by
// one, so that a header added to core is visible everywhere.
#pragma once

#include "mfconv/core/config.hpp"
#include "mfconv/core/hip_compat.hpp"
#include "mfconv/core/arch/amd_buffer_addressing.hpp"
#include "mfconv/core/arch/arch.hpp"
#include "mfconv/core/arch/dpp.hpp"
#include "mfconv/core/arch/lds.hpp"
#include "mfconv/core/arch/mfma.hpp"
#include "mfconv/core/container/sequence.hpp"
#include "mfconv/core/numeric/bfloat16.hpp"
#include "mfconv/core/numeric/half.hpp"
#include "mfconv/core/numeric/integer.hpp"
#include "mfconv/core/numeric/integral_constant.hpp"
#include "mfconv/core/numeric/math.hpp"
#include "mfconv/core/numeric/numeric.hpp"
#include "mfconv/core/numeric/type_convert.hpp"
#include "mfconv/core/numeric/vector_type.hpp"
#include "mfconv/core/tensor/layout.hpp"
#include "mfconv/core/tensor/tensor_descriptor.hpp"
#include "mfconv/core/tensor/tensor_view.hpp"
#include "mfconv/core/utility/bit_cast.hpp"
#include "mfconv/core/utility/functional.hpp"
#include "mfconv/core/utility/magic_division.hpp"
#include "mfconv/core/utility/type_traits.hpp"
