#include "reagent/core/parallel.hpp"

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
#include <vector>

#include "reagent/core/settle.hpp"
#include "run_coro.hpp"

using namespace std::chrono_literals;
using reagent::EffectErrc;
using reagent::Task;
using reagent::test::runCoro;
using reagent::test::sleepFor;

namespace {

struct Probe {
    int running = 0;
    int peak = 0;
    int cancelled = 0;
};

Task<int> sleepThenSquare(Probe* probe, int n, std::chrono::milliseconds d) {
    ++probe->running;
    probe->peak = std::max(probe->peak, probe->running);
    try {
        co_await sleepFor(d);
    } catch (...) {
        --probe->running;
        ++probe->cancelled;
        throw;
    }
    --probe->running;
    if (n < 0) throw std::invalid_argument("negative input");
    co_return n* n;
}

}  // namespace

TEST_CASE("parallelMap keeps input order whatever the completion order", "[core][parallel]") {
    Probe probe;
    std::vector<int> inputs{1, 2, 3, 4, 5};
    auto results = runCoro(reagent::parallelMap(inputs, 5, [&](int n) {
        // Later inputs finish first.
        return sleepThenSquare(&probe, n, std::chrono::milliseconds(60 - 10 * n));
    }));
    REQUIRE(results.size() == 5);
    for (int i = 0; i < 5; ++i) {
        REQUIRE(results[i].has_value());
        CHECK(*results[i] == (i + 1) * (i + 1));
    }
}

TEST_CASE("parallelMap never runs more than the limit at once", "[core][parallel]") {
    Probe probe;
    const auto start = std::chrono::steady_clock::now();
    auto results = runCoro(reagent::parallelMap(std::vector<int>{1, 2, 3, 4, 5, 6, 7}, 3,
                                                [&](int n) { return sleepThenSquare(&probe, n, 50ms); }));
    const auto took = reagent::test::elapsedMs(start);
    CHECK(probe.peak == 3);
    CHECK(results.size() == 7);
    // 7 items at 3 at a time: three waves of 50 ms.
    CHECK(took >= 145);
    CHECK(took < 600);
}

TEST_CASE("parallelMap isolates a failing item", "[core][parallel]") {
    Probe probe;
    auto results = runCoro(reagent::parallelMap(std::vector<int>{2, -1, 3}, 3,
                                                [&](int n) { return sleepThenSquare(&probe, n, 5ms); }));
    REQUIRE(results[0].has_value());
    REQUIRE_FALSE(results[1].has_value());
    CHECK(results[1].error().code == EffectErrc::exception);
    CHECK(results[1].error().message == "negative input");
    REQUIRE(results[2].has_value());
    CHECK(*results[2] == 9);
}

TEST_CASE("parallelMap of nothing is nothing", "[core][parallel]") {
    auto results = runCoro(
        reagent::parallelMap(std::vector<int>{}, 3, [](int n) { return sleepThenSquare(nullptr, n, 1ms); }));
    CHECK(results.empty());
}

TEST_CASE("cancelling parallelMap reaches items in flight and skips the rest", "[core][parallel][cancel]") {
    boost::asio::io_context io;
    boost::asio::cancellation_signal signal;
    Probe probe;
    std::vector<reagent::expected<int, reagent::EffectError>> results;
    auto task = reagent::parallelMap(std::vector<int>{1, 2, 3, 4, 5}, 2,
                                     [&](int n) { return sleepThenSquare(&probe, n, 10s); });
    boost::asio::co_spawn(
        io, std::move(task),
        boost::asio::bind_cancellation_slot(signal.slot(), [&](std::exception_ptr e, auto r) {
            REQUIRE_FALSE(e);
            results = std::move(r);
        }));
    boost::asio::steady_timer trigger(io, 30ms);
    trigger.async_wait([&](auto) { signal.emit(boost::asio::cancellation_type::terminal); });
    const auto start = std::chrono::steady_clock::now();
    io.run();
    CHECK(reagent::test::elapsedMs(start) < 1000);
    REQUIRE(results.size() == 5);
    CHECK(probe.cancelled == 2);
    for (const auto& r : results) {
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().code == EffectErrc::cancelled);
    }
}

namespace {

// What the items of a fail-fast map saw: which started, which finished, which saw their cancellation.
struct FailFastTrack {
    std::vector<int> started;
    std::vector<int> finished;
    std::vector<int> cancelled;
};

// Sleeps `d` (cancellable), then returns n * n, or fails with "bad n" when n is negative. A cancellation
// is observed and returned as an error of the item's own.
Task<reagent::expected<int, std::string>> squareOrFail(FailFastTrack* track, int n,
                                                       std::chrono::milliseconds d) {
    track->started.push_back(n);
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, d);
    auto [ec] = co_await timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    if (ec) {
        track->cancelled.push_back(n);
        co_return reagent::fail(std::string("cancelled"));
    }
    track->finished.push_back(n);
    if (n < 0) {
        co_return reagent::fail("bad " + std::to_string(n));
    }
    co_return n* n;
}

using Squares = reagent::expected<std::vector<int>, reagent::FirstFailure<std::string>>;

// Spawns `task` with a terminal cancellation emitted after `after`; returns what it delivered.
std::optional<Squares> squaresCancelledAfter(Task<Squares> task, std::chrono::milliseconds after) {
    boost::asio::io_context io;
    boost::asio::cancellation_signal signal;
    std::optional<Squares> squares;
    boost::asio::co_spawn(
        io, std::move(task),
        boost::asio::bind_cancellation_slot(signal.slot(), [&](std::exception_ptr e, Squares r) {
            REQUIRE_FALSE(e);
            squares = std::move(r);
        }));
    boost::asio::steady_timer trigger(io, after);
    trigger.async_wait([&](auto) { signal.emit(boost::asio::cancellation_type::terminal); });
    io.run();
    return squares;
}

}  // namespace

TEST_CASE("parallelMapUntilError returns every value in input order when all succeed",
          "[core][parallel][until_error]") {
    FailFastTrack track;
    auto each = [&track](int& n) { return squareOrFail(&track, n, std::chrono::milliseconds(50 - 10 * n)); };
    Squares squares = runCoro(reagent::parallelMapUntilError(std::vector<int>{1, 2, 3, 4}, 2, each));
    REQUIRE(squares);
    CHECK(*squares == std::vector<int>{1, 4, 9, 16});
    CHECK(track.cancelled.empty());
}

TEST_CASE("parallelMapUntilError of nothing is nothing", "[core][parallel][until_error]") {
    FailFastTrack track;
    auto each = [&track](int& n) { return squareOrFail(&track, n, 1ms); };
    Squares squares = runCoro(reagent::parallelMapUntilError(std::vector<int>{}, 3, each));
    REQUIRE(squares);
    CHECK(squares->empty());
}

TEST_CASE(
    "parallelMapUntilError stops at the first error: it wins, items in flight are cancelled, the "
    "others never start",
    "[core][parallel][until_error][cancel]") {
    FailFastTrack track;
    // Two at a time: 1 (slow) and -2 (fails at 20 ms) start; -2's failure cancels 1; -3 and 4 never start.
    // -3 would fail too, later: the first error in time wins, not the first in input order.
    std::vector<int> inputs{1, -2, -3, 4};
    auto each = [&track](int& n) { return squareOrFail(&track, n, n == -2 ? 20ms : 10s); };
    const auto start = std::chrono::steady_clock::now();
    Squares squares = runCoro(reagent::parallelMapUntilError(std::move(inputs), 2, each));
    CHECK(reagent::test::elapsedMs(start) < 1000);
    REQUIRE_FALSE(squares);
    CHECK(squares.error().index == 1);
    REQUIRE(squares.error().settled);
    CHECK(*squares.error().settled == "bad -2");
    CHECK(track.started == std::vector<int>{1, -2});
    CHECK(track.cancelled == std::vector<int>{1});
    CHECK(track.finished == std::vector<int>{-2});
}

TEST_CASE("parallelMapUntilError: the first error in time wins over an earlier input",
          "[core][parallel][until_error]") {
    FailFastTrack track;
    std::vector<int> inputs{-1, -2, 3};
    auto each = [&track](int& n) { return squareOrFail(&track, n, n == -2 ? 5ms : 10s); };
    Squares squares = runCoro(reagent::parallelMapUntilError(std::move(inputs), 3, each));
    REQUIRE_FALSE(squares);
    CHECK(squares.error().index == 1);
    CHECK(*squares.error().settled == "bad -2");
    CHECK(track.started == std::vector<int>{-1, -2, 3});
    CHECK(track.cancelled == std::vector<int>{-1, 3});
}

TEST_CASE("parallelMapUntilError: an item that throws is the failure, as an exception",
          "[core][parallel][until_error]") {
    FailFastTrack track;
    auto each = [&track](int& n) -> Task<reagent::expected<int, std::string>> {
        if (n == 2) {
            throw std::runtime_error("no task for 2");
        }
        return squareOrFail(&track, n, 10s);
    };
    Squares squares = runCoro(reagent::parallelMapUntilError(std::vector<int>{1, 2, 3}, 2, each));
    REQUIRE_FALSE(squares);
    CHECK(squares.error().index == 1);
    REQUIRE_FALSE(squares.error().settled);
    CHECK(squares.error().settled.error().code == EffectErrc::exception);
    CHECK(squares.error().settled.error().message == "no task for 2");
    CHECK(track.started == std::vector<int>{1});
    CHECK(track.cancelled == std::vector<int>{1});
}

TEST_CASE("cancelling parallelMapUntilError reaches the items in flight and starts no other",
          "[core][parallel][until_error][cancel]") {
    FailFastTrack track;
    auto each = [&track](int& n) { return squareOrFail(&track, n, 10s); };
    auto squares =
        squaresCancelledAfter(reagent::parallelMapUntilError(std::vector<int>{1, 2, 3, 4}, 2, each), 30ms);
    REQUIRE(squares);
    REQUIRE_FALSE(*squares);
    // The items report their cancellation as their own error; the first to do so is the failure.
    CHECK((squares->error().index == 0 || squares->error().index == 1));
    REQUIRE(squares->error().settled);
    CHECK(*squares->error().settled == "cancelled");
    CHECK(track.started == std::vector<int>{1, 2});
    CHECK(track.cancelled.size() == 2);
}

TEST_CASE("parallelMapUntilError awaited by a cancelled caller starts nothing",
          "[core][parallel][until_error][cancel]") {
    FailFastTrack track;
    auto driver = [](FailFastTrack* t) -> Task<Squares> {
        boost::asio::steady_timer cancelled(co_await boost::asio::this_coro::executor, 10s);
        co_await cancelled.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
        auto each = [t](int& n) { return squareOrFail(t, n, 1ms); };
        auto mapping = reagent::parallelMapUntilError(std::vector<int>{1, 2}, 2, each);
        co_return co_await std::move(mapping);
    };
    auto squares = squaresCancelledAfter(reagent::withCheckedCancellation(driver(&track)), 20ms);
    REQUIRE(squares);
    REQUIRE_FALSE(*squares);
    CHECK(squares->error().index == 0);
    REQUIRE_FALSE(squares->error().settled);
    CHECK(squares->error().settled.error().code == EffectErrc::cancelled);
    CHECK(squares->error().settled.error().message == "cancelled before it started");
    CHECK(track.started.empty());
}
