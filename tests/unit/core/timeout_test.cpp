#include "reagent/core/timeout.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <stdexcept>
#include <string>

#include "run_coro.hpp"

using namespace std::chrono_literals;
using reagent::EffectErrc;
using reagent::Task;
using reagent::test::runCoro;
using reagent::test::sleepFor;

namespace {

Task<int> answerAfter(std::chrono::milliseconds d, bool* cancelledFlag = nullptr) {
    try {
        co_await sleepFor(d);
    } catch (...) {
        if (cancelledFlag) *cancelledFlag = true;
        throw;
    }
    co_return 42;
}

Task<int> throwsAfter(std::chrono::milliseconds d) {
    co_await sleepFor(d);
    throw std::runtime_error("disk on fire");
}

Task<void> nothingAfter(std::chrono::milliseconds d) {
    co_await sleepFor(d);
}

}  // namespace

TEST_CASE("withTimeout returns the value when the task wins", "[core][timeout]") {
    auto result = runCoro(reagent::withTimeout(answerAfter(5ms), 1s));
    REQUIRE(result.has_value());
    CHECK(*result == 42);
}

TEST_CASE("withTimeout cancels the task and reports timeout when the timer wins", "[core][timeout]") {
    bool taskCancelled = false;
    const auto start = std::chrono::steady_clock::now();
    auto result = runCoro(reagent::withTimeout(answerAfter(10s, &taskCancelled), 50ms));
    const auto took = reagent::test::elapsedMs(start);
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().code == EffectErrc::timeout);
    CHECK(result.error().message == "timed out after 50 ms");
    CHECK(taskCancelled);
    CHECK(took >= 45);
    CHECK(took < 1000);
}

TEST_CASE("withTimeout turns an exception into a value without waiting for the timer", "[core][timeout]") {
    const auto start = std::chrono::steady_clock::now();
    auto result = runCoro(reagent::withTimeout(throwsAfter(5ms), 5s));
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().code == EffectErrc::exception);
    CHECK(result.error().message == "disk on fire");
    CHECK(reagent::test::elapsedMs(start) < 1000);
}

TEST_CASE("withTimeout supports void tasks", "[core][timeout]") {
    CHECK(runCoro(reagent::withTimeout(nothingAfter(1ms), 1s)).has_value());
    auto late = runCoro(reagent::withTimeout(nothingAfter(5s), 20ms));
    REQUIRE_FALSE(late.has_value());
    CHECK(late.error().code == EffectErrc::timeout);
}

TEST_CASE("withTimeout reports cancellation by the caller", "[core][timeout][cancel]") {
    boost::asio::io_context io;
    boost::asio::cancellation_signal signal;
    std::optional<reagent::expected<int, reagent::EffectError>> outcome;
    bool taskCancelled = false;
    boost::asio::co_spawn(
        io, reagent::withTimeout(answerAfter(10s, &taskCancelled), 10s),
        boost::asio::bind_cancellation_slot(signal.slot(), [&](std::exception_ptr e, auto r) {
            REQUIRE_FALSE(e);
            outcome = std::move(r);
        }));
    boost::asio::steady_timer trigger(io, 30ms);
    trigger.async_wait([&](auto) { signal.emit(boost::asio::cancellation_type::terminal); });
    const auto start = std::chrono::steady_clock::now();
    io.run();
    REQUIRE(outcome.has_value());
    REQUIRE_FALSE(outcome->has_value());
    CHECK(outcome->error().code == EffectErrc::cancelled);
    CHECK(taskCancelled);
    CHECK(reagent::test::elapsedMs(start) < 1000);
}

namespace {

// Ignores the first cancellation for `grace`, then answers: the loser of a race is awaited, not abandoned.
Task<int> answerAfterGrace(std::chrono::milliseconds grace, bool* finished) {
    try {
        co_await sleepFor(10s);
    } catch (...) {
    }
    // The thread's cancellation state stays set: a fresh one lets the grace period be slept.
    co_await boost::asio::this_coro::reset_cancellation_state();
    co_await sleepFor(grace);
    *finished = true;
    co_return 7;
}

Task<int> answerAtOnce() {
    co_return 5;
}

}  // namespace

TEST_CASE("withTimeout awaits a task that finishes after its cancellation", "[core][timeout]") {
    bool finished = false;
    const auto start = std::chrono::steady_clock::now();
    auto result = runCoro(reagent::withTimeout(answerAfterGrace(80ms, &finished), 20ms));
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error().code == EffectErrc::timeout);
    CHECK(finished);
    CHECK(reagent::test::elapsedMs(start) >= 95);
}

TEST_CASE("withTimeout returns a task that never suspends", "[core][timeout]") {
    auto result = runCoro(reagent::withTimeout(answerAtOnce(), 1ms));
    REQUIRE(result.has_value());
    CHECK(*result == 5);
}

TEST_CASE("withTimeout runs many races at once, each with its own outcome", "[core][timeout]") {
    boost::asio::io_context io;
    constexpr int kRaces = 500;
    int won = 0;
    int timedOut = 0;
    for (int i = 0; i < kRaces; ++i) {
        // Even races finish well before their deadline, odd ones long after.
        const auto work = i % 2 == 0 ? 1ms : 5s;
        boost::asio::co_spawn(io, reagent::withTimeout(answerAfter(work), 100ms),
                              [&](std::exception_ptr e, reagent::expected<int, reagent::EffectError> r) {
                                  REQUIRE_FALSE(e);
                                  if (r) {
                                      ++won;
                                  } else if (r.error().code == EffectErrc::timeout) {
                                      ++timedOut;
                                  }
                              });
    }
    const auto start = std::chrono::steady_clock::now();
    io.run();
    CHECK(won == kRaces / 2);
    CHECK(timedOut == kRaces / 2);
    CHECK(reagent::test::elapsedMs(start) < 2000);
}

TEST_CASE("a caller's cancellation after the task finished changes nothing", "[core][timeout][cancel]") {
    boost::asio::io_context io;
    boost::asio::cancellation_signal signal;
    std::optional<reagent::expected<int, reagent::EffectError>> outcome;
    boost::asio::co_spawn(
        io, reagent::withTimeout(answerAfter(1ms), 10s),
        boost::asio::bind_cancellation_slot(signal.slot(), [&](std::exception_ptr e, auto r) {
            REQUIRE_FALSE(e);
            outcome = std::move(r);
            signal.emit(boost::asio::cancellation_type::terminal);
        }));
    io.run();
    REQUIRE(outcome.has_value());
    REQUIRE(outcome->has_value());
    CHECK(**outcome == 42);
}
