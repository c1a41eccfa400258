#include "reagent/core/task_group.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/settle.hpp"

namespace reagent {

namespace asio = boost::asio;

TaskGroup::State::State(Executor ex) : executor(ex), wakeup(ex) {}

void TaskGroup::State::finished(Children::iterator child, std::exception_ptr error) {
    if (error) {
        errors.push_back(detail::settledError(error, false));
    }
    --live;
    child->second.done = true;  // never emitted again: cancel() right after join() must not reach it
    wakeup.set();
    // The child's spawn machinery may still refer to its slot while this handler runs: erase it later.
    asio::post(executor, [self = shared_from_this(), child] { self->children.erase(child); });
}

TaskGroup::TaskGroup(Executor executor) : state_(std::make_shared<State>(executor)) {}

TaskGroup::~TaskGroup() {
    cancel();
}

void TaskGroup::State::cancelAll() {
    for (auto& entry : children) {
        Child& child = entry.second;
        if (!child.done) {
            child.signal.emit(asio::cancellation_type::terminal);
        }
    }
}

void TaskGroup::cancel() {
    state_->cancelAll();
}

bool TaskGroup::cancel(ChildId child) {
    const auto found = state_->children.find(child.value);
    if (found == state_->children.end() || found->second.done) {
        return false;
    }
    found->second.signal.emit(asio::cancellation_type::terminal);
    return true;
}

// Keeps waiting for the children once the joiner is cancelled: it forwards the cancellation, then waits
// on a detached slot (the joiner's own slot has fired already), so no child outlives the join.
Task<std::vector<EffectError>> TaskGroup::joinChildren(std::shared_ptr<State> state) {
    bool forwarded = false;
    while (state->live > 0) {
        if (!forwarded && isCancelled(co_await asio::this_coro::cancellation_state)) {
            forwarded = true;
            state->cancelAll();
            continue;
        }
        state->wakeup.reset();
        if (forwarded) {
            auto token = asio::bind_cancellation_slot(asio::cancellation_slot(), asio::use_awaitable);
            (void)co_await state->wakeup.wait(token);
        } else {
            (void)co_await state->wakeup.wait(asio::use_awaitable);
        }
    }
    co_return std::exchange(state->errors, {});
}

Task<std::vector<EffectError>> TaskGroup::join() {
    return withCheckedCancellation(joinChildren(state_));
}

}  // namespace reagent
