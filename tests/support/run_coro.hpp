#pragma once
/// \file
/// \brief `runCoro`: run a task to completion on a fresh io_context, for tests.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

#include "reagent/core/task.hpp"

namespace reagent::test {

/// Runs `task` on its own io_context and returns its value; rethrows what it threw.
template <class T>
T runCoro(Task<T> task) {
    boost::asio::io_context io;
    std::exception_ptr error;
    std::optional<std::conditional_t<std::is_void_v<T>, int, T>> value;
    if constexpr (std::is_void_v<T>) {
        boost::asio::co_spawn(io, std::move(task), [&](std::exception_ptr e) {
            error = e;
            value.emplace(0);
        });
    } else {
        boost::asio::co_spawn(io, std::move(task), [&](std::exception_ptr e, T v) {
            error = e;
            if (!e) value.emplace(std::move(v));
        });
    }
    io.run();
    if (error) std::rethrow_exception(error);
    if constexpr (!std::is_void_v<T>) return std::move(*value);
}

/// Suspends the calling coroutine for `d` (cancellable).
inline Task<void> sleepFor(std::chrono::steady_clock::duration d) {
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, d);
    co_await timer.async_wait(boost::asio::use_awaitable);
}

/// Milliseconds elapsed since `start`.
inline long long elapsedMs(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start)
        .count();
}

}  // namespace reagent::test
