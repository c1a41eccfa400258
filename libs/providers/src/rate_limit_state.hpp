#pragma once
// The bookkeeping of a provider's rate limits, without I/O: whether a request may start now or how long
// it must wait, what the API's rate-limit headers say, and what a finished request gives back. Internal to
// the providers library; `RateLimiter` drives it.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "reagent/http/http_headers.hpp"
#include "reagent/providers/provider_config.hpp"

namespace reagent::providers::detail {

class RateLimitState {
  public:
    using Clock = std::chrono::steady_clock;

    /// Why a request waits and for how long; `forRelease`: until a request in flight ends.
    struct Wait {
        Clock::duration wait{};
        bool forRelease = false;
        std::string reason;
    };

    explicit RateLimitState(RateLimits limits);

    /// Whether a request of `tokens` (estimated) may start at `now`: none when it may (it is then counted
    /// as started), else how long it waits before asking again.
    [[nodiscard]] std::optional<Wait> admit(Clock::time_point now, std::int64_t tokens);
    /// A request admitted with `estimated` tokens ended, having used `used` (0 when unknown).
    void release(std::int64_t estimated, std::int64_t used);
    /// Reads the API's rate-limit headers of a response received at `now` (`wallNow` in wall time).
    void observe(Clock::time_point now, std::chrono::system_clock::time_point wallNow,
                 const http::HttpHeaders& headers);
    /// Holds every request until `until` (a 429's retry-after).
    void holdUntil(Clock::time_point until);

    [[nodiscard]] int inFlight() const noexcept { return inFlight_; }
    [[nodiscard]] bool active() const noexcept { return active_; }

  private:
    struct Bucket {
        double rate = 0;  // per second; 0: no limit
        double capacity = 0;
        double available = 0;
        Clock::time_point refilled{};
    };
    static Bucket bucket(double perMinute);
    static void refill(Bucket& bucket, Clock::time_point now);
    // How long until `bucket` holds `amount` (capped at its capacity); zero when it does.
    static Clock::duration until(const Bucket& bucket, double amount);

    RateLimits limits_;
    bool active_ = false;  // any limit set, or headers obeyed
    int inFlight_ = 0;
    Bucket requests_;
    Bucket tokens_;
    Clock::time_point heldUntil_{};
    std::string heldBecause_;
};

}  // namespace reagent::providers::detail
