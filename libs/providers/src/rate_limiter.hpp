#pragma once
// The coroutine side of a provider's rate limits: requests wait (on timers, cancellably) until
// `RateLimitState` admits them; a request that ends wakes one waiting for a free slot. Internal to the
// providers library. Used from the provider's executor only.

#include <chrono>
#include <cstdint>
#include <functional>
#include <list>

#include "rate_limit_state.hpp"
#include "reagent/core/task.hpp"
#include "reagent/llm/retry_notice.hpp"

namespace boost::asio {
class any_io_executor;
}

namespace reagent::providers::detail {

class RateLimiter {
  public:
    explicit RateLimiter(RateLimits limits) : state_(limits) {}

    /// Whether there is anything to keep to (a limit set, or headers obeyed).
    [[nodiscard]] bool active() const noexcept { return state_.active(); }
    /// Counts a request of `tokens` as started when it may start now; false when it must wait (`acquire`).
    /// The common case costs no coroutine and no timer.
    [[nodiscard]] bool tryAcquire(std::int64_t tokens) {
        return !state_.admit(RateLimitState::Clock::now(), tokens);
    }
    /// Waits until a request of `tokens` may start, telling `onThrottle` before each wait. False when the
    /// caller was cancelled while waiting (nothing was counted then).
    [[nodiscard]] Task<bool> acquire(std::int64_t tokens,
                                     std::function<void(const llm::ThrottleNotice&)> onThrottle);
    /// A request admitted by `acquire` ended; wakes one request waiting for a free slot.
    void release(std::int64_t estimated, std::int64_t used);
    void observe(const http::HttpHeaders& headers);
    void holdFor(std::chrono::milliseconds wait);

  private:
    struct Waiter;
    RateLimitState state_;
    std::list<Waiter*> waiting_;  // for a free slot, oldest first
};

}  // namespace reagent::providers::detail
