#pragma once
/// \file
/// \brief `withTimeout`: run a task against a deadline.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <exception>
#include <string>
#include <type_traits>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/effect_error.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/task.hpp"

namespace reagent {

/// \brief Runs `task`, racing it against a timer of `limit`; the loser is cancelled and awaited: `settle`
/// with a deadline.
///
/// Asio 1.26 has no `cancel_after`, so the deadline is a `steady_timer` in a parallel group that waits
/// for the first of the two to complete. The task runs as a child of its own whose exception completes
/// the race at once (instead of making it wait out the timer) and is classified as `settle` does.
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
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        co_return fail(detail::cancelledBeforeStart());
    }
    auto ex = co_await asio::this_coro::executor;
    asio::steady_timer timer(ex, limit);
    auto group = asio::experimental::make_parallel_group(asio::co_spawn(ex, std::move(task), asio::deferred),
                                                         timer.async_wait(asio::deferred));
    auto outcome =
        co_await std::move(group).async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        co_return fail(EffectError{EffectErrc::cancelled, "cancelled by the caller"});
    }
    if (std::get<0>(outcome)[0] == 1) {
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(limit).count();
        co_return fail(EffectError{EffectErrc::timeout, "timed out after " + std::to_string(ms) + " ms"});
    }
    if (const std::exception_ptr& error = std::get<1>(outcome)) {
        co_return fail(detail::settledError(error, false));
    }
    if constexpr (std::is_void_v<T>) {
        co_return expected<void, EffectError>{};
    } else {
        co_return std::move(std::get<2>(outcome));
    }
}

}  // namespace reagent
