#include "reagent/core/parallel.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <stdexcept>
#include <vector>

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
