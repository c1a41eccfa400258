// Executor: batches (parallel cap, ordering, side effects, cancellation).
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "reagent/tools/tool_executor.hpp"
#include "run_coro.hpp"
#include "tool_probe.hpp"

using namespace reagent;
using namespace reagent::tools;
using namespace reagent::tools::test;
using namespace std::chrono_literals;
using nlohmann::json;
using reagent::test::runCoro;

namespace {

std::vector<std::string> idsOf(const std::vector<ToolCallRecord>& records) {
    std::vector<std::string> ids;
    for (const auto& record : records) {
        ids.push_back(record.id);
    }
    return ids;
}

// Runs `execute(calls)` and emits a terminal cancellation after `after`.
std::vector<ToolCallRecord> executeCancelledAfter(ToolExecutor& executor, std::vector<ToolCallRequest> calls,
                                                  std::chrono::milliseconds after) {
    namespace asio = boost::asio;
    asio::io_context io;
    asio::cancellation_signal signal;
    std::vector<ToolCallRecord> records;
    asio::co_spawn(
        io, executor.execute(std::move(calls), 0),
        asio::bind_cancellation_slot(signal.slot(), [&](std::exception_ptr, std::vector<ToolCallRecord> r) {
            records = std::move(r);
        }));
    asio::steady_timer timer(io, after);
    timer.async_wait([&](boost::system::error_code) { signal.emit(asio::cancellation_type::terminal); });
    io.run();
    return records;
}

Task<bool> slowApprover() {
    co_await reagent::test::sleepFor(5s);
    co_return true;
}

// True when the span of `a` ends before `b` starts (with 1 ms of clock slack).
bool before(const Span& a, const Span& b) {
    return a.end <= b.start + 1ms;
}

}  // namespace

TEST_CASE("independent calls run in parallel", "[tools][executor][parallel]") {
    auto probe = std::make_shared<Probe>();
    ToolRegistry registry;
    REQUIRE(registry.add(sleepingTool("fetch", probe, 200ms)));
    ToolExecutor executor(registry);

    SECTION("three 200 ms calls take about 200 ms") {
        const auto start = Clock::now();
        const auto records =
            runCoro(executor.execute({call("a", "fetch"), call("b", "fetch"), call("c", "fetch")}, 1));
        const auto elapsed = ms(Clock::now() - start);
        CHECK(elapsed > 190);
        CHECK(elapsed < 380);
        REQUIRE(records.size() == 3);
        for (const auto& record : records) {
            CHECK(record.succeeded());
            CHECK(record.tripIndex == 1);
        }
        CHECK(probe->maxRunning == 3);
    }
    SECTION("a fourth call waits for a free slot") {
        const auto start = Clock::now();
        const auto records = runCoro(executor.execute(
            {call("a", "fetch"), call("b", "fetch"), call("c", "fetch"), call("d", "fetch")}, 0));
        const auto elapsed = ms(Clock::now() - start);
        CHECK(elapsed >= 395);
        CHECK(elapsed < 700);
        CHECK(records.size() == 4);
        CHECK(probe->maxRunning == 3);
    }
    SECTION("the cap is a policy") {
        ToolExecutor serial(registry, ExecutionPolicy{.maxParallel = 1});
        const auto start = Clock::now();
        runCoro(
            serial.execute({call("a", "fetch", json{{"ms", 50}}), call("b", "fetch", json{{"ms", 50}})}, 0));
        CHECK(ms(Clock::now() - start) >= 95);
        CHECK(probe->maxRunning == 1);
    }
}

TEST_CASE("records come back in call order whatever the completion order", "[tools][executor][parallel]") {
    auto probe = std::make_shared<Probe>();
    ToolRegistry registry;
    REQUIRE(registry.add(sleepingTool("fetch", probe, 10ms)));
    ToolExecutor executor(registry);

    const auto records = runCoro(
        executor.execute({call("slow", "fetch", json{{"ms", 150}}), call("fast", "fetch", json{{"ms", 10}}),
                          call("medium", "fetch", json{{"ms", 80}})},
                         0));
    CHECK(idsOf(records) == std::vector<std::string>{"slow", "fast", "medium"});
    CHECK(probe->finished == std::vector<std::string>{"fast", "medium", "slow"});
    CHECK(*records[0].outcome == "done slow");
    CHECK(*records[1].outcome == "done fast");
}

TEST_CASE("failures in a batch do not stop the others", "[tools][executor][parallel]") {
    auto probe = std::make_shared<Probe>();
    ToolRegistry registry;
    REQUIRE(registry.add(sleepingTool("fetch", probe, 20ms)));
    ToolExecutor executor(registry);

    const auto records = runCoro(executor.execute(
        {call("a", "fetch"), call("b", "missing"), call("c", "fetch", json{{"ms", "x"}}), call("d", "fetch")},
        0));
    REQUIRE(records.size() == 4);
    CHECK(records[0].succeeded());
    CHECK(records[1].outcome.error().code == ToolErrc::unknown_tool);
    CHECK(records[2].outcome.error().code == ToolErrc::invalid_arguments);
    CHECK(records[3].succeeded());
    CHECK(probe->calls == 2);
}

TEST_CASE("a side-effect call runs alone", "[tools][executor][side-effect]") {
    auto probe = std::make_shared<Probe>();
    ToolRegistry registry;
    REQUIRE(registry.add(sleepingTool("read_file", probe, 100ms)));
    REQUIRE(registry.add(sleepingTool("send_email", probe, 100ms)));
    REQUIRE(registry.add(sleepingTool("notify", probe, 100ms, /*sideEffect=*/true)));
    ToolExecutor executor(registry);

    CHECK(executor.isSideEffect(registry.find("send_email")->tool.definition));
    CHECK(executor.isSideEffect(registry.find("notify")->tool.definition));
    CHECK_FALSE(executor.isSideEffect(registry.find("read_file")->tool.definition));

    SECTION("named with a side-effect prefix") {
        const auto start = Clock::now();
        const auto records = runCoro(executor.execute({call("r1", "read_file"), call("r2", "read_file"),
                                                       call("s", "send_email"), call("r3", "read_file")},
                                                      0));
        const auto elapsed = ms(Clock::now() - start);
        CHECK(idsOf(records) == std::vector<std::string>{"r1", "r2", "s", "r3"});
        const auto& spans = probe->spans;
        CHECK(before(spans.at("r1"), spans.at("s")));
        CHECK(before(spans.at("r2"), spans.at("s")));
        CHECK(before(spans.at("s"), spans.at("r3")));
        // r1 and r2 still overlapped each other.
        CHECK(spans.at("r2").start < spans.at("r1").end);
        CHECK(elapsed >= 295);
        CHECK(elapsed < 600);
    }
    SECTION("flagged, even between two of its own kind") {
        const auto records = runCoro(
            executor.execute({call("n1", "notify"), call("n2", "notify"), call("r", "read_file")}, 0));
        CHECK(probe->maxRunning == 1);
        CHECK(before(probe->spans.at("n1"), probe->spans.at("n2")));
        CHECK(before(probe->spans.at("n2"), probe->spans.at("r")));
        CHECK(records.size() == 3);
    }
    SECTION("the prefixes are a policy") {
        ToolExecutor relaxed(registry, ExecutionPolicy{.maxParallel = 3, .sideEffectPrefixes = {}});
        CHECK_FALSE(relaxed.isSideEffect(registry.find("send_email")->tool.definition));
        runCoro(relaxed.execute({call("r1", "read_file"), call("s", "send_email")}, 0));
        CHECK(probe->maxRunning == 2);
    }
}

TEST_CASE("cancelling the batch reaches every handler in flight", "[tools][executor][cancellation]") {
    namespace asio = boost::asio;
    auto probe = std::make_shared<Probe>();
    ToolRegistry registry;
    REQUIRE(registry.add(sleepingTool("slow", probe, 5s)));
    ToolExecutor executor(registry);
    std::vector<ToolEvent> events;
    executor.setEventSink([&events](const ToolEvent& event) { events.push_back(event); });

    asio::io_context io;
    asio::cancellation_signal signal;
    std::vector<ToolCallRecord> records;
    bool done = false;
    // Five calls with a cap of three: three start, two never do.
    std::vector<ToolCallRequest> calls{call("a", "slow"), call("b", "slow"), call("c", "slow"),
                                       call("d", "slow"), call("e", "slow")};
    asio::co_spawn(io, executor.execute(std::move(calls), 0),
                   asio::bind_cancellation_slot(
                       signal.slot(), [&](std::exception_ptr error, std::vector<ToolCallRecord> result) {
                           CHECK_FALSE(error);
                           records = std::move(result);
                           done = true;
                       }));
    asio::steady_timer timer(io, 50ms);
    timer.async_wait([&](boost::system::error_code) { signal.emit(asio::cancellation_type::terminal); });

    const auto start = Clock::now();
    io.run();
    const auto elapsed = ms(Clock::now() - start);
    REQUIRE(done);
    CHECK(elapsed < 1000);
    CHECK(probe->calls == 3);
    CHECK(probe->cancelled == 3);
    REQUIRE(records.size() == 5);
    CHECK(idsOf(records) == std::vector<std::string>{"a", "b", "c", "d", "e"});
    for (const auto& record : records) {
        REQUIRE_FALSE(record.succeeded());
        CHECK(record.outcome.error().code == ToolErrc::cancelled);
    }
    CHECK(records[0].outcome.error().message == "tool slow was cancelled");
    CHECK(records[4].outcome.error().message == "cancelled before it started");
    int failed = 0;
    for (const auto& event : events) {
        failed += std::holds_alternative<ToolFailed>(event) ? 1 : 0;
    }
    CHECK(failed == 5);
}

TEST_CASE("calls after a cancelled side-effect segment never start", "[tools][executor][cancellation]") {
    auto probe = std::make_shared<Probe>();
    ToolRegistry registry;
    REQUIRE(registry.add(sleepingTool("write_file", probe, 5s)));
    REQUIRE(registry.add(sleepingTool("read_file", probe, 5s)));
    ToolExecutor executor(registry);

    const auto start = Clock::now();
    const auto records = executeCancelledAfter(
        executor, {call("w", "write_file"), call("r1", "read_file"), call("r2", "read_file")}, 30ms);
    CHECK(ms(Clock::now() - start) < 1000);
    REQUIRE(records.size() == 3);
    CHECK(probe->calls == 1);
    CHECK(records[0].outcome.error().message == "tool write_file was cancelled");
    CHECK(records[1].outcome.error().message == "cancelled before it started");
    CHECK(records[2].outcome.error().code == ToolErrc::cancelled);
}

TEST_CASE("cancellation while awaiting approval", "[tools][executor][cancellation]") {
    auto probe = std::make_shared<Probe>();
    ToolRegistry registry;
    Tool gated = sleepingTool("deploy", probe, 10ms);
    gated.definition.requiresApproval = true;
    REQUIRE(registry.add(std::move(gated)));
    ToolExecutor executor(registry);
    executor.setApprovalHandler([](ToolCallRequest, ToolDefinition) { return slowApprover(); });

    const auto start = Clock::now();
    const auto records = executeCancelledAfter(executor, {call("d", "deploy")}, 30ms);
    CHECK(ms(Clock::now() - start) < 1000);
    REQUIRE(records.size() == 1);
    CHECK(records[0].outcome.error().code == ToolErrc::cancelled);
    CHECK(records[0].outcome.error().message == "tool deploy was cancelled while awaiting approval");
    CHECK(probe->calls == 0);
}

TEST_CASE("an empty batch gives no records", "[tools][executor]") {
    ToolRegistry registry;
    ToolExecutor executor(registry);
    CHECK(runCoro(executor.execute({}, 0)).empty());
    CHECK(executor.policy().maxParallel == 3);
}
