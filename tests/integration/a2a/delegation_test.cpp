// A parent agent delegating, in one reply, to a local sub-agent (withAgentTool) and to a remote agent
// over A2A (withRemoteAgent, a reagent agent served by a2a::Server on 127.0.0.1): both answers reach the
// parent's model, the local sub-agent's events come nested under its call and the remote one's progress as
// the call's progress; a remote agent that goes down is a tool error whose cause is the A2A error, and the
// parent's run goes on.

#include <memory>
#include <reagent/reagent.hpp>
#include <string>
#include <vector>

#include "a2a_fixture.hpp"
#include "agent_fixtures.hpp"
#include "peer_process.hpp"
#include "run_coro.hpp"

using nlohmann::json;
using reagent::test::noBuiltinTools;
using namespace reagent;
namespace asio = boost::asio;

namespace {

// Tools enabled, none of the built-in ones (reagent::AgentBuilder registers them otherwise).
reagent::ToolsConfig withoutBuiltins() {
    reagent::ToolsConfig none;
    none.include = std::vector<std::string>{};
    return none;
}

// The served agent: it looks the city up with a tool, then answers.
agent::Agent remoteWorker() {
    auto lookup = tools::ToolBuilder::create("forecast")
                      .description("The forecast for a city")
                      .param("city", "string", "the city", {})
                      .handler([](json args, tools::ToolContext) -> Task<tools::ToolResult> {
                          co_return "sunny in " + args.value("city", std::string());
                      })
                      .build();
    REQUIRE(lookup);
    auto provider = std::make_shared<llm::ScriptedProvider>();
    provider->then(llm::ScriptedTurn::toolCall("forecast", {{"city", "Lyon"}}))
        .then(llm::ScriptedTurn::text("remote says: sunny in Lyon"))
        .loop(true);
    auto worker = agent::Agent::create()
                      .withName("weather")
                      .withProvider(provider)
                      .withTools(noBuiltinTools())
                      .withTool(*lookup)
                      .build();
    REQUIRE(worker);
    return *worker;
}

a2a::RunFunction serve(agent::Agent worker) {
    return
        [worker](std::string prompt, a2a::ProgressSink progress) -> Task<expected<std::string, std::string>> {
            agent::RunOptions options;
            options.onEvent = [progress](const agent::AgentEvent& event) {
                if (const auto* calling = std::get_if<tools::ToolCalling>(&event)) {
                    progress("calling " + calling->tool);
                }
            };
            auto running = worker.run(std::move(prompt), std::move(options));
            agent::RunResult result = co_await std::move(running);
            if (!result.success()) {
                co_return fail(result.error()->describe());
            }
            co_return result.output;
        };
}

agent::Agent localWorker() {
    auto provider = std::make_shared<llm::ScriptedProvider>();
    provider->then(llm::ScriptedTurn::text("local says: the museum opens at 9"));
    auto worker = agent::Agent::create().withName("guide").withProvider(provider).build();
    REQUIRE(worker);
    return *worker;
}

}  // namespace

TEST_CASE("a parent agent delegates to a local and to a remote agent in one reply",
          "[a2a][integration][delegation]") {
    a2a::test::withServer(serve(remoteWorker()), a2a::ServerConfig{}, [](a2a::Server server) -> Task<void> {
        auto provider = std::make_shared<llm::ScriptedProvider>();
        std::vector<llm::ToolCall> both(2);
        both[0].id = "L";
        both[0].name = "guide";
        both[0].arguments = {{"message", "when does the museum open?"}};
        both[1].id = "R";
        both[1].name = "weather";
        both[1].arguments = {{"message", "weather in Lyon?"}};
        provider->then(llm::ScriptedTurn::toolCalls(both))
            .then(llm::ScriptedTurn::respond([](const llm::ModelRequest& request) {
                std::string seen;
                for (const auto& message : request.messages) {
                    if (message.role == llm::Role::tool) {
                        seen += (seen.empty() ? "" : " / ") + message.text;
                    }
                }
                llm::ModelReply reply;
                reply.text = seen;
                return expected<llm::ModelReply, llm::ProviderError>(reply);
            }));
        auto parent = reagent::Agent::create()
                          .withProvider(provider)
                          .withTools(withoutBuiltins())
                          .withAgentTool("guide", localWorker())
                          .withRemoteAgent("weather", server.baseUrl())
                          .build();
        REQUIRE(parent);
        std::vector<std::string> nested;
        std::vector<std::string> progress;
        agent::RunOptions options;
        options.onEvent = [&](const agent::AgentEvent& event) {
            if (const auto* sub = std::get_if<agent::SubAgentEvent>(&event)) {
                nested.push_back(sub->callId);
            } else if (const auto* p = std::get_if<tools::ToolProgressed>(&event)) {
                progress.push_back(p->callId + ": " + p->progress.message);
            }
        };
        auto running = parent->run("plan my day in Lyon", std::move(options));
        agent::RunResult result = co_await std::move(running);
        INFO(result.errorMessage);
        REQUIRE(result.success());
        CHECK(result.output == "local says: the museum opens at 9 / remote says: sunny in Lyon");
        REQUIRE(result.toolCalls.size() == 2);
        CHECK(result.toolCalls[0].succeeded());
        CHECK(result.toolCalls[1].succeeded());
        REQUIRE_FALSE(nested.empty());
        for (const auto& id : nested) {
            CHECK(id == "L");
        }
        CHECK(std::find(progress.begin(), progress.end(), "R: calling forecast") != progress.end());
        co_await parent->dispose();
    });
}

TEST_CASE("a remote agent that is down is a tool error with its A2A cause and the parent goes on",
          "[a2a][integration][delegation]") {
    const reagent::test::ClosedPort closed;
    const std::string down = closed.url();
    auto provider = std::make_shared<llm::ScriptedProvider>();
    provider->then(llm::ScriptedTurn::toolCall("weather", {{"message", "weather?"}}))
        .then(llm::ScriptedTurn::text("I could not reach the weather agent"));
    auto parent = reagent::Agent::create()
                      .withProvider(provider)
                      .withTools(withoutBuiltins())
                      .withRemoteAgent("weather", down)
                      .build();
    REQUIRE(parent);
    const agent::RunResult result = reagent::test::runCoro(parent->run("weather?"));
    REQUIRE(result.success());
    REQUIRE(result.toolCalls.size() == 1);
    const auto& error = result.toolCalls[0].outcome.error();
    CHECK(error.code == tools::ToolErrc::init_failed);
    CHECK(error.tool == "weather");
    CHECK(error.tripIndex == 0);
    REQUIRE(error.rootCause() != nullptr);
    CHECK(error.rootCause()->domain == "a2a");
    CHECK(error.rootCause()->details["url"] == down);
    REQUIRE(result.lastToolError);
    CHECK(result.lastToolError->tool == "weather");
}
