#pragma once
/// \file
/// \brief `Task<T>`: the one asynchronous effect type of reagent.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

namespace reagent {

/// \brief An asynchronous computation producing a `T`; a C++20 coroutine run by Boost.Asio.
///
/// A `Task` is a value: nothing runs until it is awaited or spawned (`boost::asio::co_spawn`).
/// Cancellation follows Asio's per-operation cancellation: bind a cancellation slot when spawning, or
/// let a combinator (`withTimeout`, `parallelMap`, `TaskGroup`) fan it out.
template <class T = void>
using Task = boost::asio::awaitable<T>;

/// \brief The executor every reagent task runs on.
using Executor = boost::asio::any_io_executor;

}  // namespace reagent
