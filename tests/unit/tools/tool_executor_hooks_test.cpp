// Executor: init/dispose hooks, events and artifacts.
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "reagent/tools/tool_builder.hpp"
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

struct Hooks {
    int inits = 0;
    int disposes = 0;
    int failuresLeft = 0;  // init fails this many times before succeeding
    int handled = 0;
};

Task<expected<void, ToolError>> initHook(std::shared_ptr<Hooks> hooks, std::chrono::milliseconds delay) {
    ++hooks->inits;
    co_await reagent::test::sleepFor(delay);
    if (hooks->failuresLeft > 0) {
        --hooks->failuresLeft;
        co_return tl::make_unexpected(ToolError::failure("database unreachable"));
    }
    co_return expected<void, ToolError>{};
}

Task<expected<void, ToolError>> disposeHook(std::shared_ptr<Hooks> hooks) {
    ++hooks->disposes;
    co_return expected<void, ToolError>{};
}

Task<ToolResult> handled(std::shared_ptr<Hooks> hooks) {
    ++hooks->handled;
    co_return "ok";
}

Tool hookedTool(std::string name, std::shared_ptr<Hooks> hooks, std::chrono::milliseconds initDelay = 0ms) {
    auto built = ToolBuilder::create(std::move(name))
                     .description("A tool with a connection to open.")
                     .init([hooks, initDelay] { return initHook(hooks, initDelay); })
                     .dispose([hooks] { return disposeHook(hooks); })
                     .handler([hooks](json, ToolContext) { return handled(hooks); })
                     .build();
    REQUIRE(built);
    return std::move(*built);
}

Task<ToolResult> cite(ToolContext context) {
    (*context.artifacts)["citations"] = json::array({"https://example.org/a"});
    (*context.artifacts)["trip"] = context.tripIndex;
    co_return "see the citations";
}

Task<ToolResult> failLater(std::chrono::milliseconds delay) {
    co_await reagent::test::sleepFor(delay);
    co_return fail(ToolError::failure("the disk is full"));
}

Task<ToolResult> echo(json args) {
    co_return args.at("text").get<std::string>();
}

}  // namespace

TEST_CASE("init runs once before the first call", "[tools][executor][hooks]") {
    auto hooks = std::make_shared<Hooks>();
    ToolRegistry registry;
    REQUIRE(registry.add(hookedTool("db", hooks)));
    ToolExecutor executor(registry);

    CHECK(runCoro(executor.executeOne(call("c1", "db"), 0)).succeeded());
    CHECK(runCoro(executor.executeOne(call("c2", "db"), 0)).succeeded());
    CHECK(hooks->inits == 1);
    CHECK(hooks->handled == 2);

    runCoro(executor.disposeAll());
    CHECK(hooks->disposes == 1);
    runCoro(executor.disposeAll());
    CHECK(hooks->disposes == 1);
}

TEST_CASE("concurrent first calls share one init", "[tools][executor][hooks]") {
    auto hooks = std::make_shared<Hooks>();
    ToolRegistry registry;
    REQUIRE(registry.add(hookedTool("db", hooks, 50ms)));
    ToolExecutor executor(registry);

    const auto records = runCoro(executor.execute({call("a", "db"), call("b", "db"), call("c", "db")}, 0));
    REQUIRE(records.size() == 3);
    for (const auto& record : records) {
        CHECK(record.succeeded());
    }
    CHECK(hooks->inits == 1);
    CHECK(hooks->handled == 3);
}

TEST_CASE("a failed init is reported and retried on the next call", "[tools][executor][hooks]") {
    auto hooks = std::make_shared<Hooks>();
    hooks->failuresLeft = 1;
    ToolRegistry registry;
    REQUIRE(registry.add(hookedTool("db", hooks)));
    ToolExecutor executor(registry);

    const ToolCallRecord first = runCoro(executor.executeOne(call("c1", "db"), 0));
    REQUIRE_FALSE(first.succeeded());
    CHECK(first.outcome.error().code == ToolErrc::init_failed);
    CHECK(first.outcome.error().message == "tool db failed to initialise: database unreachable");
    CHECK(hooks->handled == 0);

    // A tool whose init never succeeded is not disposed.
    runCoro(executor.disposeAll());
    CHECK(hooks->disposes == 0);

    const ToolCallRecord second = runCoro(executor.executeOne(call("c2", "db"), 0));
    CHECK(second.succeeded());
    CHECK(hooks->inits == 2);
    CHECK(hooks->handled == 1);
}

TEST_CASE("an init that throws or hangs is an init failure", "[tools][executor][hooks]") {
    ToolRegistry registry;
    auto throwing =
        ToolBuilder::create("flaky")
            .description("Init throws.")
            .init([]() -> Task<expected<void, ToolError>> { throw std::runtime_error("no socket"); })
            .handler([](json, ToolContext) {
                return echo(json{{"text", "unreachable"}});
            })
            .build();
    auto hooks = std::make_shared<Hooks>();
    auto hanging = ToolBuilder::create("stuck")
                       .description("Init hangs.")
                       .timeout(50ms)
                       .init([hooks] { return initHook(hooks, 10s); })
                       .handler([hooks](json, ToolContext) { return handled(hooks); })
                       .build();
    REQUIRE(throwing);
    REQUIRE(hanging);
    REQUIRE(registry.add(std::move(*throwing)));
    REQUIRE(registry.add(std::move(*hanging)));
    ToolExecutor executor(registry);

    const ToolCallRecord thrown = runCoro(executor.executeOne(call("c1", "flaky"), 0));
    CHECK(thrown.outcome.error().code == ToolErrc::init_failed);
    CHECK(thrown.outcome.error().message == "tool flaky failed to initialise: no socket");

    const auto start = Clock::now();
    const ToolCallRecord stuck = runCoro(executor.executeOne(call("c2", "stuck"), 0));
    CHECK(ms(Clock::now() - start) < 1000);
    CHECK(stuck.outcome.error().code == ToolErrc::init_failed);
    CHECK(stuck.outcome.error().message == "tool stuck failed to initialise: timed out after 50 ms");
    CHECK(hooks->handled == 0);
}

TEST_CASE("concurrent calls waiting on a failing init all report it", "[tools][executor][hooks]") {
    auto hooks = std::make_shared<Hooks>();
    hooks->failuresLeft = 1;
    ToolRegistry registry;
    REQUIRE(registry.add(hookedTool("db", hooks, 30ms)));
    ToolExecutor executor(registry);

    const auto records = runCoro(executor.execute({call("a", "db"), call("b", "db")}, 0));
    CHECK(records[0].outcome.error().code == ToolErrc::init_failed);
    CHECK(records[1].outcome.error().code == ToolErrc::init_failed);
    CHECK(hooks->inits == 1);
}

TEST_CASE("events: calling, called, failed", "[tools][executor][events]") {
    ToolRegistry registry;
    auto echoTool =
        ToolBuilder::create("echo")
            .description("Repeats a text.")
            .param("text", "string", "What to repeat.", {.required = true})
            .action([](const json& args) { return "Echoing " + args.at("text").get<std::string>(); })
            .handler([](json args, ToolContext) { return echo(std::move(args)); })
            .build();
    REQUIRE(echoTool);
    REQUIRE(registry.add(std::move(*echoTool)));
    ToolExecutor executor(registry);
    std::vector<ToolEvent> events;
    executor.setEventSink([&events](const ToolEvent& event) { events.push_back(event); });

    SECTION("a successful call") {
        runCoro(executor.executeOne(call("c1", "echo", json{{"text", "hi"}}), 3));
        REQUIRE(events.size() == 2);
        const auto* calling = std::get_if<ToolCalling>(&events[0]);
        REQUIRE(calling != nullptr);
        CHECK(calling->callId == "c1");
        CHECK(calling->tool == "echo");
        CHECK(calling->tripIndex == 3);
        CHECK(calling->action == "Echoing hi");
        CHECK(calling->input == json{{"text", "hi"}});
        const auto* called = std::get_if<ToolCalled>(&events[1]);
        REQUIRE(called != nullptr);
        CHECK(called->record.id == "c1");
        CHECK(*called->record.outcome == "hi");
    }
    SECTION("invalid arguments and unknown tools only fail") {
        runCoro(executor.executeOne(call("c1", "echo", json{{"text", 5}}), 0));
        runCoro(executor.executeOne(call("c2", "nope"), 0));
        REQUIRE(events.size() == 2);
        const auto* invalid = std::get_if<ToolFailed>(&events[0]);
        REQUIRE(invalid != nullptr);
        CHECK(invalid->callId == "c1");
        CHECK(invalid->error.code == ToolErrc::invalid_arguments);
        CHECK(invalid->input == json{{"text", 5}});
        const auto* unknown = std::get_if<ToolFailed>(&events[1]);
        REQUIRE(unknown != nullptr);
        CHECK(unknown->error.code == ToolErrc::unknown_tool);
    }
    SECTION("a throwing action gives an empty text and a throwing sink is ignored") {
        Tool loud = *ToolBuilder::create("loud")
                         .description("Has a broken action text.")
                         .action([](const json&) -> std::string { throw std::runtime_error("no text"); })
                         .handler([](json, ToolContext) {
                             return echo(json{{"text", "fine"}});
                         })
                         .build();
        REQUIRE(registry.add(std::move(loud)));
        executor.setEventSink([&events](const ToolEvent& event) {
            events.push_back(event);
            throw std::runtime_error("sink failure");
        });
        const ToolCallRecord record = runCoro(executor.executeOne(call("c1", "loud"), 0));
        CHECK(record.succeeded());
        REQUIRE(events.size() == 2);
        CHECK(std::get<ToolCalling>(events[0]).action.empty());
        CHECK(std::holds_alternative<ToolCalled>(events[1]));
    }
}

TEST_CASE("a failed event carries the call's duration, without a sink no event is built",
          "[tools][executor][events]") {
    ToolRegistry registry;
    auto slow = ToolBuilder::create("slow_fail")
                    .description("Fails after a while.")
                    .handler([](json, ToolContext) { return failLater(40ms); })
                    .build();
    REQUIRE(slow);
    REQUIRE(registry.add(std::move(*slow)));
    ToolExecutor executor(registry);
    std::vector<ToolEvent> events;
    executor.setEventSink([&events](const ToolEvent& event) { events.push_back(event); });
    const ToolCallRecord record = runCoro(executor.executeOne(call("c1", "slow_fail"), 0));
    REQUIRE(events.size() == 2);
    const auto& failed = std::get<ToolFailed>(events[1]);
    CHECK(failed.error.message == "the disk is full");
    CHECK(failed.duration == record.duration);
    CHECK(failed.duration >= 35ms);

    executor.setEventSink(nullptr);
    CHECK_FALSE(runCoro(executor.executeOne(call("c2", "slow_fail"), 0)).succeeded());
    CHECK(events.size() == 2);
}

TEST_CASE("artifacts are recorded, not returned", "[tools][executor]") {
    ToolRegistry registry;
    auto built = ToolBuilder::create("cite")
                     .description("Answers with citations.")
                     .mode(ToolMode::silent)
                     .handler([](json, ToolContext context) { return cite(std::move(context)); })
                     .build();
    REQUIRE(built);
    REQUIRE(registry.add(std::move(*built)));
    ToolExecutor executor(registry);

    const ToolCallRecord record = runCoro(executor.executeOne(call("c1", "cite"), 4));
    REQUIRE(record.succeeded());
    CHECK(*record.outcome == "see the citations");
    CHECK(record.artifacts == json{{"citations", {"https://example.org/a"}}, {"trip", 4}});
    CHECK(record.mode == ToolMode::silent);
}
