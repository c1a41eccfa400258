#pragma once
/// \file
/// \brief `settle`: how a task ended, as a value; `withCheckedCancellation`: a driver that looks at
/// cancellation instead of catching it. Together they are reagent's one idiom for cancellation and
/// exceptions (see docs/architecture.md, "Cancellation and exceptions").

#include <boost/asio/this_coro.hpp>
#include <exception>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/effect_error.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"

namespace reagent {

namespace detail {

/// \brief The error of a task that threw `error`: `cancelled` when it is Asio's `operation_aborted` or
/// the awaiting coroutine was cancelled, `exception` (with `what()`) otherwise.
[[nodiscard]] EffectError settledError(const std::exception_ptr& error, bool callerCancelled);

/// \brief The error of a step that was not started because its caller had been cancelled.
[[nodiscard]] EffectError cancelledBeforeStart();

}  // namespace detail

/// \brief Runs `task` on the calling coroutine and delivers how it ended as a value.
///
/// - The task's result when it returned one.
/// - `EffectErrc::cancelled` when the caller was cancelled before the task started (it is then not
///   started at all) or while it ran, or when the task ended by Asio's `operation_aborted`.
/// - `EffectErrc::exception` when it threw anything else; the message carries `what()`.
///
/// The task runs with Asio's default cancellation semantics (an await after cancellation throws), even
/// inside a driver running under `withCheckedCancellation`. Nothing is thrown once `settle` runs; like
/// every Asio operation, awaiting it from a coroutine that was already cancelled throws unless that
/// coroutine checks cancellation (`withCheckedCancellation`).
template <class T>
[[nodiscard]] Task<expected<T, EffectError>> settle(Task<T> task) {
    namespace asio = boost::asio;
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        co_return fail(detail::cancelledBeforeStart());
    }
    const bool throwing = co_await asio::this_coro::throw_if_cancelled();
    if (!throwing) {
        co_await asio::this_coro::throw_if_cancelled(true);
    }
    // Awaited in this frame (not through a helper coroutine): settle sits on every hot path.
    std::exception_ptr error;
    std::conditional_t<std::is_void_v<T>, bool, std::optional<T>> value{};
    try {
        if constexpr (std::is_void_v<T>) {
            co_await std::move(task);
        } else {
            value.emplace(co_await std::move(task));
        }
    } catch (...) {
        error = std::current_exception();
    }
    if (!throwing) {
        co_await asio::this_coro::throw_if_cancelled(false);
    }
    if (error) {
        const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
        co_return fail(detail::settledError(error, cancelled));
    }
    if constexpr (std::is_void_v<T>) {
        co_return expected<void, EffectError>{};
    } else {
        co_return std::move(*value);
    }
}

/// \brief `settle` for a task that reports its own failures: its error type `E` stays, and the ways it
/// can end without a result (cancellation, an exception) become an `E` by `onFailure(const EffectError&)`.
/// `onFailure` is taken by reference (it lives in the awaiting frame): pass a named callable, since
/// g++ 12 mishandles lambda temporaries inside `co_await` expressions.
template <class T, class E, class OnFailure>
[[nodiscard]] Task<expected<T, E>> settle(Task<expected<T, E>> task, const OnFailure& onFailure) {
    auto settled = co_await settle(std::move(task));
    if (!settled) {
        co_return fail(onFailure(settled.error()));
    }
    co_return std::move(*settled);
}

/// \brief Runs `body`, a driver of several steps, with cancellation checked rather than thrown.
///
/// Inside `body` (and what it awaits directly) awaiting never throws because of a cancellation: the
/// body sees cancellation through `isCancelled` between its steps and through the values of the steps
/// it runs by `settle`, `withTimeout` or `parallelMap` (each refuses to start once the caller is
/// cancelled). This is how a driver ends a cancelled run with a result saying what was done, and how
/// it awaits clean-up (reaping a process, joining children) after it was cancelled: such waits bind
/// their operations to no cancellation slot. The caller's setting is restored when `body` ends, and
/// whatever `body` throws is rethrown.
template <class T>
[[nodiscard]] Task<T> withCheckedCancellation(Task<T> body) {
    namespace asio = boost::asio;
    const bool throwing = co_await asio::this_coro::throw_if_cancelled();
    co_await asio::this_coro::throw_if_cancelled(false);
    std::exception_ptr error;
    std::conditional_t<std::is_void_v<T>, bool, std::optional<T>> value{};
    try {
        if constexpr (std::is_void_v<T>) {
            co_await std::move(body);
        } else {
            value.emplace(co_await std::move(body));
        }
    } catch (...) {
        error = std::current_exception();
    }
    co_await asio::this_coro::throw_if_cancelled(throwing);
    if (error) {
        std::rethrow_exception(error);
    }
    if constexpr (!std::is_void_v<T>) {
        co_return std::move(*value);
    }
}

/// \brief Calls `fn(args...)` and delivers what it returned, or `EffectErrc::exception` with `what()`
/// when it threw: the synchronous sibling of `settle`, for user callbacks that must not break a driver.
template <class Fn, class... Args>
[[nodiscard]] auto settleCall(Fn&& fn, Args&&... args)
    -> expected<std::invoke_result_t<Fn, Args...>, EffectError> {
    using R = std::invoke_result_t<Fn, Args...>;
    try {
        if constexpr (std::is_void_v<R>) {
            std::invoke(std::forward<Fn>(fn), std::forward<Args>(args)...);
            return expected<void, EffectError>{};
        } else {
            return std::invoke(std::forward<Fn>(fn), std::forward<Args>(args)...);
        }
    } catch (...) {
        return fail(detail::settledError(std::current_exception(), false));
    }
}

}  // namespace reagent
