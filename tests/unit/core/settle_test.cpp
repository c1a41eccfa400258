#include "reagent/core/settle.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>

#include "reagent/core/timeout.hpp"
#include "run_coro.hpp"

using namespace std::chrono_literals;
using reagent::EffectErrc;
using reagent::EffectError;
using reagent::expected;
using reagent::Task;
using reagent::test::runCoro;
using reagent::test::sleepFor;
namespace asio = boost::asio;

namespace {

Task<int> answer() {
    co_return 42;
}

Task<int> throwsNow() {
    throw std::runtime_error("disk on fire");
    co_return 0;
}

Task<void> sleeps(std::chrono::milliseconds d, bool* started = nullptr) {
    if (started) *started = true;
    co_await sleepFor(d);
}

// Spawns `task` on `io` with a cancellation signal emitted after `after`; returns what it delivered.
template <class T>
std::optional<T> runCancelledAfter(Task<T> task, std::chrono::milliseconds after) {
    asio::io_context io;
    asio::cancellation_signal signal;
    std::optional<T> outcome;
    asio::co_spawn(io, std::move(task),
                   asio::bind_cancellation_slot(signal.slot(), [&](std::exception_ptr e, T r) {
                       REQUIRE_FALSE(e);
                       outcome = std::move(r);
                   }));
    asio::steady_timer trigger(io, after);
    trigger.async_wait([&](auto) { signal.emit(asio::cancellation_type::terminal); });
    io.run();
    return outcome;
}

}  // namespace

TEST_CASE("settle delivers the task's value, and void tasks settle too", "[core][settle]") {
    auto value = runCoro(reagent::settle(answer()));
    REQUIRE(value.has_value());
    CHECK(*value == 42);
    auto nothing = runCoro(reagent::settle(sleeps(1ms)));
    CHECK(nothing.has_value());
}

TEST_CASE("settle turns an exception into an exception error carrying what()", "[core][settle]") {
    auto result = runCoro(reagent::settle(throwsNow()));
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().code == EffectErrc::exception);
    CHECK(result.error().message == "disk on fire");
}

TEST_CASE("settle reports a cancellation that arrives while the task runs", "[core][settle][cancel]") {
    const auto start = std::chrono::steady_clock::now();
    auto outcome = runCancelledAfter(reagent::settle(sleeps(10s)), 20ms);
    REQUIRE(outcome.has_value());
    REQUIRE_FALSE(outcome->has_value());
    CHECK(outcome->error().code == EffectErrc::cancelled);
    CHECK(outcome->error().message == "cancelled while running");
    CHECK(reagent::test::elapsedMs(start) < 1000);
}

namespace {

// A driver of two steps: the second starts after the cancellation, so it must not start at all.
struct TwoSteps {
    bool secondStarted = false;
    std::optional<EffectError> first;
    std::optional<EffectError> second;
};

Task<TwoSteps> twoSteps() {
    TwoSteps steps;
    auto first = co_await reagent::settle(sleeps(10s));
    if (!first) steps.first = first.error();
    auto second = co_await reagent::settle(sleeps(10ms, &steps.secondStarted));
    if (!second) steps.second = second.error();
    co_return steps;
}

}  // namespace

TEST_CASE("under withCheckedCancellation a driver gets values, and steps after a cancellation do not start",
          "[core][settle][cancel]") {
    auto outcome = runCancelledAfter(reagent::withCheckedCancellation(twoSteps()), 20ms);
    REQUIRE(outcome.has_value());
    REQUIRE(outcome->first.has_value());
    CHECK(outcome->first->code == EffectErrc::cancelled);
    REQUIRE(outcome->second.has_value());
    CHECK(outcome->second->code == EffectErrc::cancelled);
    CHECK(outcome->second->message == "cancelled before it started");
    CHECK_FALSE(outcome->secondStarted);
}

namespace {

// Catches the cancellation of its first wait, then awaits again: with Asio's default that await throws.
Task<void> persistent(bool* reachedEnd) {
    try {
        co_await sleepFor(10s);
    } catch (...) {
    }
    co_await sleepFor(1ms);
    *reachedEnd = true;
}

Task<expected<void, EffectError>> checkedDriverOf(Task<void> task) {
    co_return co_await reagent::settle(std::move(task));
}

}  // namespace

TEST_CASE("a task settled by a checked driver keeps Asio's default: an await after cancellation throws",
          "[core][settle][cancel]") {
    bool reachedEnd = false;
    auto outcome =
        runCancelledAfter(reagent::withCheckedCancellation(checkedDriverOf(persistent(&reachedEnd))), 20ms);
    REQUIRE(outcome.has_value());
    REQUIRE_FALSE(outcome->has_value());
    CHECK(outcome->error().code == EffectErrc::cancelled);
    CHECK_FALSE(reachedEnd);
}

namespace {

// Cleans up after a cancellation (a wait bound to no slot), then returns; the caller's next await throws
// again because the caller's setting is restored.
Task<bool> cleanUpAfterCancellation() {
    asio::steady_timer cancelled(co_await asio::this_coro::executor, 10s);
    co_await cancelled.async_wait(asio::as_tuple(asio::use_awaitable));
    asio::steady_timer cleanup(co_await asio::this_coro::executor, 5ms);
    auto unbound =
        asio::bind_cancellation_slot(asio::cancellation_slot(), asio::as_tuple(asio::use_awaitable));
    auto [ec] = co_await cleanup.async_wait(unbound);
    co_return !ec;
}

Task<std::string> callerOfCleanUp() {
    const bool cleaned = co_await reagent::withCheckedCancellation(cleanUpAfterCancellation());
    std::string afterwards = "no throw";
    try {
        co_await sleepFor(1ms);
    } catch (const boost::system::system_error& e) {
        afterwards = e.code() == asio::error::operation_aborted ? "threw operation_aborted" : "threw";
    }
    co_return (cleaned ? "cleaned, " : "not cleaned, ") + afterwards;
}

}  // namespace

TEST_CASE("withCheckedCancellation lets clean-up run after a cancellation and restores the caller's setting",
          "[core][settle][cancel]") {
    auto outcome = runCancelledAfter(callerOfCleanUp(), 20ms);
    REQUIRE(outcome.has_value());
    CHECK(*outcome == "cleaned, threw operation_aborted");
}

TEST_CASE("settle with an error mapping keeps the task's own error type", "[core][settle]") {
    auto mapping = [](const EffectError& e) { return "mapped: " + e.message; };
    auto failing = []() -> Task<expected<int, std::string>> {
        co_return reagent::fail(std::string("own error"));
    };
    auto throwing = []() -> Task<expected<int, std::string>> {
        throw std::runtime_error("boom");
        co_return 1;
    };
    auto own = runCoro(reagent::settle(failing(), mapping));
    REQUIRE_FALSE(own.has_value());
    CHECK(own.error() == "own error");
    auto mapped = runCoro(reagent::settle(throwing(), mapping));
    REQUIRE_FALSE(mapped.has_value());
    CHECK(mapped.error() == "mapped: boom");
}

TEST_CASE("settleCall delivers a callback's value or what it threw", "[core][settle]") {
    auto value = reagent::settleCall([](int x) { return x * 2; }, 21);
    REQUIRE(value.has_value());
    CHECK(*value == 42);
    auto thrown = reagent::settleCall([] { throw std::logic_error("bad observer"); });
    REQUIRE_FALSE(thrown.has_value());
    CHECK(thrown.error().code == EffectErrc::exception);
    CHECK(thrown.error().message == "bad observer");
}

TEST_CASE("withTimeout does not start a task once its caller is cancelled",
          "[core][settle][timeout][cancel]") {
    bool started = false;
    auto driver = [](bool* flag) -> Task<expected<void, EffectError>> {
        asio::steady_timer cancelled(co_await asio::this_coro::executor, 10s);
        co_await cancelled.async_wait(asio::as_tuple(asio::use_awaitable));
        co_return co_await reagent::withTimeout(sleeps(10ms, flag), 1s);
    };
    auto outcome = runCancelledAfter(reagent::withCheckedCancellation(driver(&started)), 20ms);
    REQUIRE(outcome.has_value());
    REQUIRE_FALSE(outcome->has_value());
    CHECK(outcome->error().message == "cancelled before it started");
    CHECK_FALSE(started);
}
