#pragma once
// Watchdog: the one timer behind an exchange's deadline and its read-idle limit.

#include <chrono>
#include <functional>
#include <memory>

#include "reagent/core/task.hpp"

namespace reagent::http::detail {

/// Runs an action (closing the connection, which ends the pending operation) when the deadline passes
/// or, once `watchIdle` was called, when no `activity` was reported for the idle limit.
///
/// One timer armed for the earlier of the two limits. Activity only records the time: when the timer
/// fires before a limit has really passed, it re-arms for the new one. So reads never touch the timer
/// (no system call, no handler per read).
///
/// A cheap handle: copies share one timer. The timer stops with `cancel` or when the last copy goes.
/// Use it on one executor (the exchange's); it must not outlive that executor's execution context.
class Watchdog {
  public:
    using Clock = std::chrono::steady_clock;
    enum class Expiry { none, deadline, idle };

    /// An empty handle that never fires.
    Watchdog() = default;
    /// Arms for `deadline`; `idleLimit` (zero: none) is enforced from `watchIdle` on.
    Watchdog(const Executor& executor, Clock::time_point deadline, std::chrono::milliseconds idleLimit);

    /// What to do when a limit passes (replaces the previous action).
    void onExpiry(std::function<void()> action);
    /// The idle limit applies from now on (when the response head has arrived).
    void watchIdle() noexcept;
    /// Bytes arrived: the idle limit starts over.
    void activity() noexcept;
    /// Which limit passed, if one did.
    [[nodiscard]] Expiry expired() const noexcept;
    /// No limit applies any more; the pending timer wait ends.
    void cancel() noexcept;

  private:
    struct State;
    std::shared_ptr<State> state_;
};

}  // namespace reagent::http::detail
