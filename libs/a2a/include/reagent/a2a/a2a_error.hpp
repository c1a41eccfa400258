#pragma once
/// \file
/// \brief `A2aError`: why an A2A exchange failed.

#include <boost/describe/enum.hpp>
#include <string_view>

#include "reagent/core/error.hpp"

namespace reagent::a2a {

/// \brief Why an A2A call (client side) could not deliver what was asked.
enum class A2aErrc {
    /// The remote agent could not be reached: name not resolved, connection refused or closed early.
    unreachable,
    /// The call's deadline (`ClientOptions::timeout`) passed first; a task in flight was asked to cancel.
    timeout,
    /// The awaiting coroutine was cancelled; a task in flight was asked to cancel (`tasks/cancel`).
    cancelled,
    /// The Agent Card is missing, not JSON, or lacks a usable JSON-RPC interface (the message says which
    /// field).
    malformed_card,
    /// The remote's bytes are not the A2A JSON-RPC it announced: an HTTP error status, a body that is not
    /// JSON-RPC, a result of the wrong shape.
    protocol_error,
    /// The remote answered with a JSON-RPC error object; `a2a::rpcCode(error)` gives its code.
    remote_error,
    /// The remote task ended in state failed or rejected (the message carries the agent's words).
    task_failed,
    /// The remote task ended in state canceled.
    task_canceled,
};
BOOST_DESCRIBE_ENUM(A2aErrc, unreachable, timeout, cancelled, malformed_card, protocol_error, remote_error,
                    task_failed, task_canceled)

/// \brief The name of a code, as used in messages and logs (`"timeout"`, ...).
[[nodiscard]] std::string_view toString(A2aErrc code) noexcept;

/// \brief A failed A2A exchange: a code and a message a person can act on.
using A2aError = reagent::Error<A2aErrc>;

}  // namespace reagent::a2a
