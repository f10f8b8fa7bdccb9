// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
//
// tensor_view<T, Desc, Space>: a typed pointer plus a descriptor. Device code reads vectors
// through either a plain pointer (flat/global instructions) or a buffer resource built from
// the view (MUBUF, out-of-range offsets read zero).
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>

#include "mfconv/core/arch/amd_buffer_addressing.hpp"
#include "mfconv/core/arch/arch.hpp"
#include "mfconv/core/numeric/vector_type.hpp"
#include "mfconv/core/tensor/tensor_descriptor.hpp"

namespace mfconv {

template <typename D>
concept tensor_descriptor = requires(const D& d) {
    { D::rank } -> std::convertible_to<index_t>;
    { d.element_space_size() } -> std::convertible_to<long_index_t>;
    { d.stride(0) } -> std::convertible_to<long_index_t>;
};

template <typename T, tensor_descriptor Desc, address_space Space = address_space::global>
struct tensor_view
{
    using element_type    = T;
    using value_type      = std::remove_const_t<T>;
    using descriptor_type = Desc;
    static constexpr address_space space = Space;
    static constexpr index_t rank        = Desc::rank;

    T* data = nullptr;
    Desc desc{};

    MFCONV_HOST_DEVICE constexpr long_index_t element_space_size() const { return desc.element_space_size(); }

    MFCONV_HOST_DEVICE constexpr uint32_t buffer_bytes() const
    {
        return static_cast<uint32_t>(desc.element_space_size()) * static_cast<uint32_t>(sizeof(value_type));
    }

    // Byte offset of an element, 32 bits (the host guarantees that tensors are < 4 GiB).
    template <typename... Is>
    MFCONV_HOST_DEVICE constexpr uint32_t byte_offset(Is... is) const
    {
        return static_cast<uint32_t>(desc.offset(is...)) * static_cast<uint32_t>(sizeof(value_type));
    }

    MFCONV_DEVICE buffer_resource make_buffer() const
    {
        return make_wave_buffer_resource(data, static_cast<uint32_t>(desc.element_space_size() * sizeof(value_type)));
    }

    // Vector read through the pointer at a byte offset (no bounds check).
    template <typename V>
    MFCONV_DEVICE V get_vector_at(uint32_t byte_off) const
    {
        return *reinterpret_cast<const V*>(data + byte_off / sizeof(value_type));
    }

    template <typename V, typename... Is>
    MFCONV_DEVICE V get_vector(Is... is) const
    {
        return get_vector_at<V>(byte_offset(is...));
    }

    MFCONV_DEVICE value_type& at_element(uint32_t elem_off) const
        requires(!std::is_const_v<T>)
    {
        return data[elem_off];
    }
};

template <typename T, tensor_descriptor Desc>
MFCONV_HOST_DEVICE constexpr auto make_tensor_view(T* p, const Desc& d)
{
    return tensor_view<T, Desc, address_space::global>{p, d};
}

template <typename T>
using nhwc_view = tensor_view<T, nhwc_descriptor>;

template <typename T>
using kyxc_view = tensor_view<T, kyxc_descriptor>;

} // namespace mfconv
