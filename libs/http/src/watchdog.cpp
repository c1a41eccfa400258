#include "watchdog.hpp"

#include <algorithm>
#include <boost/asio/steady_timer.hpp>

namespace reagent::http::detail {

struct Watchdog::State {
    State(const Executor& executor, Clock::time_point deadline, std::chrono::milliseconds idleLimit)
        : timer(executor), deadline(deadline), idleLimit(idleLimit) {}

    // While the idle limit is not watched yet, the timer still wakes every idle interval to look.
    [[nodiscard]] Clock::time_point nextCheck(Clock::time_point now) const {
        if (idleLimit.count() <= 0) return deadline;
        return std::min(deadline, (watchingIdle ? lastActivity : now) + idleLimit);
    }

    static void arm(const std::shared_ptr<State>& state, Clock::time_point at) {
        state->timer.expires_at(at);
        state->timer.async_wait([weak = std::weak_ptr<State>(state)](boost::system::error_code ec) {
            if (ec) return;
            if (auto alive = weak.lock()) fired(alive);
        });
    }

    static void fired(const std::shared_ptr<State>& state) {
        if (state->cancelled) return;
        const auto now = Clock::now();
        if (now >= state->deadline) {
            state->expiry = Expiry::deadline;
        } else if (state->watchingIdle && state->idleLimit.count() > 0 &&
                   now - state->lastActivity >= state->idleLimit) {
            state->expiry = Expiry::idle;
        } else {
            arm(state, state->nextCheck(now));
            return;
        }
        if (state->action) state->action();
    }

    boost::asio::steady_timer timer;
    Clock::time_point deadline;
    std::chrono::milliseconds idleLimit;
    Clock::time_point lastActivity;
    bool watchingIdle = false;
    bool cancelled = false;
    Expiry expiry = Expiry::none;
    std::function<void()> action;
};

Watchdog::Watchdog(const Executor& executor, Clock::time_point deadline, std::chrono::milliseconds idleLimit)
    : state_(std::make_shared<State>(executor, deadline, idleLimit)) {
    State::arm(state_, state_->nextCheck(Clock::now()));
}

void Watchdog::onExpiry(std::function<void()> action) {
    if (state_) state_->action = std::move(action);
}

void Watchdog::watchIdle() noexcept {
    if (!state_) return;
    state_->watchingIdle = true;
    state_->lastActivity = Clock::now();
}

void Watchdog::activity() noexcept {
    if (state_ && state_->watchingIdle) state_->lastActivity = Clock::now();
}

Watchdog::Expiry Watchdog::expired() const noexcept {
    return state_ ? state_->expiry : Expiry::none;
}

void Watchdog::cancel() noexcept {
    if (!state_ || state_->cancelled) return;
    state_->cancelled = true;
    state_->action = nullptr;
    state_->timer.cancel();
}

}  // namespace reagent::http::detail
