#include "reagent/core/task_group.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/detail/exception_message.hpp"

namespace reagent {

namespace asio = boost::asio;

TaskGroup::State::State(Executor ex) : executor(ex), wakeup(ex) {}

void TaskGroup::State::finished(std::list<asio::cancellation_signal>::iterator signal,
                                std::exception_ptr error) {
    if (error) {
        errors.push_back({detail::isCancellation(error) ? EffectErrc::cancelled : EffectErrc::exception,
                          detail::exceptionMessage(error)});
    }
    --live;
    wakeup.cancel();
    // The child's spawn machinery may still refer to its slot while this handler runs: erase it later.
    asio::post(executor, [self = shared_from_this(), signal] { self->signals.erase(signal); });
}

TaskGroup::TaskGroup(Executor executor) : state_(std::make_shared<State>(executor)) {}

TaskGroup::~TaskGroup() {
    cancel();
}

void TaskGroup::cancel() {
    for (auto& signal : state_->signals) {
        signal.emit(asio::cancellation_type::terminal);
    }
}

Task<std::vector<EffectError>> TaskGroup::join() {
    auto state = state_;
    // Report rather than throw: keep waiting for the children even once the joiner is cancelled.
    const bool throwing = co_await asio::this_coro::throw_if_cancelled();
    co_await asio::this_coro::throw_if_cancelled(false);
    bool forwarded = false;
    while (state->live > 0) {
        if (!forwarded && isCancelled(co_await asio::this_coro::cancellation_state)) {
            forwarded = true;
            cancel();
            continue;
        }
        state->wakeup.expires_at(asio::steady_timer::time_point::max());
        if (forwarded) {
            // The joiner's own slot has fired already; wait on a detached slot so the wait is not cut short.
            auto token =
                asio::bind_cancellation_slot(asio::cancellation_slot(), asio::as_tuple(asio::use_awaitable));
            co_await state->wakeup.async_wait(token);
        } else {
            co_await state->wakeup.async_wait(asio::as_tuple(asio::use_awaitable));
        }
    }
    co_await asio::this_coro::throw_if_cancelled(throwing);
    co_return std::exchange(state->errors, {});
}

}  // namespace reagent
