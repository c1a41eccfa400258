#pragma once
/// \file
/// \brief `runToEnd`: a command's coroutine run on the CLI's io_context, Ctrl-C (or SIGTERM) cancelling it.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <exception>
#include <utility>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/task.hpp"

namespace reagent::cli {

/// \brief Runs `task` on `io` to its end, with SIGINT and SIGTERM cancelling it; its value, or `fallback`
/// when it threw.
template <class T>
T runToEnd(boost::asio::io_context& io, Task<T> task, T fallback) {
    namespace asio = boost::asio;
    asio::cancellation_signal cancel;
    asio::signal_set signals(io, SIGINT, SIGTERM);
    signals.async_wait([&cancel](const boost::system::error_code& ec, int) {
        if (!ec) {
            cancel.emit(asio::cancellation_type::terminal);
        }
    });
    T result = std::move(fallback);
    asio::co_spawn(io, withCheckedCancellation(std::move(task)),
                   asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr error, T value) {
                       if (!error) {
                           result = std::move(value);
                       }
                       signals.cancel();
                   }));
    io.run();
    return result;
}

}  // namespace reagent::cli
