#pragma once
/// \file
/// \brief Asking the current coroutine whether it has been cancelled.

#include <boost/asio/this_coro.hpp>

#include "reagent/core/task.hpp"

namespace reagent {

/// \brief True once the current thread of execution has received a cancellation request.
///
/// Drivers check this between steps so that a cancelled run ends with a result describing what was done,
/// rather than with Asio's `operation_aborted` exception at the next suspension.
[[nodiscard]] inline Task<bool> cancelled() {
    auto state = co_await boost::asio::this_coro::cancellation_state;
    co_return state.cancelled() != boost::asio::cancellation_type::none;
}

}  // namespace reagent
