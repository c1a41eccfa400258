#pragma once
// What the telemetry library's background passes (the span batches, the metric exports) wait on. Private.

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <memory>

#include "reagent/core/task.hpp"

namespace reagent::telemetry::detail {

namespace asio = boost::asio;

// A strand and a timer on it, owned by the coroutine that waits on the timer (an export pass, a flush):
// Asio objects that belong to the execution context, gone with it. The processor keeps only weak
// references to them, so that it may outlive the context (the CLI's does). Touched on `strand` only.
struct Waker {
    explicit Waker(const Executor& executor) : strand(asio::make_strand(executor)), timer(strand) {}
    Executor strand;
    asio::steady_timer timer;
};

// Ends the wait of `waker`, if it still waits, from any thread.
inline void wake(const std::weak_ptr<Waker>& weak) {
    if (auto waker = weak.lock()) {
        asio::post(waker->strand, [waker] { waker->timer.cancel(); });
    }
}

}  // namespace reagent::telemetry::detail
