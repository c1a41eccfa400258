#pragma once
/// \file
/// \brief Asking the current coroutine whether it has been cancelled.

#include <boost/asio/cancellation_state.hpp>
#include <boost/asio/this_coro.hpp>

namespace reagent {

/// \brief True once the thread of execution owning `state` has received a cancellation request.
///
/// Use as `isCancelled(co_await boost::asio::this_coro::cancellation_state)`: awaiting the state is a
/// query, not an operation, so it never throws, whereas awaiting any coroutine after a cancellation
/// throws `operation_aborted`. Drivers check this between steps so that a cancelled run ends with a
/// result describing what was done.
[[nodiscard]] inline bool isCancelled(const boost::asio::cancellation_state& state) noexcept {
    return state.cancelled() != boost::asio::cancellation_type::none;
}

}  // namespace reagent
