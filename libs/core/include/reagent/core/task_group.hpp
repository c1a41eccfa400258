#pragma once
/// \file
/// \brief `TaskGroup`: spawn child tasks, cancel one or all of them, wait for all of them.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <vector>

#include "reagent/core/effect_error.hpp"
#include "reagent/core/event.hpp"
#include "reagent/core/task.hpp"

namespace reagent {

/// \brief A set of child tasks, cancelled all at once or one by one, with one join point (structured
/// concurrency).
///
/// \par Cancellation
/// `cancel()` emits a terminal cancellation to every live child; `cancel(child)` emits it to one child
/// alone, named by the id `spawn` returned, and the others run on. A cancelled child remains a child until
/// it ends: `size()` counts it, `join()` waits for it (and lists its error if it threw:
/// `EffectErrc::cancelled` for the cancellation's `operation_aborted`). Cancelling a child that has
/// finished does nothing. When the coroutine awaiting `join()` is cancelled, the group forwards that
/// cancellation to every child and still waits for all of them, so no child outlives the join.
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

    /// \brief Names one child of a group, to cancel it alone (`cancel(ChildId)`). A group never gives two
    /// children the same id.
    struct ChildId {
        std::uint64_t value = 0;
        friend bool operator==(const ChildId&, const ChildId&) = default;
    };

    /// \brief Starts `task` as a child of the group. A value it returns is discarded.
    /// \return The child's id, for `cancel(ChildId)`; callers that never cancel one child ignore it.
    template <class T>
    ChildId spawn(Task<T> task) {
        auto state = state_;
        const ChildId id{++state->lastId};
        auto child = state->children.try_emplace(state->children.end(), id.value);
        ++state->live;
        boost::asio::co_spawn(
            state->executor, std::move(task),
            boost::asio::bind_cancellation_slot(child->second.signal.slot(), Completion{state, child}));
        return id;
    }

    /// \brief Emits a terminal cancellation to every child still running.
    void cancel();

    /// \brief Emits a terminal cancellation to the child `child` alone; the other children keep running.
    /// \return True when the child was still running; false, and nothing happens, when it has finished
    /// (or is not a child of this group).
    bool cancel(ChildId child);

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

    /// By id, in spawn order; an entry stays put (and its iterator valid) until it is erased.
    using Children = std::map<std::uint64_t, Child>;

    struct State : std::enable_shared_from_this<State> {
        explicit State(Executor ex);
        Executor executor;
        Children children;
        std::uint64_t lastId = 0;
        std::size_t live = 0;
        /// Set whenever a child finishes; the joiner resets it before it waits.
        Event wakeup;
        std::vector<EffectError> errors;
        void finished(Children::iterator child, std::exception_ptr error);
        void cancelAll();
    };

    struct Completion {
        std::shared_ptr<State> state;
        Children::iterator child;
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
