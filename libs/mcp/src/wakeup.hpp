#pragma once
// Wakeup: one coroutine's wait for a wake-up, which the waker can run at once, on its own stack.

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/execution_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/query.hpp>
#include <boost/system/error_code.hpp>
#include <exception>
#include <memory>
#include <mutex>
#include <utility>

#include "reagent/core/task.hpp"

namespace reagent::mcp::detail {

class Wakeup;

// Owns the waits in progress of one execution context, as Asio's services own their pending operations:
// a context shut down while a coroutine still waits destroys it instead of leaking its frame (and what the
// frame holds, such as a server process).
class WakeupService final : public boost::asio::execution_context::service {
  public:
    static inline boost::asio::execution_context::id id;

    explicit WakeupService(boost::asio::execution_context& context) : service(context) {}

    static WakeupService& of(const Executor& executor) {
        return boost::asio::use_service<WakeupService>(
            boost::asio::query(executor, boost::asio::execution::context));
    }

    void add(Wakeup* wakeup) noexcept;
    void remove(Wakeup* wakeup) noexcept;

  private:
    void shutdown() override;

    std::mutex mutex_;
    Wakeup* first_ = nullptr;
};

// A wait with no timer and no trip through the reactor. `resume` runs the waiter at once when called on
// its executor's thread (a reader hands a response straight to the request waiting for it: no posted
// hop, no extra poll of the event loop); `wake` queues it. Cancelling the waiter's own operation wakes it
// with `operation_aborted` (queued). A wake with no wait in progress is lost: the waiter looks at the
// state it waits for before waiting. One wait at a time; used from the waiter's strand.
class Wakeup {
  public:
    // `service`: `WakeupService::of(executor)`, looked up once by the owner (a lookup takes a lock).
    Wakeup(WakeupService& service, const Executor& executor) : service_(&service), executor_(executor) {}
    Wakeup(const Wakeup&) = delete;
    Wakeup& operator=(const Wakeup&) = delete;
    ~Wakeup() {
        if (handler_) {
            // The waiting frame is being destroyed without resuming (its context shut down).
            service_->remove(this);
        }
    }

    template <class Token>
    auto wait(Token&& token) {
        return boost::asio::async_initiate<Token, void(boost::system::error_code)>(
            [this](auto handler) {
                // The executor the waiter resumes on (its coroutine's), taken before its type is erased.
                handlerExecutor_ = boost::asio::get_associated_executor(handler, executor_);
                handler_ = std::make_unique<Handler>(std::move(handler));
                service_->add(this);
                auto slot = handler_->get_cancellation_slot();
                if (slot.is_connected()) {
                    // Not cleared by the completion it triggers (it runs inside this handler); the waiter's
                    // resumption clears its slot, and a later call finds nothing to complete.
                    slot.assign([this](boost::asio::cancellation_type) {
                        complete(boost::asio::error::operation_aborted, false);
                    });
                }
            },
            std::forward<Token>(token));
    }

    // Runs the waiter now if on its executor's thread (it runs until it suspends again), else queues it.
    void resume() { complete({}, true); }
    // Queues the waiter.
    void wake() { complete({}, false); }

  private:
    friend class WakeupService;

    void complete(boost::system::error_code ec, bool now) {
        if (!handler_) {
            return;
        }
        service_->remove(this);
        auto handler = std::move(handler_);
        Executor executor = std::move(handlerExecutor_);
        auto run = [handler = std::move(handler), ec]() mutable { std::move (*handler)(ec); };
        if (now) {
            // `this` may be gone once the waiter ran. What its completion handler throws reaches the
            // caller of the event loop's run() as it would without the shortcut, not the waker.
            try {
                boost::asio::dispatch(executor, std::move(run));
            } catch (...) {
                boost::asio::post(executor,
                                  [error = std::current_exception()] { std::rethrow_exception(error); });
            }
        } else {
            boost::asio::post(executor, std::move(run));
        }
    }

    WakeupService* service_;
    Executor executor_;
    Executor handlerExecutor_;
    // Held by pointer: Boost 1.81's any_completion_handler wraps itself again on every move.
    using Handler = boost::asio::any_completion_handler<void(boost::system::error_code)>;
    std::unique_ptr<Handler> handler_;
    // The service's list of waits in progress.
    Wakeup* previous_ = nullptr;
    Wakeup* next_ = nullptr;
};

inline void WakeupService::add(Wakeup* wakeup) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    wakeup->previous_ = nullptr;
    wakeup->next_ = first_;
    if (first_ != nullptr) {
        first_->previous_ = wakeup;
    }
    first_ = wakeup;
}

inline void WakeupService::remove(Wakeup* wakeup) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (wakeup->previous_ != nullptr) {
        wakeup->previous_->next_ = wakeup->next_;
    } else if (first_ == wakeup) {
        first_ = wakeup->next_;
    }
    if (wakeup->next_ != nullptr) {
        wakeup->next_->previous_ = wakeup->previous_;
    }
    wakeup->previous_ = nullptr;
    wakeup->next_ = nullptr;
}

inline void WakeupService::shutdown() {
    for (;;) {
        std::unique_ptr<Wakeup::Handler> handler;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (first_ == nullptr) {
                return;
            }
            Wakeup* wakeup = first_;
            first_ = wakeup->next_;
            if (first_ != nullptr) {
                first_->previous_ = nullptr;
            }
            wakeup->next_ = nullptr;
            handler = std::move(wakeup->handler_);
        }
        // Destroyed outside the lock: it destroys the waiting frame, and with it the Wakeup.
    }
}

}  // namespace reagent::mcp::detail
