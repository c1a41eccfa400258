#include "rate_limiter.hpp"

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "reagent/core/cancellation.hpp"

namespace reagent::providers::detail {

namespace asio = boost::asio;

struct RateLimiter::Waiter {
    asio::steady_timer* timer = nullptr;
    bool woken = false;
};

Task<bool> RateLimiter::acquire(std::int64_t tokens,
                                std::function<void(const llm::ThrottleNotice&)> onThrottle) {
    asio::steady_timer timer(co_await asio::this_coro::executor);
    for (;;) {
        const auto wait = state_.admit(RateLimitState::Clock::now(), tokens);
        if (!wait) {
            co_return true;
        }
        if (onThrottle) {
            onThrottle(llm::ThrottleNotice{std::chrono::ceil<std::chrono::milliseconds>(wait->wait),
                                           wait->reason, wait->forRelease});
        }
        Waiter waiter{&timer, false};
        std::list<Waiter*>::iterator queued = waiting_.end();
        if (wait->forRelease) {
            timer.expires_at(asio::steady_timer::time_point::max());
            queued = waiting_.insert(waiting_.end(), &waiter);
        } else {
            timer.expires_after(wait->wait);
        }
        auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
        if (queued != waiting_.end() && !waiter.woken) {
            waiting_.erase(queued);
        }
        if (ec && !waiter.woken) {
            co_return false;  // cancelled while waiting
        }
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            if (waiter.woken && !waiting_.empty()) {
                // The slot this waiter was woken for goes to the next one.
                Waiter* next = waiting_.front();
                waiting_.pop_front();
                next->woken = true;
                next->timer->cancel();
            }
            co_return false;
        }
    }
}

void RateLimiter::release(std::int64_t estimated, std::int64_t used) {
    state_.release(estimated, used);
    if (!waiting_.empty()) {
        Waiter* next = waiting_.front();
        waiting_.pop_front();
        next->woken = true;
        next->timer->cancel();
    }
}

void RateLimiter::observe(const http::HttpHeaders& headers) {
    state_.observe(RateLimitState::Clock::now(), std::chrono::system_clock::now(), headers);
}

void RateLimiter::holdFor(std::chrono::milliseconds wait) {
    state_.holdUntil(RateLimitState::Clock::now() + wait);
}

}  // namespace reagent::providers::detail
