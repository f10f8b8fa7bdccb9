// SPDX-License-Identifier: MIT
// Copyright (c) 2024-2025 The mfconv authors.
#pragma once

#include <concepts>
#include <type_traits>
#include <utility>

#include "mfconv/core/config.hpp"

namespace mfconv {

template <typename T>
using remove_cvref_t = std::remove_cv_t<std::remove_reference_t<T>>;

template <typename T>
using remove_pointer_t = std::remove_pointer_t<T>;

template <typename T, typename... Ts>
inline constexpr bool is_any_of_v = (std::is_same_v<T, Ts> || ...);

template <typename T, typename... Ts>
concept one_of = is_any_of_v<remove_cvref_t<T>, Ts...>;

template <typename T>
concept arithmetic = std::is_arithmetic_v<T> || std::same_as<T, _Float16> || std::same_as<T, __bf16>;

template <typename T>
concept trivially_copyable = std::is_trivially_copyable_v<T>;

// `T` is a pointer to device memory of some element type.
template <typename P>
concept device_pointer = std::is_pointer_v<P> && !std::is_function_v<std::remove_pointer_t<P>>;

// For diagnostics: a `static_assert(always_false<T>)` in a discarded `if constexpr` branch.
template <typename...>
inline constexpr bool always_false = false;

template <auto...>
inline constexpr bool always_false_v = false;

// Type identity that stops template argument deduction.
template <typename T>
struct type_identity
{
    using type = T;
};

template <typename T>
using non_deduced = typename type_identity<T>::type;

// A list of types.
template <typename... Ts>
struct type_list
{
    static constexpr std::size_t size = sizeof...(Ts);
};

template <std::size_t I, typename List>
struct type_at;

template <std::size_t I, typename T, typename... Ts>
struct type_at<I, type_list<T, Ts...>> : type_at<I - 1, type_list<Ts...>>
{
};

template <typename T, typename... Ts>
struct type_at<0, type_list<T, Ts...>>
{
    using type = T;
};

template <std::size_t I, typename List>
using type_at_t = typename type_at<I, List>::type;

template <typename T, typename List>
struct list_contains;

template <typename T, typename... Ts>
struct list_contains<T, type_list<Ts...>> : std::bool_constant<is_any_of_v<T, Ts...>>
{
};

} // namespace mfconv
