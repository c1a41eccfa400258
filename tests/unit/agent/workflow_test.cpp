// Workflows through the public API: sequential piping, parallel order, cap and failure, routers, nesting,
// a workflow as a parent agent's tool, cancellation, and construction errors. Agents are played by
// ScriptedProviders; function steps measure concurrency and see cancellation.

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <reagent/reagent.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "run_coro.hpp"

using namespace std::chrono_literals;
namespace asio = boost::asio;
using nlohmann::json;
using reagent::Task;
using reagent::agent::Agent;
using reagent::agent::AgentErrc;
using reagent::agent::RunResult;
using reagent::agent::StepResult;
using reagent::agent::TerminatedBy;
using reagent::agent::Workflow;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::test::elapsedMs;
using reagent::test::runCoro;
using reagent::tools::ToolErrc;
using reagent::tools::ToolError;
using Step = Workflow::Step;

namespace {

reagent::llm::ProviderError down() {
    reagent::llm::ProviderError error;
    error.code = reagent::llm::ProviderErrc::server_error;
    error.message = "down";
    return error;
}

Agent scriptedAgent(const std::shared_ptr<ScriptedProvider>& provider, std::string name = "agent") {
    auto made = Agent::create().withProvider(provider).withName(std::move(name)).build();
    REQUIRE(made);
    return *made;
}

// What the function steps saw: how many ran at once, which started, which were cancelled.
struct Probe {
    int running = 0;
    int peak = 0;
    std::vector<std::string> started;
    std::vector<std::string> cancelled;
};

// Runs for `duration` (cancellable), then returns `output`, or fails with `failure` when it is set.
Task<StepResult> timedStep(std::shared_ptr<Probe> probe, std::string name, std::chrono::milliseconds duration,
                           std::string output, std::optional<std::string> failure) {
    ++probe->running;
    probe->peak = std::max(probe->peak, probe->running);
    probe->started.push_back(name);
    asio::steady_timer timer(co_await asio::this_coro::executor, duration);
    auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
    --probe->running;
    if (ec) {
        probe->cancelled.push_back(name);
        co_return reagent::fail(ToolError{ToolErrc::cancelled, name + " was cancelled"});
    }
    if (failure) {
        co_return reagent::fail(ToolError::failure(*failure));
    }
    co_return output;
}

Step timed(const std::shared_ptr<Probe>& probe, std::string name, std::chrono::milliseconds duration,
           std::string output = {}, std::optional<std::string> failure = std::nullopt) {
    if (output.empty()) {
        output = name + " done";
    }
    Workflow::StepFunction function = [probe, name, duration, output, failure](std::string) {
        return timedStep(probe, name, duration, output, failure);
    };
    return Step::fromFunction(std::move(name), std::move(function));
}

Task<StepResult> suffixed(std::string input, std::string suffix) {
    co_return input + suffix;
}

Step appending(std::string name, std::string suffix) {
    Workflow::StepFunction function = [suffix](std::string input) {
        return suffixed(std::move(input), suffix);
    };
    return Step::fromFunction(std::move(name), std::move(function));
}

Task<StepResult> constant(std::string answer) {
    co_return answer;
}

Workflow::Route::Chooser answering(std::string answer) {
    return [answer](std::string, std::vector<std::string>) { return constant(answer); };
}

Workflow unwrap(reagent::expected<Workflow, reagent::agent::AgentError> made) {
    if (!made) {
        FAIL(made.error().message);
    }
    return std::move(*made);
}

// Runs `task` and cancels it (terminal) after `after`; returns its value and the time it took.
template <class T>
std::pair<std::optional<T>, long long> runCancelled(Task<T> task, std::chrono::milliseconds after) {
    asio::io_context io;
    asio::cancellation_signal signal;
    std::optional<T> value;
    std::exception_ptr thrown;
    asio::co_spawn(io, std::move(task),
                   asio::bind_cancellation_slot(signal.slot(), [&](std::exception_ptr e, T v) {
                       thrown = e;
                       value.emplace(std::move(v));
                   }));
    asio::steady_timer timer(io, after);
    timer.async_wait([&](boost::system::error_code) { signal.emit(asio::cancellation_type::terminal); });
    const auto start = std::chrono::steady_clock::now();
    io.run();
    CHECK_FALSE(thrown);
    return {std::move(value), elapsedMs(start)};
}

}  // namespace

TEST_CASE("a sequential workflow pipes each output into the next step", "[agent][workflow]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::text("Draft about otters").expectLastMessageContains("topic: otters!"));
    auto workflow = unwrap(Workflow::sequential(
        "pipeline", {appending("mark", "!"), Step::fromAgent("writer", scriptedAgent(provider)),
                     appending("sign", " -- the team")}));
    CHECK(workflow.kind() == "sequential");
    CHECK(workflow.stepNames() == std::vector<std::string>{"mark", "writer", "sign"});

    const auto output = runCoro(workflow.run("topic: otters"));
    INFO((output ? "" : output.error().message));
    REQUIRE(output);
    CHECK(*output == "Draft about otters -- the team");
    CHECK(provider->requests().size() == 1);
}

TEST_CASE("a sequential workflow stops at the first failure and names the step", "[agent][workflow]") {
    auto probe = std::make_shared<Probe>();
    auto workflow = unwrap(Workflow::sequential(
        "research", {timed(probe, "search", 1ms), timed(probe, "writer", 1ms, {}, std::string("no ink")),
                     timed(probe, "review", 1ms)}));
    const auto output = runCoro(workflow.run("go"));
    REQUIRE_FALSE(output);
    const ToolError& error = output.error();
    CHECK(error.code == ToolErrc::failed);
    CHECK(error.message == "workflow 'research' step 2 'writer' failed: no ink");
    REQUIRE(error.cause);
    CHECK(error.cause->domain == "workflow");
    CHECK(error.cause->code == "step_failed");
    CHECK(error.cause->details["step"] == "writer");
    CHECK(error.cause->details["position"] == 2);
    REQUIRE(error.rootCause());
    CHECK(error.rootCause()->domain == "tool");
    CHECK(error.rootCause()->message == "no ink");
    CHECK(probe->started == std::vector<std::string>{"search", "writer"});
}

TEST_CASE("a step that throws fails the workflow with an exception cause", "[agent][workflow]") {
    Workflow::StepFunction thrower = [](std::string) -> Task<StepResult> {
        throw std::runtime_error("kaput");
    };
    auto workflow = unwrap(Workflow::sequential("brittle", {Step::fromFunction("bad", thrower)}));
    const auto output = runCoro(workflow.run("go"));
    REQUIRE_FALSE(output);
    CHECK(output.error().code == ToolErrc::failed);
    CHECK(output.error().message == "workflow 'brittle' step 1 'bad' failed: step 'bad' threw: kaput");
    REQUIRE(output.error().rootCause());
    CHECK(output.error().rootCause()->domain == "exception");
    CHECK(output.error().rootCause()->message == "kaput");
}

TEST_CASE("a parallel workflow gives every step the input and joins outputs in step order",
          "[agent][workflow][parallel]") {
    auto probe = std::make_shared<Probe>();
    // The first step is the slowest, so completion order is the reverse of step order.
    std::vector<Step> steps{timed(probe, "slow", 60ms, "S"), timed(probe, "medium", 30ms, "M"),
                            timed(probe, "fast", 1ms, "F")};

    SECTION("by default as a JSON array") {
        auto workflow = unwrap(Workflow::parallel("fanout", steps));
        const auto output = runCoro(workflow.run("question"));
        REQUIRE(output);
        CHECK(json::parse(*output) == json::parse(R"([{"step": "slow", "output": "S"},
                                                      {"step": "medium", "output": "M"},
                                                      {"step": "fast", "output": "F"}])"));
        CHECK(probe->peak == 3);
    }
    SECTION("or with a combine function") {
        Workflow::ParallelOptions options;
        options.combine = [](std::vector<Workflow::StepOutput> outputs) -> StepResult {
            std::string joined;
            for (const auto& output : outputs) {
                joined += output.step + "=" + output.output + ";";
            }
            return joined;
        };
        auto workflow = unwrap(Workflow::parallel("fanout", steps, options));
        const auto output = runCoro(workflow.run("question"));
        REQUIRE(output);
        CHECK(*output == "slow=S;medium=M;fast=F;");
    }
    SECTION("a failing combine fails the workflow") {
        Workflow::ParallelOptions options;
        options.combine = [](std::vector<Workflow::StepOutput>) -> StepResult {
            return reagent::fail(ToolError::failure("cannot merge"));
        };
        auto workflow = unwrap(Workflow::parallel("fanout", steps, options));
        const auto output = runCoro(workflow.run("question"));
        REQUIRE_FALSE(output);
        CHECK(output.error().message == "workflow 'fanout' could not combine the outputs: cannot merge");
        CHECK(output.error().cause->code == "combine_failed");
        CHECK(output.error().rootCause()->message == "cannot merge");
    }
}

TEST_CASE("a parallel workflow's default output survives invalid UTF-8 in a step's output",
          "[agent][workflow][parallel]") {
    auto workflow =
        unwrap(Workflow::parallel("fanout", {appending("raw", "\xff\xfe"), appending("plain", "")}));
    const auto output = runCoro(workflow.run("in"));
    REQUIRE(output);
    const auto joined = json::parse(*output);
    CHECK(joined[0]["step"] == "raw");
    CHECK(joined[1]["output"] == "in");
}

TEST_CASE("a parallel workflow gives each agent step the same input", "[agent][workflow][parallel]") {
    auto first = std::make_shared<ScriptedProvider>();
    first->then(ScriptedTurn::text("pros").expectLastMessageContains("tabs or spaces"));
    auto second = std::make_shared<ScriptedProvider>();
    second->then(ScriptedTurn::text("cons").expectLastMessageContains("tabs or spaces"));
    auto workflow = unwrap(Workflow::parallel("debate", {Step::fromAgent("for", scriptedAgent(first)),
                                                         Step::fromAgent("against", scriptedAgent(second))}));
    const auto output = runCoro(workflow.run("tabs or spaces?"));
    INFO((output ? "" : output.error().message));
    REQUIRE(output);
    const auto joined = json::parse(*output);
    CHECK(joined[0]["output"] == "pros");
    CHECK(joined[1]["output"] == "cons");
}

TEST_CASE("a parallel workflow runs at most maxParallel steps at once", "[agent][workflow][parallel]") {
    const std::size_t cap = GENERATE(1, 2, 3, 5);
    auto probe = std::make_shared<Probe>();
    std::vector<Step> steps;
    for (int i = 0; i < 7; ++i) {
        steps.push_back(timed(probe, "s" + std::to_string(i), 15ms));
    }
    Workflow::ParallelOptions options;
    options.maxParallel = cap;
    auto workflow = unwrap(Workflow::parallel("capped", steps, options));
    const auto output = runCoro(workflow.run("x"));
    REQUIRE(output);
    CHECK(json::parse(*output).size() == 7);
    CHECK(probe->started.size() == 7);
    CHECK(probe->peak == static_cast<int>(cap));
}

TEST_CASE("a failing parallel step fails the workflow and cancels its siblings",
          "[agent][workflow][parallel]") {
    auto probe = std::make_shared<Probe>();
    Workflow::ParallelOptions options;
    options.maxParallel = 2;
    auto workflow =
        unwrap(Workflow::parallel("fanout",
                                  {timed(probe, "long", 5s), timed(probe, "broken", 20ms, {}, "bad data"),
                                   timed(probe, "later", 5s), timed(probe, "last", 5s)},
                                  options));
    const auto start = std::chrono::steady_clock::now();
    const auto output = runCoro(workflow.run("x"));
    CHECK(elapsedMs(start) < 2000);
    REQUIRE_FALSE(output);
    const ToolError& error = output.error();
    CHECK(error.code == ToolErrc::failed);
    CHECK(error.message == "workflow 'fanout' step 2 'broken' failed: bad data");
    CHECK(error.cause->code == "step_failed");
    CHECK(error.rootCause()->message == "bad data");
    // "long" was running and is cancelled; "later" and "last" never start.
    CHECK(probe->cancelled == std::vector<std::string>{"long"});
    CHECK(probe->started == std::vector<std::string>{"long", "broken"});
    CHECK(probe->running == 0);
}

TEST_CASE("a router runs the route its chooser names", "[agent][workflow][router]") {
    auto billing = std::make_shared<ScriptedProvider>();
    billing->then(ScriptedTurn::text("refund issued").expectLastMessageContains("charged twice"));
    std::vector<Step> routes{Step::fromAgent("billing", scriptedAgent(billing)),
                             appending("tech", " [tech]")};

    SECTION("a function chooser whose answer is matched loosely") {
        auto workflow = unwrap(Workflow::router("support", answering("  \"Billing\".\n"), routes));
        const auto output = runCoro(workflow.run("I was charged twice"));
        INFO((output ? "" : output.error().message));
        REQUIRE(output);
        CHECK(*output == "refund issued");
    }
    SECTION("a classifier agent") {
        auto classifier = std::make_shared<ScriptedProvider>();
        classifier->then(ScriptedTurn::text("tech").expectLastMessageContains("billing, tech"));
        auto workflow = unwrap(Workflow::router(
            "support", Workflow::Route::byAgent(scriptedAgent(classifier, "triage")), routes));
        const auto output = runCoro(workflow.run("my screen is black"));
        INFO((output ? "" : output.error().message));
        REQUIRE(output);
        CHECK(*output == "my screen is black [tech]");
        REQUIRE(classifier->requests().size() == 1);
        CHECK(billing->requests().empty());
    }
}

TEST_CASE("a router reports an unknown route and a failed chooser", "[agent][workflow][router]") {
    std::vector<Step> routes{appending("billing", ""), appending("tech", "")};

    SECTION("unknown route") {
        auto workflow = unwrap(Workflow::router("support", answering("sales"), routes));
        const auto output = runCoro(workflow.run("buy"));
        REQUIRE_FALSE(output);
        CHECK(output.error().code == ToolErrc::failed);
        CHECK(output.error().message ==
              "workflow 'support' has no route 'sales' (the routes are: billing, tech)");
        REQUIRE(output.error().cause);
        CHECK(output.error().cause->code == "unknown_route");
        CHECK(output.error().cause->details["routes"] == json{"billing", "tech"});
    }
    SECTION("the chosen route fails") {
        auto probe = std::make_shared<Probe>();
        std::vector<Step> failing{appending("billing", ""),
                                  timed(probe, "tech", 1ms, {}, std::string("no tech"))};
        auto workflow = unwrap(Workflow::router("support", answering("tech"), failing));
        const auto output = runCoro(workflow.run("help"));
        REQUIRE_FALSE(output);
        CHECK(output.error().message == "workflow 'support' route 'tech' failed: no tech");
        CHECK(output.error().cause->code == "step_failed");
        CHECK(output.error().rootCause()->message == "no tech");
    }
    SECTION("the classifier agent fails") {
        auto classifier = std::make_shared<ScriptedProvider>();
        classifier->then(ScriptedTurn::error(down()));
        auto workflow = unwrap(Workflow::router(
            "support", Workflow::Route::byAgent(scriptedAgent(classifier, "triage")), routes));
        const auto output = runCoro(workflow.run("buy"));
        REQUIRE_FALSE(output);
        CHECK(output.error().message.rfind("workflow 'support' could not choose a route: agent 'triage'",
                                           0) == 0);
        CHECK(output.error().cause->code == "choose_failed");
        REQUIRE(output.error().rootCause());
        CHECK(output.error().rootCause()->domain == "agent");
        CHECK(output.error().rootCause()->code == "provider_failed");
    }
}

TEST_CASE("workflows nest and a nested failure keeps its root cause", "[agent][workflow]") {
    auto probe = std::make_shared<Probe>();
    auto inner =
        unwrap(Workflow::parallel("gather", {timed(probe, "a", 1ms, "A"), timed(probe, "b", 1ms, "B")}));

    SECTION("outputs flow through") {
        auto outer = unwrap(Workflow::sequential(
            "report", {appending("ask", "?"), Step::fromWorkflow({}, inner), appending("done", " (end)")}));
        const auto output = runCoro(outer.run("x"));
        REQUIRE(output);
        CHECK(*output == R"([{"step":"a","output":"A"},{"step":"b","output":"B"}] (end))");
    }
    SECTION("failures chain") {
        auto provider = std::make_shared<ScriptedProvider>();
        provider->then(ScriptedTurn::error(down()));
        auto failing =
            unwrap(Workflow::sequential("draft", {Step::fromAgent("writer", scriptedAgent(provider))}));
        auto outer = unwrap(
            Workflow::sequential("report", {Step::fromWorkflow({}, inner), Step::fromWorkflow({}, failing)}));
        const auto output = runCoro(outer.run("x"));
        REQUIRE_FALSE(output);
        CHECK(output.error().message.rfind(
                  "workflow 'report' step 2 'draft' failed: workflow 'draft' step 1 "
                  "'writer' failed: agent 'writer' did not finish its task: provider_failed",
                  0) == 0);
        const auto causes = output.error().causes();
        // Each workflow's cause, then the step's own error (as a cause), down to the sub-agent's.
        REQUIRE(causes.size() == 5);
        CHECK(causes[0]->domain == "workflow");
        CHECK(causes[1]->domain == "tool");
        CHECK(causes[2]->domain == "workflow");
        CHECK(causes[3]->domain == "tool");
        CHECK(causes[4]->domain == "agent");
        CHECK(output.error().rootCause()->code == "provider_failed");
    }
}

TEST_CASE("a parent agent sees a workflow's failure as a tool error rooted in the sub-agent's error",
          "[agent][workflow]") {
    auto searcher = std::make_shared<ScriptedProvider>();
    searcher->then(ScriptedTurn::text("three sources"));
    auto writer = std::make_shared<ScriptedProvider>();
    writer->then(ScriptedTurn::error(down()));
    auto research =
        unwrap(Workflow::sequential("research", {Step::fromAgent("search", scriptedAgent(searcher)),
                                                 Step::fromAgent("writer", scriptedAgent(writer))}));
    const auto tool = research.asTool();
    CHECK(tool.definition.name == "research");
    CHECK(tool.definition.inputSchema["required"] == json{"message"});
    CHECK(tool.definition.description.find("search, then writer") != std::string::npos);

    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("research", {{"message", "otters"}}))
        .then(ScriptedTurn::text("could not research")
                  .expectLastMessageContains(
                      "workflow 'research' step 2 'writer' failed: agent 'writer' did not finish its task"));
    reagent::agent::ToolsConfig tools;
    tools.tools.push_back(tool);
    auto parent = Agent::create().withProvider(provider).withTools(tools).build();
    REQUIRE(parent);
    const RunResult result = runCoro(parent->run("research otters"));
    INFO(result.errorMessage);
    REQUIRE(result.success());
    REQUIRE(result.toolCalls.size() == 1);
    REQUIRE_FALSE(result.toolCalls[0].succeeded());
    const ToolError& error = result.toolCalls[0].outcome.error();
    CHECK(error.code == ToolErrc::failed);
    CHECK(error.tool == "research");
    REQUIRE(error.cause);
    CHECK(error.cause->domain == "workflow");
    REQUIRE(error.rootCause());
    CHECK(error.rootCause()->domain == "agent");
    CHECK(error.rootCause()->code == "provider_failed");
    CHECK(error.rootCause()->message.find("down") != std::string::npos);
    CHECK(searcher->requests().size() == 1);
}

TEST_CASE("cancelling the caller reaches the running steps", "[agent][workflow][cancel]") {
    auto probe = std::make_shared<Probe>();

    SECTION("a parallel workflow") {
        Workflow::ParallelOptions options;
        options.maxParallel = 2;
        auto workflow = unwrap(Workflow::parallel(
            "fanout", {timed(probe, "a", 5s), timed(probe, "b", 5s), timed(probe, "c", 5s)}, options));
        auto [output, ms] = runCancelled(workflow.run("x"), 50ms);
        CHECK(ms < 2000);
        REQUIRE(output);
        REQUIRE_FALSE(*output);
        CHECK(output->error().code == ToolErrc::cancelled);
        CHECK(probe->cancelled.size() == 2);
        CHECK(probe->started == std::vector<std::string>{"a", "b"});
    }
    SECTION("a sequential workflow") {
        auto workflow = unwrap(Workflow::sequential("steps", {timed(probe, "a", 5s), timed(probe, "b", 5s)}));
        auto [output, ms] = runCancelled(workflow.run("x"), 50ms);
        CHECK(ms < 2000);
        REQUIRE(output);
        REQUIRE_FALSE(*output);
        CHECK(output->error().code == ToolErrc::cancelled);
        CHECK(output->error().message == "workflow 'steps' step 1 'a' was cancelled: a was cancelled");
        CHECK(probe->started == std::vector<std::string>{"a"});
    }
    SECTION("a parent agent run through the workflow tool to a sub-agent") {
        auto slow = std::make_shared<ScriptedProvider>();
        slow->then(ScriptedTurn::text("late").delay(5s));
        auto workflow = unwrap(
            Workflow::router("route", answering("slow"), {Step::fromAgent("slow", scriptedAgent(slow))}));
        auto provider = std::make_shared<ScriptedProvider>();
        provider->then(ScriptedTurn::toolCall("route", {{"message", "work"}}))
            .then(ScriptedTurn::text("unreachable"));
        reagent::agent::ToolsConfig tools;
        tools.tools.push_back(workflow.asTool());
        auto parent = Agent::create().withProvider(provider).withTools(tools).build();
        REQUIRE(parent);
        auto [result, ms] = runCancelled(parent->run("go"), 50ms);
        CHECK(ms < 2000);
        REQUIRE(result);
        CHECK(result->terminatedBy == TerminatedBy::cancelled);
        REQUIRE(result->toolCalls.size() == 1);
        REQUIRE_FALSE(result->toolCalls[0].succeeded());
        CHECK(result->toolCalls[0].outcome.error().code == ToolErrc::cancelled);
        CHECK(slow->requests().size() == 1);
    }
}

TEST_CASE("bad workflow definitions are reported with every problem", "[agent][workflow]") {
    auto probe = std::make_shared<Probe>();

    SECTION("no steps and a name that is not a tool name") {
        auto made = Workflow::sequential("my workflow", {});
        REQUIRE_FALSE(made);
        CHECK(made.error().code == AgentErrc::invalid_config);
        CHECK(made.error().message.find("2 problems") != std::string::npos);
        CHECK(made.error().message.find("'my workflow' must be a valid tool name") != std::string::npos);
        CHECK(made.error().message.find("no steps") != std::string::npos);
    }
    SECTION("an empty name and duplicate or unnamed or empty steps and a cap of 0") {
        Workflow::ParallelOptions options;
        options.maxParallel = 0;
        auto made = Workflow::parallel(
            "", {timed(probe, "a", 1ms), timed(probe, "a", 1ms), timed(probe, "", 1ms), Step{"hollow", {}}},
            options);
        REQUIRE_FALSE(made);
        const std::string& message = made.error().message;
        INFO(message);
        CHECK(message.find("5 problems") != std::string::npos);
        CHECK(message.find("two steps are named 'a'") != std::string::npos);
        CHECK(message.find("step 3 has no name") != std::string::npos);
        CHECK(message.find("step 4 ('hollow') has no function") != std::string::npos);
        CHECK(message.find("maxParallel must be at least 1") != std::string::npos);
    }
    SECTION("a router without routes or chooser") {
        auto made = Workflow::router("triage", {}, {});
        REQUIRE_FALSE(made);
        CHECK(made.error().message.find("no routes") != std::string::npos);
        CHECK(made.error().message.find("no chooser") != std::string::npos);
    }
}
