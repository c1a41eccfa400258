#pragma once
/// \file
/// \brief The error reported by the effect combinators themselves.

#include <boost/describe/enum.hpp>
#include <string_view>

#include "reagent/core/error.hpp"

namespace reagent {

/// \brief Why a combinator could not deliver its operation's own result.
enum class EffectErrc {
    /// The operation did not finish within its time limit and was cancelled.
    timeout,
    /// The caller cancelled the operation (or the whole run) before it finished or started.
    cancelled,
    /// The operation threw an exception; the message carries its `what()`.
    exception,
};
BOOST_DESCRIBE_ENUM(EffectErrc, timeout, cancelled, exception)

/// \brief The name of a code, as used in messages and logs (`"timeout"`, ...).
[[nodiscard]] std::string_view toString(EffectErrc code) noexcept;

/// \brief A combinator failure: a code and a message a person can act on.
using EffectError = Error<EffectErrc>;

}  // namespace reagent
