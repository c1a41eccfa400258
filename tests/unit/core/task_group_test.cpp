#include "reagent/core/task_group.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/system/system_error.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

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

namespace {

// Counts, by name, the children that finished and the ones that saw their cancellation.
struct ChildOutcomes {
    std::vector<std::string> finished;
    std::vector<std::string> cancelled;
};

Task<void> namedChild(ChildOutcomes* outcomes, std::string name, std::chrono::milliseconds d) {
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, d);
    auto [ec] = co_await timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    if (ec) {
        outcomes->cancelled.push_back(name);
        throw boost::system::system_error(ec);
    }
    outcomes->finished.push_back(name);
}

Task<std::vector<reagent::EffectError>> cancelTheSecond(ChildOutcomes* outcomes, bool* cancelledOne) {
    TaskGroup group(co_await boost::asio::this_coro::executor);
    group.spawn(namedChild(outcomes, "a", 40ms));
    const TaskGroup::ChildId b = group.spawn(namedChild(outcomes, "b", 10s));
    group.spawn(namedChild(outcomes, "c", 60ms));
    co_await sleepFor(10ms);
    *cancelledOne = group.cancel(b);
    CHECK(group.size() == 3);  // b's cancellation is on its way: it is still a child until it ends
    co_return co_await group.join();
}

}  // namespace

TEST_CASE("TaskGroup::cancel(child) cancels that child alone and join still waits for all",
          "[core][task_group][cancel]") {
    ChildOutcomes outcomes;
    bool cancelledOne = false;
    const auto start = std::chrono::steady_clock::now();
    auto errors = runCoro(cancelTheSecond(&outcomes, &cancelledOne));
    const auto took = reagent::test::elapsedMs(start);
    CHECK(cancelledOne);
    CHECK(outcomes.cancelled == std::vector<std::string>{"b"});
    CHECK(outcomes.finished == std::vector<std::string>{"a", "c"});
    // The join waited for c (60 ms), and not for b's 10 s.
    CHECK(took >= 55);
    CHECK(took < 1000);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].code == EffectErrc::cancelled);
}

TEST_CASE("TaskGroup::cancel(child) of a finished child is harmless", "[core][task_group][cancel]") {
    ChildOutcomes outcomes;
    auto errors = runCoro([](ChildOutcomes* outcomes) -> Task<std::vector<reagent::EffectError>> {
        TaskGroup group(co_await boost::asio::this_coro::executor);
        const TaskGroup::ChildId quick = group.spawn(namedChild(outcomes, "quick", 1ms));
        const TaskGroup::ChildId slow = group.spawn(namedChild(outcomes, "slow", 30ms));
        CHECK_FALSE(quick == slow);
        co_await sleepFor(10ms);
        // Finished and already erased, or finished with its erasure still queued: nothing happens.
        CHECK_FALSE(group.cancel(quick));
        auto errors = co_await group.join();
        CHECK_FALSE(group.cancel(slow));  // right after join: its erasure is still queued
        CHECK_FALSE(group.cancel(TaskGroup::ChildId{12345}));
        co_return errors;
    }(&outcomes));
    CHECK(errors.empty());
    CHECK(outcomes.cancelled.empty());
    CHECK(outcomes.finished == std::vector<std::string>{"quick", "slow"});
}
