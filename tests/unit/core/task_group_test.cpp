#include "reagent/core/task_group.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <stdexcept>

#include "run_coro.hpp"

using namespace std::chrono_literals;
using reagent::EffectErrc;
using reagent::Task;
using reagent::TaskGroup;
using reagent::test::runCoro;
using reagent::test::sleepFor;

namespace {

Task<void> child(int* done, std::chrono::milliseconds d) {
    co_await sleepFor(d);
    ++*done;
}

Task<int> failingChild() {
    co_await sleepFor(1ms);
    throw std::runtime_error("child failed");
}

Task<std::vector<reagent::EffectError>> spawnAndJoin(int* done) {
    TaskGroup group(co_await boost::asio::this_coro::executor);
    group.spawn(child(done, 30ms));
    group.spawn(child(done, 10ms));
    group.spawn(failingChild());
    CHECK(group.size() == 3);
    auto errors = co_await group.join();
    CHECK(group.size() == 0);
    co_return errors;
}

Task<std::vector<reagent::EffectError>> spawnThenCancel(int* done) {
    TaskGroup group(co_await boost::asio::this_coro::executor);
    group.spawn(child(done, 10s));
    group.spawn(child(done, 10s));
    co_await sleepFor(20ms);
    group.cancel();
    co_return co_await group.join();
}

Task<std::vector<reagent::EffectError>> joinLongChildren(int* done) {
    TaskGroup group(co_await boost::asio::this_coro::executor);
    group.spawn(child(done, 10s));
    group.spawn(child(done, 10s));
    co_return co_await group.join();
}

}  // namespace

TEST_CASE("TaskGroup joins every child and reports the ones that threw", "[core][task_group]") {
    int done = 0;
    auto errors = runCoro(spawnAndJoin(&done));
    CHECK(done == 2);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].code == EffectErrc::exception);
    CHECK(errors[0].message == "child failed");
}

TEST_CASE("TaskGroup::cancel reaches every child", "[core][task_group][cancel]") {
    int done = 0;
    const auto start = std::chrono::steady_clock::now();
    auto errors = runCoro(spawnThenCancel(&done));
    CHECK(reagent::test::elapsedMs(start) < 1000);
    CHECK(done == 0);
    REQUIRE(errors.size() == 2);
    CHECK(errors[0].code == EffectErrc::cancelled);
    CHECK(errors[1].code == EffectErrc::cancelled);
}

TEST_CASE("cancelling the joiner cancels the children and still waits for them",
          "[core][task_group][cancel]") {
    boost::asio::io_context io;
    boost::asio::cancellation_signal signal;
    int done = 0;
    std::vector<reagent::EffectError> errors;
    bool joined = false;
    boost::asio::co_spawn(
        io, joinLongChildren(&done),
        boost::asio::bind_cancellation_slot(signal.slot(), [&](std::exception_ptr e, auto r) {
            REQUIRE_FALSE(e);
            errors = std::move(r);
            joined = true;
        }));
    boost::asio::steady_timer trigger(io, 20ms);
    trigger.async_wait([&](auto) { signal.emit(boost::asio::cancellation_type::terminal); });
    const auto start = std::chrono::steady_clock::now();
    io.run();
    CHECK(reagent::test::elapsedMs(start) < 1000);
    CHECK(joined);
    CHECK(done == 0);
    CHECK(errors.size() == 2);
}

TEST_CASE("cancel and destruction right after join returns reach no finished child", "[core][task_group]") {
    reagent::test::runCoro([]() -> reagent::Task<void> {
        for (int round = 0; round < 20; ++round) {
            auto executor = co_await boost::asio::this_coro::executor;
            auto group = std::make_unique<reagent::TaskGroup>(executor);
            group->spawn(reagent::test::sleepFor(1ms));
            group->spawn(reagent::test::sleepFor(2ms));
            auto errors = co_await group->join();
            CHECK(errors.empty());
            // The children's cleanup is still queued: neither call may touch their finished signals.
            group->cancel();
            group.reset();
        }
    }());
}
