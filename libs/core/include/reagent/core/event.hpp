#pragma once
/// \file
/// \brief `Event`: a flag that coroutines of one strand wait for (set, reset, wait).

#include <boost/asio/associated_allocator.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/recycling_allocator.hpp>
#include <exception>
#include <memory>
#include <utility>

#include "reagent/core/effect_error.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"

namespace reagent {

class Event;

namespace detail {

class EventService;

/// How a wait ends: the event was set, or `EffectErrc::cancelled`.
using EventResult = expected<void, EffectError>;

/// A wait in progress, linked in its event's list. `finish` ends it exactly once: with a result, its
/// handler is posted to its executor (or dispatched, `now`); with none, the handler is destroyed unrun
/// (its context shut down).
class EventWaiter {
  public:
    void finish(EventResult* result, const Executor* fallback, bool now = false) {
        finish_(this, result, fallback, now);
    }

    EventWaiter* previous = nullptr;
    EventWaiter* next = nullptr;
    /// The waiter's cancellation slot, holding an `EventCancel` while the wait is linked.
    boost::asio::cancellation_slot slot;

  protected:
    using Finish = void (*)(EventWaiter*, EventResult*, const Executor*, bool);
    explicit EventWaiter(Finish finish) noexcept : finish_(finish) {}
    ~EventWaiter() = default;

  private:
    Finish finish_;
};

/// Posts `handler(result)` to the handler's executor (`fallback` if it has none), or with `now` dispatches
/// it: it runs at once when the caller is on that executor's thread.
template <class Handler>
void resume(Handler handler, EventResult result, const Executor& fallback, bool now = false) {
    struct Resumption {
        Handler handler;
        EventResult result;
        void operator()() { std::move(handler)(std::move(result)); }
    };
    auto executor = boost::asio::get_associated_executor(handler, fallback);
    Resumption resumption{std::move(handler), std::move(result)};
    if (!now) {
        boost::asio::post(executor, std::move(resumption));
        return;
    }
    // What the waiter throws reaches the caller of the event loop's run(), as it would had it been
    // posted, not the setter.
    try {
        boost::asio::dispatch(executor, std::move(resumption));
    } catch (...) {
        boost::asio::post(executor, [error = std::current_exception()] { std::rethrow_exception(error); });
    }
}

/// A wait holding its completion handler, allocated with the handler's allocator (Asio's thread-local
/// recycling allocator when it has none, as Asio's own operations are).
template <class Handler>
class EventWaitOp final : public EventWaiter {
    using HandlerAllocator =
        boost::asio::associated_allocator_t<Handler, boost::asio::recycling_allocator<void>>;
    using Allocator = typename std::allocator_traits<HandlerAllocator>::template rebind_alloc<EventWaitOp>;
    using Traits = std::allocator_traits<Allocator>;

  public:
    static EventWaitOp* make(Handler handler) {
        Allocator allocator(allocatorOf(handler));
        EventWaitOp* memory = Traits::allocate(allocator, 1);
        // Asio's handlers move without throwing; the guard frees the memory should one throw anyway.
        std::unique_ptr<EventWaitOp, Deallocate> guard(memory, Deallocate{allocator});
        EventWaitOp* op = ::new (static_cast<void*>(memory)) EventWaitOp(std::move(handler));
        (void)guard.release();
        return op;
    }

  private:
    struct Deallocate {
        Allocator allocator;
        void operator()(EventWaitOp* memory) { Traits::deallocate(allocator, memory, 1); }
    };

    explicit EventWaitOp(Handler handler) : EventWaiter(&EventWaitOp::run), handler_(std::move(handler)) {}

    static HandlerAllocator allocatorOf(const Handler& handler) {
        return boost::asio::get_associated_allocator(handler, boost::asio::recycling_allocator<void>());
    }

    static void run(EventWaiter* base, EventResult* result, const Executor* fallback, bool now) {
        auto* self = static_cast<EventWaitOp*>(base);
        Allocator allocator(allocatorOf(self->handler_));
        // The memory is freed before the handler is posted, so that the next wait can reuse it.
        Handler handler(std::move(self->handler_));
        self->~EventWaitOp();
        Traits::deallocate(allocator, self, 1);
        if (result != nullptr) {
            resume(std::move(handler), std::move(*result), *fallback, now);
        }
        // Otherwise `handler` is destroyed here, and the waiting coroutine's frames with it.
    }

    Handler handler_;
};

/// The cancellation handler of one wait. After it has ended the wait it forgets it: a second
/// cancellation before the waiter resumes (its slot is cleared then) finds nothing to do.
struct EventCancel {
    Event* event;
    EventWaiter* waiter;
    void operator()(boost::asio::cancellation_type type);
};

}  // namespace detail

/// \brief A flag that coroutines wait for: `set()` wakes every waiter and the event stays set until
/// `reset()`; a wait on a set event completes at once.
///
/// It replaces the never-expiring `steady_timer` used as an event (`expires_at(max)`, `async_wait`,
/// `cancel()` to wake), without a timer, the reactor's lock or a per-wait `expires_at`.
///
/// \par Errors and cancellation
/// A wait ends with success once the event is set, or with `EffectErrc::cancelled` when the waiter's own
/// operation is cancelled (Asio per-operation cancellation of any type; the other waiters keep waiting),
/// when `wait()` starts in a coroutine already cancelled (it then does not wait; a coroutine that throws
/// on cancellation, Asio's default, throws at the `co_await` instead, as for every awaitable), or when the
/// event is destroyed while it waits. Nothing is thrown.
///
/// \par Resumption
/// Waiters resume through their own executor, posted: `set()` never runs a waiter on its stack, so a
/// waiter that resets, sets or destroys the event (or the state it lives in) cannot pull it from under
/// the setter, and what a waiter throws never reaches the setter. Waiters of one `set()` resume in the
/// order they started waiting. `set(Resumption::inlineFirst)` is the hand-off without the posted hop:
/// the oldest waiter runs at once, on the setter's stack, when the setter runs on that waiter's
/// executor's thread (until the waiter next suspends); the others are posted. Asio's own operations do
/// the same when they complete on the right thread.
///
/// \par Lifetime
/// The waits in progress belong to the execution context of the executor given to the constructor (an
/// execution-context service, as Asio's own operations belong to their services): a context shut down or
/// destroyed while a coroutine waits destroys that coroutine's frames instead of leaking them. Like an
/// Asio I/O object, an event must not outlive its execution context; waiters must run in that same
/// context.
///
/// \par Thread safety
/// Not thread-safe: use it from one strand (or a single-threaded `io_context`), and emit the waiters'
/// cancellations there too.
class Event {
  public:
    /// How `set()` resumes its waiters.
    enum class Resumption {
        /// Every waiter is posted to its executor.
        posted,
        /// The oldest waiter is dispatched (it runs now if the setter is on its executor's thread), the
        /// others posted. The setter must not touch, after `set` returns, anything that waiter may have
        /// destroyed: the event, or the state the event lives in.
        inlineFirst,
    };

    explicit Event(const Executor& executor);
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    /// Ends the waits still in progress with `EffectErrc::cancelled`.
    ~Event();

    /// \brief Sets the event and wakes every waiter: all of them later, through their executors, or with
    /// `Resumption::inlineFirst` the oldest one now.
    void set(Resumption how = Resumption::posted);

    /// \brief Clears the event; waits started from now on wait for the next `set()`.
    void reset() noexcept { set_ = false; }

    /// \brief True between `set()` and `reset()`.
    [[nodiscard]] bool isSet() const noexcept { return set_; }

    /// \brief Waits until the event is set; at once, without suspending, if it is set already.
    ///
    /// Success once set; `EffectErrc::cancelled` as the class documentation says. Never throws.
    [[nodiscard]] Task<expected<void, EffectError>> wait();

    /// \brief The wait as an Asio operation with completion signature `void(expected<void, EffectError>)`,
    /// for other completion tokens: a callback, or `use_awaitable` bound to no cancellation slot for a
    /// wait that must not be cut short. Unlike `wait()`, a set event completes it through a posted hop,
    /// and a cancellation that happened before it started is not seen.
    template <class Token>
    auto wait(Token&& token) {
        return boost::asio::async_initiate<Token, void(detail::EventResult)>(Initiate{this}, token);
    }

  private:
    friend class detail::EventService;
    friend struct detail::EventCancel;

    struct Initiate {
        Event* self;
        template <class Handler>
        void operator()(Handler&& handler) const {
            self->start(std::forward<Handler>(handler));
        }
    };

    template <class Handler>
    void start(Handler handler) {
        if (set_) {
            detail::resume(std::move(handler), detail::EventResult{}, executor_);
            return;
        }
        auto slot = boost::asio::get_associated_cancellation_slot(handler);
        auto* waiter = detail::EventWaitOp<Handler>::make(std::move(handler));
        waiter->slot = slot;
        link(waiter);
        if (slot.is_connected()) {
            slot.template emplace<detail::EventCancel>(detail::EventCancel{this, waiter});
        }
    }

    void link(detail::EventWaiter* waiter) noexcept;
    void unlink(detail::EventWaiter* waiter) noexcept;
    /// Ends `waiter`, already unlinked, with `EffectErrc::cancelled` (`message`).
    void cancel(detail::EventWaiter* waiter, const char* message);

    detail::EventService* service_;
    Executor executor_;
    bool set_ = false;
    // The waits in progress, oldest first.
    detail::EventWaiter* first_ = nullptr;
    detail::EventWaiter* last_ = nullptr;
    // The service's list of events.
    Event* servicePrevious_ = nullptr;
    Event* serviceNext_ = nullptr;
};

}  // namespace reagent
