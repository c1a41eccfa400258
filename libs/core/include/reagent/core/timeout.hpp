#pragma once
/// \file
/// \brief `withTimeout`: run a task against a deadline.

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/effect_error.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/task.hpp"

namespace reagent {

namespace detail {

/// The stop signal of a task under a deadline, shared with the deadline's timer and the caller's
/// cancellation: a cancelled timer's handler runs after the race has returned.
struct DeadlineRace {
    boost::asio::cancellation_signal stop;
    bool expired = false;
};

}  // namespace detail

/// \brief Runs `task` against a timer of `limit`; when the timer expires first the task is cancelled and
/// awaited: `settle` with a deadline.
///
/// Asio 1.26 has no `cancel_after`. The task runs as a child of its own, bound to a stop signal that the
/// timer emits when it expires and that the caller's cancellation is forwarded to; its exception comes back
/// as a value (classified as `settle` does), so nothing waits out the timer. A race of two operations in a
/// parallel group did the same at about twice the cost, and `withTimeout` is on every tool call.
///
/// \par Errors
/// - `EffectErrc::timeout` when `limit` elapsed first (the task was cancelled),
/// - `EffectErrc::cancelled` when the caller was cancelled (before the task started: it is not started),
/// - `EffectErrc::exception` when the task threw; the message carries `what()`.
/// Nothing is thrown once it runs (see `settle`). `T` must be default-constructible (or `void`).
template <class T>
[[nodiscard]] Task<expected<T, EffectError>> withTimeout(Task<T> task,
                                                         std::chrono::steady_clock::duration limit) {
    namespace asio = boost::asio;
    asio::cancellation_state caller = co_await asio::this_coro::cancellation_state;
    if (isCancelled(caller)) {
        co_return fail(detail::cancelledBeforeStart());
    }
    auto ex = co_await asio::this_coro::executor;
    auto race = std::make_shared<detail::DeadlineRace>();
    asio::steady_timer timer(ex, limit);
    timer.async_wait([race](const boost::system::error_code& error) {
        if (!error) {
            race->expired = true;
            race->stop.emit(asio::cancellation_type::terminal);
        }
    });
    // The child is bound to the race's signal, not to the caller's: the caller's cancellation is forwarded.
    // (A caller that cannot be cancelled has no slot to forward from.)
    asio::cancellation_slot callerSlot = caller.slot();
    if (callerSlot.is_connected()) {
        callerSlot.assign([race](asio::cancellation_type type) { race->stop.emit(type); });
    }
    auto outcome = co_await asio::co_spawn(
        ex, std::move(task),
        asio::bind_cancellation_slot(race->stop.slot(), asio::as_tuple(asio::use_awaitable)));
    if (callerSlot.is_connected()) {
        callerSlot.clear();
    }
    timer.cancel();
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        co_return fail(EffectError{EffectErrc::cancelled, "cancelled by the caller"});
    }
    if (race->expired) {
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(limit).count();
        co_return fail(EffectError{EffectErrc::timeout, "timed out after " + std::to_string(ms) + " ms"});
    }
    if (const std::exception_ptr& error = std::get<0>(outcome)) {
        co_return fail(detail::settledError(error, false));
    }
    if constexpr (std::is_void_v<T>) {
        co_return expected<void, EffectError>{};
    } else {
        co_return std::move(std::get<1>(outcome));
    }
}

}  // namespace reagent
