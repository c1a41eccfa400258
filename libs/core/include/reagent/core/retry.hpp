#pragma once
/// \file
/// \brief `retry`: re-run a fallible task with exponential backoff and jitter.

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <optional>
#include <type_traits>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/task.hpp"

namespace reagent {

/// \brief How often and how patiently `retry` tries again.
struct RetryPolicy {
    /// Attempts in total, the first included. Invariant: >= 1. Default 3.
    int maxAttempts = 3;
    /// Delay before the first retry. Default 200 ms.
    std::chrono::milliseconds initialDelay{200};
    /// Factor applied to the delay after each retry. Invariant: >= 1. Default 2.
    double multiplier = 2.0;
    /// Upper bound of any computed delay (not of a server-requested one). Default 10 s.
    std::chrono::milliseconds maxDelay{10'000};
    /// Fraction of the delay that is randomised, in [0, 1]: 0.2 spreads a 1 s delay over 0.8–1.2 s.
    double jitter = 0.2;
};

/// \brief The delay before retry number `retryIndex` (0 for the first retry).
///
/// `unitRandom` in [0, 1) picks the point inside the jitter band, which keeps this function pure.
[[nodiscard]] std::chrono::milliseconds backoffDelay(const RetryPolicy& policy, int retryIndex,
                                                     double unitRandom);

/// \brief A uniformly distributed number in [0, 1) from a per-thread generator.
[[nodiscard]] double jitterSample();

/// \brief What to do after a failed attempt, as decided by `retry`'s predicate.
struct RetryDecision {
    bool again = false;
    /// A delay the other side asked for (an HTTP `retry-after`, say); replaces the backoff delay.
    std::optional<std::chrono::milliseconds> after;

    [[nodiscard]] static RetryDecision stop() { return {}; }
    [[nodiscard]] static RetryDecision backoff() { return {true, std::nullopt}; }
    [[nodiscard]] static RetryDecision afterDelay(std::chrono::milliseconds d) { return {true, d}; }
};

/// \brief Calls `attempt()` until it succeeds, `decide` says stop, or `policy.maxAttempts` is reached.
///
/// `attempt` returns `Task<expected<T, E>>`; `decide(const E&, int attemptNumber)` returns a `bool`
/// (retry with backoff or not) or a `RetryDecision`. The result is the first success or the last error.
///
/// \par Cancellation
/// A cancellation during a backoff sleep ends the loop at once with the last error; nothing is thrown
/// by the sleep.
template <class Attempt, class Decide>
[[nodiscard]] auto retry(RetryPolicy policy, Attempt attempt, Decide decide)
    -> Task<typename std::invoke_result_t<Attempt&>::value_type> {
    namespace asio = boost::asio;
    for (int number = 1;; ++number) {
        auto result = co_await attempt();
        if (result || number >= policy.maxAttempts) {
            co_return result;
        }
        RetryDecision decision;
        if constexpr (std::is_same_v<std::invoke_result_t<Decide&, decltype(result.error()), int>, bool>) {
            decision.again = decide(result.error(), number);
        } else {
            decision = decide(result.error(), number);
        }
        if (!decision.again) {
            co_return result;
        }
        const auto delay =
            decision.after ? *decision.after : backoffDelay(policy, number - 1, jitterSample());
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            co_return result;
        }
        asio::steady_timer timer(co_await asio::this_coro::executor, delay);
        auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
        if (ec) {
            co_return result;
        }
    }
}

}  // namespace reagent
