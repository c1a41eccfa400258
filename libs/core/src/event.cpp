#include "reagent/core/event.hpp"

#include <boost/asio/execution/context.hpp>
#include <boost/asio/execution_context.hpp>
#include <boost/asio/query.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <mutex>

#include "reagent/core/cancellation.hpp"

namespace reagent {

namespace asio = boost::asio;

namespace detail {

// Owns the waits in progress of one execution context, as Asio's services own their pending operations:
// it lists the context's events, and a context shut down while coroutines wait destroys their handlers,
// and with them their frames, instead of leaking them. Events register once, when made, so a wait takes
// no lock. The list is shared by the strands of the context: a mutex guards it.
class EventService final : public asio::execution_context::service {
  public:
    static asio::execution_context::id id;

    explicit EventService(asio::execution_context& context) : service(context) {}

    static EventService& of(const Executor& executor) {
        return asio::use_service<EventService>(asio::query(executor, asio::execution::context));
    }

    void add(Event* event) noexcept {
        std::lock_guard<std::mutex> lock(mutex_);
        event->servicePrevious_ = nullptr;
        event->serviceNext_ = first_;
        if (first_ != nullptr) {
            first_->servicePrevious_ = event;
        }
        first_ = event;
    }

    void remove(Event* event) noexcept {
        std::lock_guard<std::mutex> lock(mutex_);
        unlinkLocked(event);
    }

  private:
    void unlinkLocked(Event* event) noexcept {
        if (event->servicePrevious_ != nullptr) {
            event->servicePrevious_->serviceNext_ = event->serviceNext_;
        } else if (first_ == event) {
            first_ = event->serviceNext_;
        } else {
            return;  // not listed: shutdown took it off already
        }
        if (event->serviceNext_ != nullptr) {
            event->serviceNext_->servicePrevious_ = event->servicePrevious_;
        }
        event->servicePrevious_ = nullptr;
        event->serviceNext_ = nullptr;
    }

    // One wait at a time, destroyed outside the lock: destroying a handler may destroy events (those in
    // the frames it owns), which take the lock to leave the list. Events with no waits leave it here.
    void shutdown() override {
        for (;;) {
            EventWaiter* waiter = nullptr;
            {
                std::lock_guard<std::mutex> lock(mutex_);
                while (first_ != nullptr && first_->first_ == nullptr) {
                    unlinkLocked(first_);
                }
                if (first_ == nullptr) {
                    return;
                }
                waiter = first_->first_;
                first_->unlink(waiter);
                waiter->slot.clear();
            }
            waiter->finish(nullptr, nullptr);
        }
    }

    std::mutex mutex_;
    Event* first_ = nullptr;
};

asio::execution_context::id EventService::id;

void EventCancel::operator()(asio::cancellation_type type) {
    if (type == asio::cancellation_type::none || waiter == nullptr) {
        return;
    }
    // Not cleared from the slot here (this object is running): the waiter's resumption clears it.
    EventWaiter* cancelled = std::exchange(waiter, nullptr);
    event->unlink(cancelled);
    event->cancel(cancelled, "the wait for the event was cancelled");
}

}  // namespace detail

Event::Event(const Executor& executor) : service_(&detail::EventService::of(executor)), executor_(executor) {
    service_->add(this);
}

Event::~Event() {
    service_->remove(this);
    while (first_ != nullptr) {
        detail::EventWaiter* waiter = first_;
        unlink(waiter);
        waiter->slot.clear();
        cancel(waiter, "the event was destroyed while a coroutine waited for it");
    }
}

void Event::set(Resumption how) {
    set_ = true;
    // Every waiter leaves the list before any can run: a waiter that waits again waits for the next set.
    detail::EventResult done;
    detail::EventWaiter* oldest = nullptr;
    if (how == Resumption::inlineFirst && first_ != nullptr) {
        oldest = first_;
        unlink(oldest);
        oldest->slot.clear();
    }
    while (first_ != nullptr) {
        detail::EventWaiter* waiter = first_;
        unlink(waiter);
        // The cancellation handler refers to the waiter, which is freed now.
        waiter->slot.clear();
        waiter->finish(&done, &executor_);
    }
    if (oldest != nullptr) {
        // Last: the waiter may destroy this event as it runs. Its fallback executor is copied first.
        const Executor fallback = executor_;
        oldest->finish(&done, &fallback, true);
    }
}

Task<expected<void, EffectError>> Event::wait() {
    if (set_) {
        co_return expected<void, EffectError>{};
    }
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        EffectError cancelled{EffectErrc::cancelled, "the wait for the event was cancelled"};
        co_return fail(std::move(cancelled));
    }
    // `this` may be gone once this resumes (the event destroyed while waiting): not touched again.
    co_return co_await wait(asio::use_awaitable);
}

void Event::link(detail::EventWaiter* waiter) noexcept {
    waiter->previous = last_;
    waiter->next = nullptr;
    if (last_ != nullptr) {
        last_->next = waiter;
    } else {
        first_ = waiter;
    }
    last_ = waiter;
}

void Event::unlink(detail::EventWaiter* waiter) noexcept {
    if (waiter->previous != nullptr) {
        waiter->previous->next = waiter->next;
    } else {
        first_ = waiter->next;
    }
    if (waiter->next != nullptr) {
        waiter->next->previous = waiter->previous;
    } else {
        last_ = waiter->previous;
    }
    waiter->previous = nullptr;
    waiter->next = nullptr;
}

void Event::cancel(detail::EventWaiter* waiter, const char* message) {
    detail::EventResult cancelled = fail(EffectError{EffectErrc::cancelled, message});
    waiter->finish(&cancelled, &executor_);
}

}  // namespace reagent
