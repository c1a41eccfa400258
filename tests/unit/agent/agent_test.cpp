// End-to-end tests of Agent through the public API only: a ScriptedProvider plays the model and
// ToolBuilder tools do the work.
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
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
using nlohmann::json;
using reagent::Task;
using reagent::agent::Agent;
using reagent::agent::AgentErrc;
using reagent::agent::AgentEvent;
using reagent::agent::RunResult;
using reagent::agent::TerminatedBy;
using reagent::llm::Role;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::llm::ToolCall;
using reagent::test::elapsedMs;
using reagent::test::runCoro;
using reagent::tools::ParamOptions;
using reagent::tools::ToolBuilder;
using reagent::tools::ToolContext;
using reagent::tools::ToolErrc;
using reagent::tools::ToolResult;

namespace {

// Spelled out rather than `{.required = true}`, which g++ -Wextra flags for the members left out.
ParamOptions requiredParam() {
    ParamOptions options;
    options.required = true;
    return options;
}

Task<ToolResult> sleepThen(std::chrono::milliseconds delay, std::string output) {
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, delay);
    co_await timer.async_wait(boost::asio::use_awaitable);
    co_return output;
}

Task<ToolResult> immediately(std::string output) {
    co_return output;
}

// `add(a, b)`, counting its calls in `calls`.
reagent::expected<reagent::tools::Tool, reagent::tools::ToolError> addTool(std::shared_ptr<int> calls) {
    return ToolBuilder::create("add")
        .description("Add two integers")
        .param("a", "integer", "first operand", requiredParam())
        .param("b", "integer", "second operand", requiredParam())
        .handler([calls](json args, ToolContext) {
            ++*calls;
            return immediately(std::to_string(args["a"].get<long>() + args["b"].get<long>()));
        })
        .build();
}

reagent::expected<reagent::tools::Tool, reagent::tools::ToolError> sleepyTool(
    std::string name, std::chrono::milliseconds delay) {
    return ToolBuilder::create(std::move(name))
        .description("Waits, then answers")
        .param("n", "integer", "which call")
        .handler([delay](json args, ToolContext) {
            return sleepThen(delay, "slept " + args.value("n", json(0)).dump());
        })
        .build();
}

// Free coroutines called from non-coroutine lambdas: the frames never refer to a lambda that may die.
Task<bool> approveAndRemember(std::shared_ptr<std::string> asked, reagent::tools::ToolCallRequest request) {
    *asked = request.arguments.value("path", std::string());
    co_return true;
}

Task<reagent::expected<void, reagent::tools::ToolError>> countCall(std::shared_ptr<int> counter) {
    ++*counter;
    co_return reagent::expected<void, reagent::tools::ToolError>{};
}

json finalAnswer(std::string output) {
    return json{{"output", std::move(output)}};
}

}  // namespace

TEST_CASE("a two-turn run calls a tool, then answers through final-answer", "[agent][e2e]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("add", {{"a", 2}, {"b", 3}}).usage({100, 10}))
        .then(ScriptedTurn::toolCall("final-answer", {{"output", "5"}, {"confidence", 0.9}})
                  .expectLastMessageContains("5")
                  .usage({150, 12}));
    auto calls = std::make_shared<int>(0);
    // The umbrella's builder: withTool enables tools, and with them the built-in ones.
    auto agent = reagent::Agent::create()
                     .withProvider(provider)
                     .withTool(addTool(calls))
                     .withReasoning()
                     .withSystemPrompt("You are a calculator.")
                     .build();
    REQUIRE(agent);

    const RunResult result = runCoro(agent->run("What is 2 + 3?"));
    CHECK(result.success());
    CHECK(result.terminatedBy == TerminatedBy::final_answer);
    CHECK(result.output == "5");
    REQUIRE(result.finalAnswer);
    CHECK(result.finalAnswer->format == "text");
    CHECK(result.finalAnswer->confidence == Approx(0.9));
    CHECK(result.iterations == 2);
    CHECK(*calls == 1);
    CHECK(result.usage == reagent::llm::Usage{250, 22});
    CHECK(result.duration > 0us);
    REQUIRE(result.toolCalls.size() == 2);
    CHECK(result.toolCalls[0].name == "add");
    CHECK(*result.toolCalls[0].outcome == "5");
    CHECK(result.toolCalls[0].tripIndex == 0);
    CHECK(result.toolCalls[1].name == "final-answer");
    CHECK(result.toolCalls[1].tripIndex == 1);

    REQUIRE(provider->requests().size() == 2);
    const auto& first = provider->requests()[0];
    REQUIRE(first.messages.size() == 2);
    CHECK(first.messages[0].role == Role::system);
    CHECK_THAT(first.messages[0].text, Catch::Contains("final-answer"));
    CHECK_THAT(first.messages[0].text, Catch::EndsWith("You are a calculator."));
    // The meta-tools first, then recall, the built-in tools (this program includes <reagent/reagent.hpp>)
    // and the user's.
    std::vector<std::string> offered;
    for (const auto& spec : first.tools) {
        offered.push_back(spec.name);
    }
    CHECK(offered == std::vector<std::string>{"final-answer", "task-complete", "context-status", "recall",
                                              "http-get", "web-search", "crypto-price", "code-execute",
                                              "add"});
    CHECK(provider->requests()[1].messages.back().role == Role::tool);
}

TEST_CASE("without reasoning a plain reply ends the run", "[agent][e2e]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("add", {{"a", 1}, {"b", 1}})).then(ScriptedTurn::text("It is 2."));
    auto agent =
        reagent::Agent::create().withProvider(provider).withTool(addTool(std::make_shared<int>(0))).build();
    REQUIRE(agent);
    const RunResult result = runCoro(agent->run("1+1?"));
    CHECK(result.success());
    CHECK(result.terminatedBy == TerminatedBy::end_turn);
    CHECK(result.output == "It is 2.");
    // No system prompt was given and reasoning is off: no system message, no final-answer; tools come
    // with the recall meta-tool.
    CHECK(provider->requests()[0].messages.size() == 1);
    REQUIRE(provider->requests()[0].tools.size() == 6);
    CHECK(provider->requests()[0].tools[0].name == "recall");
    CHECK(provider->requests()[0].tools[5].name == "add");
}

TEST_CASE("a batch of three 200 ms tools runs in parallel", "[agent][e2e][parallel][timing]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider
        ->then(ScriptedTurn::toolCalls({ToolCall{"", "slow", {{"n", 1}}}, ToolCall{"", "slow", {{"n", 2}}},
                                        ToolCall{"", "slow", {{"n", 3}}}}))
        .then(ScriptedTurn::text("all done"));
    auto agent = Agent::create().withProvider(provider).withTool(sleepyTool("slow", 200ms)).build();
    REQUIRE(agent);

    const auto start = std::chrono::steady_clock::now();
    const RunResult result = runCoro(agent->run("go"));
    const auto elapsed = elapsedMs(start);
    CHECK(result.success());
    CHECK(elapsed >= 200);
    CHECK(elapsed < 380);
    REQUIRE(result.toolCalls.size() == 3);
    CHECK(*result.toolCalls[0].outcome == "slept 1");
    CHECK(*result.toolCalls[1].outcome == "slept 2");
    CHECK(*result.toolCalls[2].outcome == "slept 3");
    // Results reach the model in call order.
    const auto& messages = provider->requests()[1].messages;
    REQUIRE(messages.size() == 5);
    CHECK(messages[2].text == "slept 1");
    CHECK(messages[4].text == "slept 3");
}

TEST_CASE("invalid arguments reach the model as an error and the handler never runs", "[agent][e2e]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("add", {{"a", "two"}, {"b", 3}}))
        .then(ScriptedTurn::toolCall("add", {{"a", 2}, {"b", 3}}))
        .then(ScriptedTurn::text("5"));
    auto calls = std::make_shared<int>(0);
    auto agent = Agent::create().withProvider(provider).withTool(addTool(calls)).build();
    REQUIRE(agent);

    const RunResult result = runCoro(agent->run("2+3"));
    CHECK(result.success());
    CHECK(*calls == 1);
    REQUIRE(provider->requests().size() == 3);
    const auto& feedback = provider->requests()[1].messages.back();
    CHECK(feedback.role == Role::tool);
    CHECK(feedback.isError);
    CHECK_THAT(feedback.text, Catch::StartsWith("invalid_arguments"));
    CHECK_THAT(feedback.text, Catch::Contains("/a"));
    REQUIRE(result.toolCalls.size() == 2);
    CHECK(result.toolCalls[0].outcome.error().code == ToolErrc::invalid_arguments);
    CHECK(*result.toolCalls[1].outcome == "5");
}

TEST_CASE("a hanging tool times out and the run goes on", "[agent][e2e][timing]") {
    auto hanging = ToolBuilder::create("hang")
                       .description("Never answers in time")
                       .timeout(100ms)
                       .handler([](json, ToolContext) { return sleepThen(10s, "never"); })
                       .build();
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("hang", json::object()))
        .then(ScriptedTurn::text("the tool timed out").expectLastMessageContains("timeout"));
    auto agent = Agent::create().withProvider(provider).withTool(std::move(hanging)).build();
    REQUIRE(agent);

    const auto start = std::chrono::steady_clock::now();
    const RunResult result = runCoro(agent->run("try"));
    CHECK(elapsedMs(start) < 2000);
    CHECK(result.success());
    CHECK(result.output == "the tool timed out");
    REQUIRE(result.toolCalls.size() == 1);
    CHECK(result.toolCalls[0].outcome.error().code == ToolErrc::timeout);
    CHECK(provider->requests()[1].messages.back().isError);
}

TEST_CASE("an approval-gated tool runs only with an approving handler", "[agent][e2e][approval]") {
    auto calls = std::make_shared<int>(0);
    auto gated = [calls] {
        return ToolBuilder::create("delete_file")
            .description("Deletes a file")
            .param("path", "string", "file to delete", requiredParam())
            .requiresApproval()
            .handler([calls](json, ToolContext) {
                ++*calls;
                return immediately("deleted");
            })
            .build();
    };
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("delete_file", {{"path", "a.txt"}})).then(ScriptedTurn::text("ok"));

    SECTION("no approval handler: refused") {
        auto agent = Agent::create().withProvider(provider).withTool(gated()).build();
        REQUIRE(agent);
        const RunResult result = runCoro(agent->run("delete a.txt"));
        CHECK(*calls == 0);
        REQUIRE(result.toolCalls.size() == 1);
        CHECK(result.toolCalls[0].outcome.error().code == ToolErrc::approval_unavailable);
        CHECK_THAT(provider->requests()[1].messages.back().text, Catch::StartsWith("approval_unavailable"));
    }
    SECTION("the configured handler is asked") {
        auto asked = std::make_shared<std::string>();
        auto agent = Agent::create()
                         .withProvider(provider)
                         .withTool(gated())
                         .withApprovalHandler([asked](reagent::tools::ToolCallRequest request,
                                                      reagent::tools::ToolDefinition) {
                             return approveAndRemember(asked, std::move(request));
                         })
                         .build();
        REQUIRE(agent);
        const RunResult result = runCoro(agent->run("delete a.txt"));
        CHECK(*asked == "a.txt");
        CHECK(*calls == 1);
        CHECK(*result.toolCalls[0].outcome == "deleted");
    }
}

TEST_CASE("maxIterations stops a model that calls tools forever", "[agent][e2e]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("add", {{"a", 1}, {"b", 1}}).usage({10, 1})).loop(true);
    auto agent = Agent::create()
                     .withProvider(provider)
                     .withTool(addTool(std::make_shared<int>(0)))
                     .withMaxIterations(3)
                     .build();
    REQUIRE(agent);

    const RunResult result = runCoro(agent->run("loop"));
    CHECK_FALSE(result.success());
    CHECK(result.terminatedBy == TerminatedBy::max_iterations);
    CHECK(result.iterations == 3);
    CHECK(provider->requests().size() == 3);
    CHECK(result.toolCalls.size() == 3);
    CHECK(result.usage == reagent::llm::Usage{30, 3});
    REQUIRE(result.error());
    CHECK(result.error()->code == AgentErrc::max_iterations);
    CHECK_THAT(result.error()->message, Catch::Contains("withMaxIterations"));
}

TEST_CASE("the iteration limit does not depend on the order of builder calls", "[agent][builder]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("add", {{"a", 1}, {"b", 1}})).loop(true);
    const auto limitOf = [](const reagent::expected<Agent, reagent::agent::AgentError>& agent) {
        REQUIRE(agent);
        return agent->config().loop.maxIterations;
    };
    auto add = [] { return addTool(std::make_shared<int>(0)); };
    CHECK(limitOf(Agent::create()
                      .withProvider(provider)
                      .withTool(add())
                      .withMaxIterations(3)
                      .withReasoning()
                      .build()) == 3);
    CHECK(limitOf(Agent::create()
                      .withProvider(provider)
                      .withTool(add())
                      .withReasoning()
                      .withMaxIterations(3)
                      .build()) == 3);
    CHECK(limitOf(Agent::create().withProvider(provider).withTool(add()).withReasoning().build()) == 10);

    auto agent =
        Agent::create().withProvider(provider).withTool(add()).withMaxIterations(3).withReasoning().build();
    REQUIRE(agent);
    const RunResult result = runCoro(agent->run("loop"));
    CHECK(result.terminatedBy == TerminatedBy::max_iterations);
    CHECK(result.iterations == 3);
}

TEST_CASE("the builder reports every problem at once", "[agent][builder]") {
    SECTION("no provider") {
        auto agent = Agent::create().build();
        REQUIRE_FALSE(agent);
        CHECK(agent.error().code == AgentErrc::invalid_config);
        CHECK_THAT(agent.error().message, Catch::Contains("no provider"));
    }
    SECTION("a null provider") {
        auto agent = Agent::create().withProvider(std::shared_ptr<ScriptedProvider>()).build();
        REQUIRE_FALSE(agent);
        CHECK_THAT(agent.error().message, Catch::Contains("no provider"));
    }
    SECTION("a provider that could not be made: its error, with the other problems") {
        const reagent::llm::ProviderError error{
            reagent::llm::ProviderErrc::configuration, "no key in FOO_KEY", {}, {}, {}};
        auto agent = Agent::create().withProvider(reagent::fail(error)).withMaxIterations(0).build();
        REQUIRE_FALSE(agent);
        CHECK_THAT(agent.error().message, Catch::Contains("2 problems") &&
                                              Catch::Contains("provider: no key in FOO_KEY") &&
                                              !Catch::Contains("no provider"));
        // A later provider replaces the failed one.
        auto replaced = Agent::create()
                            .withProvider(reagent::fail(error))
                            .withProvider(std::make_shared<ScriptedProvider>())
                            .build();
        CHECK(replaced);
    }
    SECTION("a bad tool, a duplicate and a bad limit together") {
        auto provider = std::make_shared<ScriptedProvider>();
        auto agent = Agent::create()
                         .withProvider(provider)
                         .withTool(ToolBuilder::create("broken")
                                       .handler([](json, ToolContext) { return immediately("x"); })
                                       .build())
                         .withTool(addTool(std::make_shared<int>(0)))
                         .withTool(addTool(std::make_shared<int>(0)))
                         .withMaxIterations(0)
                         .build();
        REQUIRE_FALSE(agent);
        const std::string& message = agent.error().message;
        CHECK(agent.error().code == AgentErrc::invalid_config);
        CHECK_THAT(message, Catch::Contains("3 problems"));
        CHECK_THAT(message, Catch::Contains("broken"));
        CHECK_THAT(message, Catch::Contains("duplicate_name"));
        CHECK_THAT(message, Catch::Contains("maxIterations must be at least 1 (got 0)"));
        CHECK_THAT(agent.error().describe(), Catch::StartsWith("invalid_config: "));
    }
    SECTION("a user tool may not take the meta-tool's name") {
        auto fake = ToolBuilder::create("final-answer")
                        .description("mine")
                        .handler([](json, ToolContext) { return immediately("x"); })
                        .build();
        auto agent = Agent::create()
                         .withProvider(std::make_shared<ScriptedProvider>())
                         .withReasoning()
                         .withTool(std::move(fake))
                         .build();
        REQUIRE_FALSE(agent);
        CHECK_THAT(agent.error().message, Catch::Contains("final-answer"));
    }
}

TEST_CASE("tools can be registered and removed after build", "[agent][registry]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("add", {{"a", 4}, {"b", 5}}))
        .then(ScriptedTurn::toolCall("final-answer", finalAnswer("9")));
    auto agent = Agent::create().withProvider(provider).withReasoning().build();
    REQUIRE(agent);
    // final-answer, task-complete, context-status.
    REQUIRE(agent->toolSpecs().size() == 3);

    auto calls = std::make_shared<int>(0);
    auto tool = addTool(calls);
    REQUIRE(tool);
    REQUIRE(agent->registerTool(*tool));
    const auto again = agent->registerTool(*tool);
    REQUIRE_FALSE(again);
    CHECK(again.error().code == ToolErrc::duplicate_name);
    // The first tool enables tools, and with them the recall meta-tool (built-ins come with withTools()).
    REQUIRE(agent->toolSpecs().size() == 5);
    CHECK(agent->toolDefinitions()[3].name == "add");
    CHECK(agent->toolDefinitions()[4].name == "recall");

    const RunResult result = runCoro(agent->run("4+5"));
    CHECK(result.output == "9");
    CHECK(*calls == 1);
    CHECK(provider->requests()[0].tools.size() == 5);

    CHECK_FALSE(agent->unregisterTool("final-answer"));
    CHECK_FALSE(agent->unregisterTool("task-complete"));
    CHECK_FALSE(agent->unregisterTool("context-status"));
    CHECK_FALSE(agent->unregisterTool("recall"));
    CHECK_FALSE(agent->unregisterTool("missing"));
    CHECK(agent->unregisterTool("add"));
    REQUIRE(agent->toolSpecs().size() == 4);
    CHECK(agent->toolSpecs()[0].name == "final-answer");

    // Handles are copies sharing one agent.
    const Agent copy = *agent;
    REQUIRE(copy.registerTool(*tool));
    CHECK(agent->toolSpecs().size() == 5);
}

TEST_CASE("runs of an unchanged agent offer the very same tool list", "[agent][registry]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::text("one"))
        .then(ScriptedTurn::text("two"))
        .then(ScriptedTurn::text("three"));
    auto calls = std::make_shared<int>(0);
    auto tool = addTool(calls);
    REQUIRE(tool);
    auto agent = Agent::create().withProvider(provider).withTool(*tool).build();
    REQUIRE(agent);

    CHECK(runCoro(agent->run("first")).output == "one");
    CHECK(runCoro(agent->run("second")).output == "two");
    const auto& requests = provider->requests();
    REQUIRE(requests.size() == 2);
    // Shared, not rebuilt: a provider recognises the list by identity and reuses its encoding.
    CHECK(requests[0].tools.sameAs(requests[1].tools));

    // A registration change is seen by the next run, with a new list.
    REQUIRE(agent->unregisterTool("add"));
    CHECK(runCoro(agent->run("third")).output == "three");
    REQUIRE(provider->requests().size() == 3);
    CHECK_FALSE(provider->requests()[2].tools.sameAs(requests[0].tools));
    CHECK(provider->requests()[2].tools.size() == requests[0].tools.size() - 1);
}

TEST_CASE("events arrive in order", "[agent][events]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("add", {{"a", 1}, {"b", 2}}).usage({5, 1}))
        .then(ScriptedTurn::text("3"))
        .loop(true);
    std::vector<std::string> fromBuilder;
    auto agent = Agent::create()
                     .withProvider(provider)
                     .withTool(addTool(std::make_shared<int>(0)))
                     .withEventHandler([&fromBuilder](const AgentEvent& event) {
                         fromBuilder.push_back(std::to_string(event.index()));
                     })
                     .build();
    REQUIRE(agent);

    std::vector<std::string> seen;
    const auto id = agent->subscribe([&seen](const AgentEvent& event) {
        if (const auto* started = std::get_if<reagent::agent::RunStarted>(&event)) {
            seen.push_back("started:" + started->prompt);
        } else if (const auto* model = std::get_if<reagent::agent::ModelResponded>(&event)) {
            seen.push_back("model:" + std::to_string(model->iteration) + ":" +
                           std::to_string(model->toolCalls.size()));
        } else if (const auto* calling = std::get_if<reagent::tools::ToolCalling>(&event)) {
            seen.push_back("calling:" + calling->tool);
        } else if (const auto* called = std::get_if<reagent::tools::ToolCalled>(&event)) {
            seen.push_back("called:" + called->record.name + "=" + *called->record.outcome);
        } else if (std::holds_alternative<reagent::tools::ToolFailed>(event)) {
            seen.push_back("failed");
        } else if (const auto* finished = std::get_if<reagent::agent::RunFinished>(&event)) {
            seen.push_back("finished:" + std::string(reagent::agent::toString(finished->terminatedBy)) + ":" +
                           std::to_string(finished->iterations));
        }
    });
    // A throwing subscriber never breaks the run.
    agent->subscribe([](const AgentEvent&) { throw std::runtime_error("observer bug"); });

    const RunResult result = runCoro(agent->run("1+2"));
    CHECK(result.success());
    CHECK(seen == std::vector<std::string>{"started:1+2", "model:0:1", "calling:add", "called:add=3",
                                           "model:1:0", "finished:end_turn:2"});
    CHECK(fromBuilder.size() == 6);

    agent->unsubscribe(id);
    (void)runCoro(agent->run("again"));
    CHECK(seen.size() == 6);
    CHECK(fromBuilder.size() == 12);
}

TEST_CASE("each run starts from a fresh conversation", "[agent][memory]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("add", {{"a", 1}, {"b", 1}}))
        .then(ScriptedTurn::text("2"))
        .loop(true);
    auto agent = Agent::create()
                     .withProvider(provider)
                     .withTool(addTool(std::make_shared<int>(0)))
                     .withSystemPrompt("be exact")
                     .build();
    REQUIRE(agent);
    for (int i = 0; i < 5; ++i) {
        const RunResult result = runCoro(agent->run("run " + std::to_string(i)));
        REQUIRE(result.success());
        CHECK(result.messages.size() == 5);
        CHECK(result.toolCalls.size() == 1);
    }
    REQUIRE(provider->requests().size() == 10);
    // The second run's first request holds only the system prompt and its own prompt.
    const auto& secondRun = provider->requests()[2].messages;
    REQUIRE(secondRun.size() == 2);
    CHECK(secondRun[0].text == "be exact");
    CHECK(secondRun[1].text == "run 1");
    CHECK(provider->requests()[9].messages.size() == 4);
}

TEST_CASE("cancelling a run in flight ends it quickly with what was done", "[agent][cancel][timing]") {
    namespace asio = boost::asio;
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("nap", json::object())).then(ScriptedTurn::text("unreachable"));
    auto agent = Agent::create().withProvider(provider).withTool(sleepyTool("nap", 5s)).build();
    REQUIRE(agent);

    asio::io_context io;
    asio::cancellation_signal signal;
    std::optional<RunResult> result;
    std::exception_ptr thrown;
    asio::co_spawn(io, agent->run("sleep"),
                   asio::bind_cancellation_slot(signal.slot(), [&](std::exception_ptr e, RunResult r) {
                       thrown = e;
                       result = std::move(r);
                   }));
    asio::steady_timer timer(io, 50ms);
    timer.async_wait([&](boost::system::error_code) { signal.emit(asio::cancellation_type::terminal); });
    const auto start = std::chrono::steady_clock::now();
    io.run();

    CHECK(elapsedMs(start) < 1000);
    CHECK_FALSE(thrown);
    REQUIRE(result);
    CHECK_FALSE(result->success());
    CHECK(result->terminatedBy == TerminatedBy::cancelled);
    REQUIRE(result->error());
    CHECK(result->error()->code == AgentErrc::cancelled);
    CHECK(result->iterations == 1);
    INFO(result->error()->message);
    REQUIRE(result->toolCalls.size() == 1);
    CHECK(result->toolCalls[0].name == "nap");
    CHECK(result->toolCalls[0].outcome.error().code == ToolErrc::cancelled);
    CHECK(provider->requests().size() == 1);
}

TEST_CASE("cancelling while the model thinks ends the run as cancelled", "[agent][cancel][timing]") {
    namespace asio = boost::asio;
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::text("slow answer").delay(5s));
    auto agent = Agent::create().withProvider(provider).build();
    REQUIRE(agent);

    asio::io_context io;
    asio::cancellation_signal signal;
    std::optional<RunResult> result;
    asio::co_spawn(io, agent->run("think"),
                   asio::bind_cancellation_slot(
                       signal.slot(), [&](std::exception_ptr, RunResult r) { result = std::move(r); }));
    asio::steady_timer timer(io, 50ms);
    timer.async_wait([&](boost::system::error_code) { signal.emit(asio::cancellation_type::terminal); });
    const auto start = std::chrono::steady_clock::now();
    io.run();
    CHECK(elapsedMs(start) < 1000);
    REQUIRE(result);
    CHECK(result->terminatedBy == TerminatedBy::cancelled);
    CHECK(result->messages.size() == 1);
}

TEST_CASE("failures are reported in the result, never thrown", "[agent][e2e][errors]") {
    SECTION("the provider fails") {
        auto provider = std::make_shared<ScriptedProvider>();
        provider->then(ScriptedTurn::text("thinking").usage({3, 1}));
        auto agent =
            Agent::create().withProvider(provider).withTool(addTool(std::make_shared<int>(0))).build();
        REQUIRE(agent);
        (void)runCoro(agent->run("one"));
        const RunResult result = runCoro(agent->run("two"));  // the script is exhausted now
        CHECK_FALSE(result.success());
        CHECK(result.terminatedBy == TerminatedBy::provider_error);
        REQUIRE(result.error());
        CHECK(result.error()->code == AgentErrc::provider_failed);
        CHECK_THAT(result.error()->message,
                   Catch::StartsWith("configuration: scripted provider has no turn left") &&
                       Catch::EndsWith("(script_exhausted)"));
    }
    SECTION("a provider that throws breaks its contract: internal_error") {
        struct Throwing final : reagent::llm::Provider {
            std::string_view name() const noexcept override { return "throwing"; }
            Task<reagent::expected<reagent::llm::ModelReply, reagent::llm::ProviderError>> complete(
                reagent::llm::ModelRequest) override {
                throw std::runtime_error("socket exploded");
            }
        };
        auto agent = Agent::create().withProvider(std::make_shared<Throwing>()).build();
        REQUIRE(agent);
        const RunResult result = runCoro(agent->run("x"));
        CHECK(result.terminatedBy == TerminatedBy::internal_error);
        REQUIRE(result.error());
        CHECK(result.error()->code == AgentErrc::internal_error);
        CHECK_THAT(result.error()->message, Catch::Contains("socket exploded"));
        CHECK(result.iterations == 1);
    }
    SECTION("a declaration-only tool is left to the caller") {
        auto provider = std::make_shared<ScriptedProvider>();
        provider->then(ScriptedTurn::toolCall("open_door", {{"door", "front"}}, "d1"));
        auto agent = Agent::create()
                         .withProvider(provider)
                         .withTool(ToolBuilder::create("open_door")
                                       .description("Opens a door in the user's house")
                                       .param("door", "string", "which door", requiredParam())
                                       .declarationOnly()
                                       .build())
                         .build();
        REQUIRE(agent);
        const RunResult result = runCoro(agent->run("open the front door"));
        CHECK_FALSE(result.success());
        CHECK(result.terminatedBy == TerminatedBy::external_tool_calls);
        CHECK(result.error()->code == AgentErrc::external_tool_call);
        REQUIRE(result.pendingToolCalls.size() == 1);
        CHECK(result.pendingToolCalls[0].id == "d1");
        CHECK(result.pendingToolCalls[0].arguments["door"] == "front");
    }
}

TEST_CASE("a batch of silent tools ends the run after dispatch", "[agent][e2e][silent]") {
    auto saved = std::make_shared<json>();
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::reply([] {
        reagent::llm::ModelReply reply;
        reply.text = "Saved your preference.";
        reply.toolCalls.push_back(ToolCall{"s1", "update_state", {{"locale", "fr"}}});
        return reply;
    }()));
    auto agent = Agent::create()
                     .withProvider(provider)
                     .withTool(ToolBuilder::create("update_state")
                                   .description("Persist user state")
                                   .param("locale", "string", "the user's locale")
                                   .mode(reagent::tools::ToolMode::silent)
                                   .handler([saved](json args, ToolContext) {
                                       *saved = args;
                                       return immediately("{\"ok\":true}");
                                   })
                                   .build())
                     .build();
    REQUIRE(agent);
    const RunResult result = runCoro(agent->run("use French"));
    CHECK(result.success());
    CHECK(result.terminatedBy == TerminatedBy::silent_tools);
    CHECK(result.output == "Saved your preference.");
    CHECK((*saved)["locale"] == "fr");
    CHECK(provider->requests().size() == 1);
}

TEST_CASE("dispose runs the dispose hooks of initialised tools", "[agent][lifecycle]") {
    auto disposed = std::make_shared<int>(0);
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("db", json::object())).then(ScriptedTurn::text("ok"));
    auto agent = Agent::create()
                     .withProvider(provider)
                     .withTool(ToolBuilder::create("db")
                                   .description("Query the database")
                                   .handler([](json, ToolContext) { return immediately("rows"); })
                                   .dispose([disposed] { return countCall(disposed); })
                                   .build())
                     .build();
    REQUIRE(agent);
    REQUIRE(runCoro(agent->run("query")).success());
    runCoro(agent->dispose());
    CHECK(*disposed == 1);
}
