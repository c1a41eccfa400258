// A run over a FallbackProvider: the result and the events say which model answered and why the call
// moved, and a paused run keeps it.

#include <catch2/catch.hpp>
#include <memory>
#include <reagent/reagent.hpp>
#include <string>
#include <vector>

#include "run_coro.hpp"

using nlohmann::json;
using reagent::agent::Agent;
using reagent::agent::AgentEvent;
using reagent::agent::RunResult;
using reagent::llm::FallbackProvider;
using reagent::llm::ProviderErrc;
using reagent::llm::ProviderError;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::test::runCoro;

TEST_CASE("a run records each move to a fallback provider, in its result and its events",
          "[agent][fallback]") {
    auto primary = std::make_shared<ScriptedProvider>();
    auto backup = std::make_shared<ScriptedProvider>();
    ProviderError overloaded;
    overloaded.code = ProviderErrc::server_error;
    overloaded.message = "overloaded";
    overloaded.httpStatus = 529;
    // The backup answers the first call with a tool call (declaration-only: the run pauses), then the
    // primary is healthy again for the next.
    primary->then(ScriptedTurn::error(overloaded)).then(ScriptedTurn::text("done"));
    backup->then(ScriptedTurn::toolCall("lookup", json::object(), "call_1"));
    auto chain = FallbackProvider::make({primary, backup});
    REQUIRE(chain);
    auto lookup =
        reagent::tools::ToolBuilder::create("lookup").description("Looks up").declarationOnly().build();
    REQUIRE(lookup);
    std::vector<reagent::agent::ModelFellBack> events;
    auto agent = Agent::create()
                     .withProvider(*chain)
                     .withTool(std::move(*lookup))
                     .withEventHandler([&](const AgentEvent& event) {
                         if (const auto* moved = std::get_if<reagent::agent::ModelFellBack>(&event)) {
                             events.push_back(*moved);
                         }
                     })
                     .build();
    REQUIRE(agent);
    const RunResult paused = runCoro(agent->run("go"));
    REQUIRE(paused.terminatedBy == reagent::agent::TerminatedBy::external_tool_calls);
    REQUIRE(paused.fallbacks.size() == 1);
    CHECK(paused.fallbacks[0].iteration == 0);
    CHECK(paused.fallbacks[0].from == "scripted");
    CHECK(paused.fallbacks[0].to == "scripted");
    CHECK(paused.fallbacks[0].reason.find("overloaded") != std::string::npos);
    REQUIRE(events.size() == 1);
    CHECK(events[0].error.httpStatus == 529);

    // Resumed (here from the saved state), the record is still there; the next call needs no fallback.
    const auto resumed = runCoro(agent->resume(paused.state, {{"call_1", std::string("42")}}));
    REQUIRE(resumed);
    REQUIRE(resumed->success());
    CHECK(resumed->output == "done");
    CHECK(resumed->fallbacks == paused.fallbacks);
    CHECK(backup->requests().size() == 1);
}
