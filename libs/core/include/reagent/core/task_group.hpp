#pragma once
/// \file
/// \brief `TaskGroup`: spawn child tasks, cancel them all at once, wait for all of them.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <cstddef>
#include <exception>
#include <list>
#include <memory>
#include <vector>

#include "reagent/core/effect_error.hpp"
#include "reagent/core/event.hpp"
#include "reagent/core/task.hpp"

namespace reagent {

/// \brief A set of child tasks with one cancellation switch and one join point (structured concurrency).
///
/// \par Cancellation
/// `cancel()` emits a terminal cancellation to every live child. When the coroutine awaiting `join()` is
/// cancelled, the group forwards that cancellation to every child and still waits for all of them, so no
/// child outlives the join.
///
/// \par Thread safety and lifetime
/// Not thread-safe: use it from one strand (or a single-threaded `io_context`). Children share the
/// group's state, so destroying the group early is safe: the destructor cancels the children that remain.
class TaskGroup {
  public:
    explicit TaskGroup(Executor executor);
    TaskGroup(const TaskGroup&) = delete;
    TaskGroup& operator=(const TaskGroup&) = delete;
    ~TaskGroup();

    /// \brief Starts `task` as a child of the group. A value it returns is discarded.
    template <class T>
    void spawn(Task<T> task) {
        auto state = state_;
        auto child = state->children.emplace(state->children.end());
        ++state->live;
        boost::asio::co_spawn(
            state->executor, std::move(task),
            boost::asio::bind_cancellation_slot(child->signal.slot(), Completion{state, child}));
    }

    /// \brief Emits a terminal cancellation to every child still running.
    void cancel();

    /// \brief Children started and not yet finished.
    [[nodiscard]] std::size_t size() const noexcept { return state_->live; }

    /// \brief Waits until every child has finished; returns one error per child that threw.
    ///
    /// Never throws. A child that ends by cancellation reports `EffectErrc::cancelled`.
    [[nodiscard]] Task<std::vector<EffectError>> join();

  private:
    /// A child's cancellation signal; `done` once it finished (its slot may then refer to freed
    /// memory until the entry is erased, so it must not be emitted).
    struct Child {
        boost::asio::cancellation_signal signal;
        bool done = false;
    };

    struct State : std::enable_shared_from_this<State> {
        explicit State(Executor ex);
        Executor executor;
        std::list<Child> children;
        std::size_t live = 0;
        /// Set whenever a child finishes; the joiner resets it before it waits.
        Event wakeup;
        std::vector<EffectError> errors;
        void finished(std::list<Child>::iterator child, std::exception_ptr error);
        void cancelAll();
    };

    struct Completion {
        std::shared_ptr<State> state;
        std::list<Child>::iterator child;
        template <class... Values>
        void operator()(std::exception_ptr error, Values&&...) {
            state->finished(child, error);
        }
    };

    /// The body of `join`, run with checked cancellation.
    static Task<std::vector<EffectError>> joinChildren(std::shared_ptr<State> state);

    std::shared_ptr<State> state_;
};

}  // namespace reagent
