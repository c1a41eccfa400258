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
#include <type_traits>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/detail/exception_message.hpp"
#include "reagent/core/effect_error.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"

namespace reagent {

/// \brief Runs `task`, racing it against a timer of `limit`; the loser is cancelled and awaited.
///
/// Asio 1.26 has no `cancel_after`, so the deadline is a `steady_timer` in a parallel group that waits
/// for the first of the two to complete (whatever its outcome: a task that throws does not make the
/// race wait out the timer).
///
/// \par Errors
/// - `EffectErrc::timeout` when `limit` elapsed first (the task was cancelled),
/// - `EffectErrc::cancelled` when the caller was cancelled,
/// - `EffectErrc::exception` when the task threw; the message carries `what()`.
/// Nothing is thrown. `T` must be default-constructible (or `void`).
template <class T>
[[nodiscard]] Task<expected<T, EffectError>> withTimeout(Task<T> task,
                                                         std::chrono::steady_clock::duration limit) {
    namespace asio = boost::asio;
    try {
        auto ex = co_await asio::this_coro::executor;
        asio::steady_timer timer(ex, limit);
        auto group = asio::experimental::make_parallel_group(
            asio::co_spawn(ex, std::move(task), asio::deferred), timer.async_wait(asio::deferred));
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
            co_return fail(EffectError{EffectErrc::exception, detail::exceptionMessage(error)});
        }
        if constexpr (std::is_void_v<T>) {
            co_return expected<void, EffectError>{};
        } else {
            co_return std::move(std::get<2>(outcome));
        }
    } catch (...) {
        // Only reachable when the caller was already cancelled before the race could start.
        co_return fail(EffectError{EffectErrc::cancelled, "cancelled by the caller"});
    }
}

}  // namespace reagent
