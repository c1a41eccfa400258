#include "reagent/core/event.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <catch2/catch.hpp>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

using reagent::EffectErrc;
using reagent::EffectError;
using reagent::Event;
using reagent::expected;
using reagent::Task;
namespace asio = boost::asio;

namespace {
namespace event_test {

// How one wait ended, seen from the waiting coroutine.
struct Outcome {
    bool done = false;
    bool ok = false;
    EffectErrc code{};
    std::string message;
    void record(const expected<void, EffectError>& result) {
        done = true;
        ok = result.has_value();
        if (!result) {
            code = result.error().code;
            message = result.error().message;
        }
    }
};

// What a waiter throws reaches io.run() and fails the test: waits must not throw.
void rethrow(std::exception_ptr error) {
    if (error) {
        std::rethrow_exception(error);
    }
}

Task<void> waitFor(Event* event, Outcome* outcome, std::vector<int>* order, int id) {
    auto result = co_await event->wait();
    outcome->record(result);
    if (order != nullptr) {
        order->push_back(id);
    }
}

void spawnWaiter(asio::io_context& io, Event& event, Outcome& outcome, std::vector<int>* order = nullptr,
                 int id = 0) {
    asio::co_spawn(io, waitFor(&event, &outcome, order, id), rethrow);
}

void spawnWaiter(asio::io_context& io, Event& event, Outcome& outcome, asio::cancellation_signal& signal) {
    asio::co_spawn(io, waitFor(&event, &outcome, nullptr, 0),
                   asio::bind_cancellation_slot(signal.slot(), rethrow));
}

// Waits on an event that is set already, with a handler posted just before: the wait must not go
// through the event loop, so the posted handler has not run when it returns.
Task<void> waitOnSetEvent(Event* event, Outcome* outcome, bool* postedRanFirst) {
    auto posted = std::make_shared<bool>(false);
    auto executor = co_await asio::this_coro::executor;
    asio::post(executor, [posted] { *posted = true; });
    auto result = co_await event->wait();
    outcome->record(result);
    *postedRanFirst = *posted;
}

// Sets the event and records whether any waiter ran inside set().
Task<void> setAndLook(Event* event, const std::vector<Outcome>* outcomes, bool* ranInsideSet) {
    event->set();
    for (const Outcome& outcome : *outcomes) {
        if (outcome.done) {
            *ranInsideSet = true;
        }
    }
    co_return;
}

// Does not throw on cancellation; after its first wait is cancelled, a second wait (on an event never
// set) must end at once with `cancelled`.
Task<void> waitTwiceUncaught(Event* first, Event* second, Outcome* outcome1, Outcome* outcome2) {
    co_await asio::this_coro::throw_if_cancelled(false);
    auto result1 = co_await first->wait();
    outcome1->record(result1);
    auto result2 = co_await second->wait();
    outcome2->record(result2);
}

// Marks its destruction, which must happen when the io_context goes away with the frame waiting.
struct DestroyFlag {
    bool* destroyed;
    ~DestroyFlag() { *destroyed = true; }
};

Task<void> waitHoldingFlag(Event* event, bool* destroyed, bool* resumed) {
    DestroyFlag flag{destroyed};
    auto result = co_await event->wait();
    (void)result;
    *resumed = true;
}

// Owns the event (its last reference) and waits on it.
Task<void> ownAndWait(std::shared_ptr<Event> event, bool* destroyed, bool* resumed) {
    DestroyFlag flag{destroyed};
    auto result = co_await event->wait();
    (void)result;
    *resumed = true;
}

// The event lives in the waiting frame itself.
Task<void> waitOnOwnEvent(bool* destroyed, bool* resumed) {
    DestroyFlag flag{destroyed};
    Event event(co_await asio::this_coro::executor);
    auto result = co_await event.wait();
    (void)result;
    *resumed = true;
}

// Waits `rounds` times; waiter 0 resets the event after each wake-up (and sets it again at once if
// `setAgain`) while the other waiters' resumptions are still queued.
Task<void> waitRounds(Event* event, int rounds, int id, std::vector<int>* wakeups, bool setAgain) {
    for (int round = 0; round < rounds; ++round) {
        auto result = co_await event->wait();
        REQUIRE(result);
        ++(*wakeups)[static_cast<std::size_t>(id)];
        if (id == 0) {
            event->reset();
            if (setAgain) {
                event->set();
            }
        }
    }
}

// Resumed first, destroys the event (its parameter holds the last reference) while the other waiters'
// resumptions are still queued.
Task<void> waitThenDestroy(std::shared_ptr<Event> event, Outcome* outcome) {
    auto result = co_await event->wait();
    outcome->record(result);
    event.reset();
}

TEST_CASE("Event: a wait on a set event completes at once", "[core][event]") {
    asio::io_context io;
    Event event(io.get_executor());
    CHECK_FALSE(event.isSet());
    event.set();
    CHECK(event.isSet());
    Outcome outcome;
    bool postedRanFirst = true;
    asio::co_spawn(io, waitOnSetEvent(&event, &outcome, &postedRanFirst), rethrow);
    io.run();
    CHECK(outcome.ok);
    CHECK_FALSE(postedRanFirst);
    CHECK(event.isSet());  // a wait does not consume the event

    SECTION("the operation form completes through the executor, never inline") {
        std::optional<bool> called;
        event.wait([&](expected<void, EffectError> result) { called = result.has_value(); });
        CHECK_FALSE(called);
        io.restart();
        io.run();
        CHECK(called == true);
    }
}

TEST_CASE("Event: one set wakes every waiter, in order, none inside set()", "[core][event]") {
    asio::io_context io;
    Event event(io.get_executor());
    std::vector<Outcome> outcomes(3);
    std::vector<int> order;
    for (int i = 0; i < 3; ++i) {
        spawnWaiter(io, event, outcomes[static_cast<std::size_t>(i)], &order, i);
    }
    io.poll();
    for (const Outcome& outcome : outcomes) {
        CHECK_FALSE(outcome.done);
    }
    bool ranInsideSet = false;
    asio::co_spawn(io, setAndLook(&event, &outcomes, &ranInsideSet), rethrow);
    io.run();
    CHECK_FALSE(ranInsideSet);
    for (const Outcome& outcome : outcomes) {
        CHECK(outcome.ok);
    }
    CHECK(order == std::vector<int>{0, 1, 2});
}

TEST_CASE("Event: reset makes later waits wait for the next set", "[core][event]") {
    asio::io_context io;
    Event event(io.get_executor());
    event.set();
    event.reset();
    CHECK_FALSE(event.isSet());
    Outcome outcome;
    spawnWaiter(io, event, outcome);
    io.poll();
    CHECK_FALSE(outcome.done);
    event.set();
    io.run();
    CHECK(outcome.ok);
}

TEST_CASE("Event: cancelling one waiter leaves the others waiting", "[core][event][cancel]") {
    asio::io_context io;
    Event event(io.get_executor());
    Outcome first;
    Outcome second;
    Outcome third;
    asio::cancellation_signal firstSignal;
    asio::cancellation_signal secondSignal;
    spawnWaiter(io, event, first, firstSignal);
    // A coroutine lets only terminal cancellation through by default (co_spawn's filter): the operation
    // form, bound to a slot of its own, sees a partial one.
    auto record = [&second](expected<void, EffectError> result) { second.record(result); };
    event.wait(asio::bind_cancellation_slot(secondSignal.slot(), record));
    spawnWaiter(io, event, third);
    io.poll();

    firstSignal.emit(asio::cancellation_type::terminal);
    io.poll();
    CHECK(first.done);
    CHECK_FALSE(first.ok);
    CHECK(first.code == EffectErrc::cancelled);
    CHECK_FALSE(first.message.empty());
    CHECK_FALSE(second.done);
    CHECK_FALSE(third.done);

    secondSignal.emit(asio::cancellation_type::partial);
    io.poll();
    CHECK(second.done);
    CHECK(second.code == EffectErrc::cancelled);
    CHECK_FALSE(third.done);

    event.set();
    io.run();
    CHECK(third.ok);
}

TEST_CASE("Event: a cancellation after set() does not undo the wake-up", "[core][event][cancel]") {
    asio::io_context io;
    Event event(io.get_executor());
    Outcome outcome;
    asio::cancellation_signal signal;
    spawnWaiter(io, event, outcome, signal);
    io.poll();
    // On the io thread, so that the cancellation reaches the wait before its resumption runs.
    asio::post(io, [&] {
        event.set();
        signal.emit(asio::cancellation_type::terminal);
        signal.emit(asio::cancellation_type::terminal);
    });
    io.run();
    CHECK(outcome.ok);
}

TEST_CASE("Event: a wait started in a cancelled coroutine ends at once", "[core][event][cancel]") {
    asio::io_context io;
    Event first(io.get_executor());
    Event never(io.get_executor());
    Outcome outcome1;
    Outcome outcome2;
    asio::cancellation_signal signal;
    asio::co_spawn(io, waitTwiceUncaught(&first, &never, &outcome1, &outcome2),
                   asio::bind_cancellation_slot(signal.slot(), rethrow));
    io.poll();
    signal.emit(asio::cancellation_type::terminal);
    io.run();
    CHECK(outcome1.code == EffectErrc::cancelled);
    CHECK(outcome2.done);
    CHECK(outcome2.code == EffectErrc::cancelled);
}

TEST_CASE("Event: destroying the event ends its waits with cancelled", "[core][event]") {
    asio::io_context io;
    auto event = std::make_unique<Event>(io.get_executor());
    Outcome outcome;
    spawnWaiter(io, *event, outcome);
    io.poll();
    event.reset();
    io.run();
    CHECK(outcome.done);
    CHECK(outcome.code == EffectErrc::cancelled);
}

TEST_CASE("Event: an io_context destroyed with waiters destroys their frames", "[core][event][lifetime]") {
    bool destroyed = false;
    bool resumed = false;

    SECTION("the event in another waiting frame") {
        bool ownerDestroyed = false;
        bool ownerResumed = false;
        {
            asio::io_context io;
            auto event = std::make_shared<Event>(io.get_executor());
            asio::co_spawn(io, waitHoldingFlag(event.get(), &destroyed, &resumed), rethrow);
            asio::co_spawn(io, ownAndWait(std::move(event), &ownerDestroyed, &ownerResumed), rethrow);
            io.poll();
            CHECK_FALSE(destroyed);
        }
        CHECK(destroyed);
        CHECK_FALSE(resumed);
        CHECK(ownerDestroyed);
        CHECK_FALSE(ownerResumed);
    }

    SECTION("the event in the waiting frame") {
        {
            asio::io_context io;
            asio::co_spawn(io, waitOnOwnEvent(&destroyed, &resumed), rethrow);
            io.poll();
            CHECK_FALSE(destroyed);
        }
        CHECK(destroyed);
        CHECK_FALSE(resumed);
    }

    SECTION("a resumption still queued") {
        {
            asio::io_context io;
            Event event(io.get_executor());
            asio::co_spawn(io, waitHoldingFlag(&event, &destroyed, &resumed), rethrow);
            io.poll();
            event.set();
            // Destroyed before the posted resumption ran.
        }
        CHECK(destroyed);
        CHECK_FALSE(resumed);
    }
}

TEST_CASE("Event: set and reset while waiters are being resumed", "[core][event]") {
    asio::io_context io;
    Event event(io.get_executor());
    std::vector<int> wakeups(3, 0);

    SECTION("set from a handler queued behind the resumptions") {
        for (int id = 0; id < 3; ++id) {
            asio::co_spawn(io, waitRounds(&event, 2, id, &wakeups, false), rethrow);
        }
        io.poll();
        event.set();
        // Runs after the three resumptions: waiter 0 has reset the event by then, and all wait again.
        asio::post(io, [&event] { event.set(); });
        io.run();
        CHECK(wakeups == std::vector<int>{2, 2, 2});
        CHECK_FALSE(event.isSet());
    }

    SECTION("reset and set by the first waiter resumed, the others' resumptions still queued") {
        for (int id = 0; id < 3; ++id) {
            asio::co_spawn(io, waitRounds(&event, 2, id, &wakeups, true), rethrow);
        }
        io.poll();
        event.set();
        io.run();
        CHECK(wakeups == std::vector<int>{2, 2, 2});
        CHECK(event.isSet());
    }
}

TEST_CASE("Event: a waiter that destroys the event does not disturb the others", "[core][event]") {
    asio::io_context io;
    auto holder = std::make_shared<Event>(io.get_executor());
    Event* event = holder.get();
    Outcome destroyer;
    std::vector<Outcome> others(2);
    asio::co_spawn(io, waitThenDestroy(std::move(holder), &destroyer), rethrow);
    spawnWaiter(io, *event, others[0]);
    spawnWaiter(io, *event, others[1]);
    io.poll();
    event->set();
    io.run();
    CHECK(destroyer.ok);
    CHECK(others[0].ok);
    CHECK(others[1].ok);
}

// Sets `event` with the oldest waiter resumed inline, from inside the event loop, and records which of
// the waiters had finished by the time set() returned.
void setInlineFirst(asio::io_context& io, Event& event, const std::vector<Outcome>& outcomes,
                    std::vector<bool>& doneAtReturn) {
    asio::post(io, [&] {
        event.set(Event::Resumption::inlineFirst);
        for (const Outcome& outcome : outcomes) {
            doneAtReturn.push_back(outcome.done);
        }
    });
}

TEST_CASE("Event: set(inlineFirst) runs the oldest waiter inside set(), the others after",
          "[core][event][inline]") {
    asio::io_context io;
    Event event(io.get_executor());
    std::vector<Outcome> outcomes(3);
    std::vector<int> order;
    for (int i = 0; i < 3; ++i) {
        spawnWaiter(io, event, outcomes[static_cast<std::size_t>(i)], &order, i);
    }
    io.poll();
    std::vector<bool> doneAtReturn;
    setInlineFirst(io, event, outcomes, doneAtReturn);
    io.run();
    CHECK(doneAtReturn == std::vector<bool>{true, false, false});
    for (const Outcome& outcome : outcomes) {
        CHECK(outcome.ok);
    }
    CHECK(order == std::vector<int>{0, 1, 2});
}

TEST_CASE("Event: set(inlineFirst) away from the executor's thread posts every waiter",
          "[core][event][inline]") {
    asio::io_context io;
    Event event(io.get_executor());
    Outcome outcome;
    spawnWaiter(io, event, outcome);
    io.poll();
    // Not inside io.run(): the waiter must not run on this stack.
    event.set(Event::Resumption::inlineFirst);
    CHECK_FALSE(outcome.done);
    io.run();
    CHECK(outcome.ok);
}

TEST_CASE("Event: a waiter run inside set(inlineFirst) may destroy the event", "[core][event][inline]") {
    asio::io_context io;
    auto holder = std::make_shared<Event>(io.get_executor());
    Event* event = holder.get();
    std::vector<Outcome> outcomes(3);
    asio::co_spawn(io, waitThenDestroy(std::move(holder), &outcomes[0]), rethrow);
    spawnWaiter(io, *event, outcomes[1]);
    spawnWaiter(io, *event, outcomes[2]);
    io.poll();
    bool setReturned = false;
    asio::post(io, [&] {
        event->set(Event::Resumption::inlineFirst);
        setReturned = true;  // the event is gone: only this frame's own state is touched
    });
    io.run();
    CHECK(setReturned);
    for (const Outcome& outcome : outcomes) {
        CHECK(outcome.ok);
    }
}

Task<void> waitThenThrow(Event* event) {
    (void)co_await event->wait();
    throw std::runtime_error("the waiter failed");
}

TEST_CASE("Event: what a waiter run inline throws reaches io.run(), not the setter",
          "[core][event][inline]") {
    asio::io_context io;
    Event event(io.get_executor());
    asio::co_spawn(io, waitThenThrow(&event), rethrow);
    io.poll();
    bool setReturned = false;
    asio::post(io, [&] {
        event.set(Event::Resumption::inlineFirst);
        setReturned = true;
    });
    CHECK_THROWS_WITH(io.run(), "the waiter failed");
    CHECK(setReturned);
}

}  // namespace event_test
}  // namespace
