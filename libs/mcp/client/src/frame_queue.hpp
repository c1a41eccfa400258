#pragma once
// FrameQueue: frames read by a transport's background readers, waiting for `Transport::receive`.

#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <deque>
#include <optional>
#include <string>
#include <utility>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/event.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/mcp/mcp_error.hpp"

namespace reagent::mcp::detail {

// Many producers, one consumer, one strand. After `finish`, the frames already queued are still
// delivered, then the final error. A pop waits for an event that a push or finish sets; the waiting
// consumer stays cancellable by its own caller.
class FrameQueue {
  public:
    explicit FrameQueue(const Executor& executor) : wakeup_(executor) {}

    void push(std::string frame) {
        if (end_) {
            return;
        }
        frames_.push_back(std::move(frame));
        wakeup_.set();
    }

    // The transport is finished: `error` is what pop returns once the queue is empty. The first call wins.
    void finish(McpError error) {
        if (!end_) {
            end_ = std::move(error);
        }
        wakeup_.set();
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
            wakeup_.reset();
            (void)co_await wakeup_.wait(boost::asio::use_awaitable);
            if (frames_.empty() && !end_ &&
                isCancelled(co_await boost::asio::this_coro::cancellation_state)) {
                co_return unexpected(McpError{McpErrc::cancelled, "receive cancelled"});
            }
        }
    }

  private:
    Event wakeup_;
    std::deque<std::string> frames_;
    std::optional<McpError> end_;
};

}  // namespace reagent::mcp::detail
