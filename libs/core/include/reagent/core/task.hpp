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

/// \brief Marks a plain function that a hot coroutine calls for its work with large values.
///
/// A coroutine's frame keeps every object whose address the coroutine passes on (clang and GCC alike),
/// whether or not it lives across a suspension, for as long as the coroutine is suspended. Done in a
/// function of its own, kept out of line, that work stays on the stack; the frames of every waiting run stay
/// small (docs/architecture.md, "What a waiting run holds").
#define REAGENT_OUT_OF_FRAME [[gnu::noinline]]
