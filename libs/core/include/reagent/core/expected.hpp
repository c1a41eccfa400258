#pragma once
/// \file
/// \brief The project's single alias for a value-or-error result (`tl::expected`).

#include <tl/expected.hpp>

namespace reagent {

/// \brief Either a `T` or an error `E`; errors travel as values, never as exceptions.
template <class T, class E>
using expected = tl::expected<T, E>;

using tl::unexpected;

/// \brief Wraps an error so it converts to any `expected<T, E>`.
template <class E>
[[nodiscard]] auto fail(E&& error) {
    return tl::make_unexpected(std::forward<E>(error));
}

}  // namespace reagent
