#pragma once
// FrameQueue: frames read by a transport's background readers, waiting for `Transport::receive`.

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <deque>
#include <optional>
#include <string>
#include <utility>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/mcp/mcp_error.hpp"

namespace reagent::mcp::detail {

// Many producers, one consumer, one strand. After `finish`, the frames already queued are still
// delivered, then the final error. A pop waits on a timer that a push or finish cancels, so the waiting
// consumer stays cancellable by its own caller.
class FrameQueue {
  public:
    explicit FrameQueue(Executor executor) : wakeup_(std::move(executor)) {
        wakeup_.expires_at(boost::asio::steady_timer::time_point::max());
    }

    void push(std::string frame) {
        if (end_) {
            return;
        }
        frames_.push_back(std::move(frame));
        wakeup_.cancel();
    }

    // The transport is finished: `error` is what pop returns once the queue is empty. The first call wins.
    void finish(McpError error) {
        if (!end_) {
            end_ = std::move(error);
        }
        wakeup_.cancel();
    }

    [[nodiscard]] bool finished() const noexcept { return end_.has_value(); }

    [[nodiscard]] bool empty() const noexcept { return frames_.empty(); }

    [[nodiscard]] Task<expected<std::string, McpError>> pop() {
        for (;;) {
            if (!frames_.empty()) {
                std::string frame = std::move(frames_.front());
                frames_.pop_front();
                co_return frame;
            }
            if (end_) {
                co_return unexpected(*end_);
            }
            wakeup_.expires_at(boost::asio::steady_timer::time_point::max());
            co_await wakeup_.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
            if (frames_.empty() && !end_ &&
                isCancelled(co_await boost::asio::this_coro::cancellation_state)) {
                co_return unexpected(McpError{McpErrc::cancelled, "receive cancelled"});
            }
        }
    }

  private:
    boost::asio::steady_timer wakeup_;
    std::deque<std::string> frames_;
    std::optional<McpError> end_;
};

}  // namespace reagent::mcp::detail
