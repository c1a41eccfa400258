// What the CLI shows of runs inside runs: a sub-agent's events indented under the parent's call, and the
// A2A server's shared agent streaming each task's own progress while tasks overlap.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <memory>
#include <reagent/reagent.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "a2a_runner.hpp"
#include "agent_fixtures.hpp"
#include "run_coro.hpp"
#include "trace.hpp"

using nlohmann::json;
using reagent::Task;
using reagent::agent::Agent;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::test::noBuiltinTools;
using reagent::tools::ToolBuilder;
using reagent::tools::ToolContext;
using reagent::tools::ToolResult;

namespace {

// A tool that reports progress naming its input, then echoes it after a pause (so that tasks overlap).
reagent::tools::Tool slowEcho() {
    auto tool = ToolBuilder::create("echo")
                    .description("Echo a text slowly")
                    .param("text", "string", "text", {})
                    .handler([](json args, ToolContext context) -> Task<ToolResult> {
                        const std::string text = args.value("text", std::string());
                        context.reportProgress(reagent::tools::ToolProgress{1, 2, "working on " + text});
                        co_await reagent::test::sleepFor(std::chrono::milliseconds(30));
                        co_return text;
                    })
                    .build();
    REQUIRE(tool);
    return *tool;
}

}  // namespace

TEST_CASE("the trace shows a sub-agent's calls indented under the parent's call", "[cli][trace][nested]") {
    auto subProvider = std::make_shared<ScriptedProvider>();
    subProvider->then(ScriptedTurn::toolCall("echo", {{"text", "inner"}}))
        .then(ScriptedTurn::text("sub done"));
    auto sub = Agent::create()
                   .withName("helper")
                   .withProvider(subProvider)
                   .withTools(noBuiltinTools())
                   .withTool(slowEcho())
                   .build();
    REQUIRE(sub);
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("helper", {{"message", "do it"}}))
        .then(ScriptedTurn::text("all done"));
    auto parent = Agent::create()
                      .withProvider(provider)
                      .withTools(noBuiltinTools())
                      .withAgentTool("helper", *sub)
                      .build();
    REQUIRE(parent);
    std::ostringstream out;
    reagent::cli::TracePrinter trace(out);
    reagent::agent::RunOptions options;
    options.onEvent = [&trace](const reagent::agent::AgentEvent& event) { trace(event); };
    const auto result = reagent::test::runCoro(parent->run("delegate", std::move(options)));
    REQUIRE(result.success());
    const std::string text = out.str();
    INFO(text);
    CHECK(text.find("    helper \u203a \u2192 echo:") != std::string::npos);
    CHECK(text.find("    helper \u203a progress echo: 1/2 working on inner") != std::string::npos);
    CHECK(text.find("    helper \u203a \u2713 echo") != std::string::npos);
    CHECK(text.find("    helper \u203a finished: end_turn after 2 model calls") != std::string::npos);
    // The parent's own lines come around the nested ones.
    CHECK(text.find("  \u2192 helper:") < text.find("    helper \u203a \u2192 echo:"));
    CHECK(text.find("  \u2713 helper") > text.find("    helper \u203a finished"));
}

TEST_CASE("the A2A server's shared agent streams each task's own progress", "[cli][a2a][nested]") {
    // One agent, two tasks at once: each task's progress names only its own calls.
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::respond([](const reagent::llm::ModelRequest& request) {
        reagent::llm::ModelReply reply;
        reagent::llm::ToolCall call;
        call.id = "c";
        call.name = "echo";
        call.arguments = {{"text", request.messages.back().text}};
        reply.toolCalls.push_back(call);
        return reagent::expected<reagent::llm::ModelReply, reagent::llm::ProviderError>(reply);
    }));
    provider->then(ScriptedTurn::respond([](const reagent::llm::ModelRequest& request) {
        reagent::llm::ModelReply reply;
        reply.toolCalls.push_back(reagent::llm::ToolCall{});
        reply.toolCalls.back().id = "c";
        reply.toolCalls.back().name = "echo";
        reply.toolCalls.back().arguments = {{"text", request.messages.back().text}};
        return reagent::expected<reagent::llm::ModelReply, reagent::llm::ProviderError>(reply);
    }));
    provider->then(ScriptedTurn::text("done")).then(ScriptedTurn::text("done"));
    auto agent =
        Agent::create().withProvider(provider).withTools(noBuiltinTools()).withTool(slowEcho()).build();
    REQUIRE(agent);
    const auto run = reagent::cli::sharedAgentRunner(*agent);

    boost::asio::io_context io;
    std::vector<std::string> first;
    std::vector<std::string> second;
    int finished = 0;
    const auto start = [&](std::string prompt, std::vector<std::string>* lines) {
        boost::asio::co_spawn(
            io,
            run(std::move(prompt),
                reagent::a2a::TaskContext{
                    [lines](std::string line) { lines->push_back(std::move(line)); }, {}, {}, {}}),
            [&finished](std::exception_ptr error, reagent::expected<std::string, std::string> outcome) {
                CHECK_FALSE(error);
                CHECK(outcome);
                ++finished;
            });
    };
    start("alpha", &first);
    start("beta", &second);
    io.run();
    CHECK(finished == 2);
    CHECK(first == std::vector<std::string>{"calling echo", "echo: working on alpha"});
    CHECK(second == std::vector<std::string>{"calling echo", "echo: working on beta"});
}

TEST_CASE("the trace shows a sub-agent's own sub-agent one level deeper", "[cli][trace][nested]") {
    auto innerProvider = std::make_shared<ScriptedProvider>();
    innerProvider->then(ScriptedTurn::toolCall("echo", {{"text", "deep"}}, "call_1"))
        .then(ScriptedTurn::text("inner done"));
    auto inner =
        Agent::create().withProvider(innerProvider).withTools(noBuiltinTools()).withTool(slowEcho()).build();
    REQUIRE(inner);
    auto middleProvider = std::make_shared<ScriptedProvider>();
    middleProvider->then(ScriptedTurn::toolCall("scout", {{"message", "look"}}, "call_1"))
        .then(ScriptedTurn::text("middle done"));
    auto middle = Agent::create()
                      .withProvider(middleProvider)
                      .withTools(noBuiltinTools())
                      .withAgentTool("scout", *inner)
                      .build();
    REQUIRE(middle);
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("lead", {{"message", "go"}}, "call_1"))
        .then(ScriptedTurn::text("all done"));
    auto parent = Agent::create()
                      .withProvider(provider)
                      .withTools(noBuiltinTools())
                      .withAgentTool("lead", *middle)
                      .build();
    REQUIRE(parent);
    std::ostringstream out;
    reagent::cli::TracePrinter trace(out);
    reagent::agent::RunOptions options;
    options.onEvent = [&trace](const reagent::agent::AgentEvent& event) { trace(event); };
    const auto result = reagent::test::runCoro(parent->run("delegate twice", std::move(options)));
    REQUIRE(result.success());
    const std::string text = out.str();
    INFO(text);
    CHECK(text.find("    lead \u203a \u2192 scout:") != std::string::npos);
    CHECK(text.find("    lead \u203a scout \u203a \u2192 echo:") != std::string::npos);
    CHECK(text.find("    lead \u203a scout \u203a \u2713 echo") != std::string::npos);
    // Every level uses the same call id; each still gets its own duration.
    CHECK(text.find("    lead \u203a \u2713 scout (") != std::string::npos);
    CHECK(text.find("  \u2713 lead (") != std::string::npos);
}
