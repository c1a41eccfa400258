// A journaled run (RunOptions::journal): each model reply and tool record journaled as it completes, and an
// attempt given an earlier attempt's journal taking those steps from it instead of doing them again.

#include <catch2/catch.hpp>
#include <memory>
#include <reagent/reagent.hpp>
#include <string>
#include <vector>

#include "run_coro.hpp"

using nlohmann::json;
using reagent::agent::Agent;
using reagent::agent::JournaledStep;
using reagent::agent::MemoryRunJournal;
using reagent::agent::RunOptions;
using reagent::agent::RunResult;
using reagent::llm::ModelReply;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::test::runCoro;

namespace {

// A tool with an effect: it counts its runs and keeps the idempotency key it was given.
struct Effects {
    int runs = 0;
    std::vector<std::string> keys;
};

reagent::tools::Tool chargeTool(std::shared_ptr<Effects> effects) {
    return reagent::tools::ToolBuilder::create("charge")
        .description("Charges the card once")
        .handler([effects](json,
                           reagent::tools::ToolContext context) -> reagent::Task<reagent::tools::ToolResult> {
            ++effects->runs;
            effects->keys.push_back(context.idempotencyKey != nullptr ? *context.idempotencyKey : "(none)");
            co_return std::string("charged");
        })
        .build()
        .value();
}

ModelReply callCharge() {
    ModelReply reply;
    reply.text = "charging";
    reply.toolCalls.push_back({"call_1", "charge", json{{"amount", 5}}});
    reply.usage = reagent::llm::Usage{100, 10, 0, 0, 0};
    return reply;
}

ModelReply answer() {
    ModelReply reply;
    reply.text = "Charged 5.";
    reply.usage = reagent::llm::Usage{120, 4, 0, 0, 0};
    return reply;
}

Agent agentWith(std::shared_ptr<ScriptedProvider> provider, std::shared_ptr<Effects> effects) {
    return Agent::create()
        .withProvider(std::move(provider))
        .withTools(reagent::agent::ToolsConfig{})
        .withTool(chargeTool(std::move(effects)))
        .build()
        .value();
}

RunResult journaledRun(const Agent& agent, std::shared_ptr<MemoryRunJournal> journal) {
    RunOptions options;
    options.journal = std::move(journal);
    return runCoro(agent.run("Charge 5", std::move(options)));
}

std::vector<std::string> names(const std::vector<JournaledStep>& steps) {
    std::vector<std::string> out;
    for (const auto& step : steps) {
        out.push_back(step.step + " " + step.kind);
    }
    return out;
}

}  // namespace

TEST_CASE("journaled run: each model reply and tool record is journaled as it completes, with its key",
          "[agent][journal]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::reply(callCharge())).then(ScriptedTurn::reply(answer()));
    auto effects = std::make_shared<Effects>();
    auto journal = std::make_shared<MemoryRunJournal>("run-7");
    const RunResult result = journaledRun(agentWith(provider, effects), journal);
    REQUIRE(result.success());
    CHECK(result.output == "Charged 5.");
    const auto steps = journal->steps();
    REQUIRE(names(steps) == std::vector<std::string>{"model:0 model_reply", "tool:0:call_1 tool_call",
                                                     "model:1 model_reply"});
    CHECK(steps[0].payload["reply"]["toolCalls"][0]["name"] == "charge");
    CHECK(steps[1].payload["output"] == "charged");
    REQUIRE(effects->keys.size() == 1);
    CHECK(effects->keys[0] == "run-7/tool:0:call_1");
}

TEST_CASE("journaled run: an attempt after a crash takes the journaled steps and does only the rest",
          "[agent][journal]") {
    // The first attempt: the model asked for the charge, the card was charged, then the process died before
    // the model's answer was journaled.
    auto first = std::make_shared<ScriptedProvider>();
    first->then(ScriptedTurn::reply(callCharge())).then(ScriptedTurn::reply(answer()));
    auto effects = std::make_shared<Effects>();
    auto journal = std::make_shared<MemoryRunJournal>("run-8");
    REQUIRE(journaledRun(agentWith(first, effects), journal).success());
    auto steps = journal->steps();
    steps.pop_back();

    auto second = std::make_shared<ScriptedProvider>();
    second->then(ScriptedTurn::reply(answer()));
    const RunResult resumed =
        journaledRun(agentWith(second, effects), std::make_shared<MemoryRunJournal>("run-8", steps));
    REQUIRE(resumed.success());
    CHECK(resumed.output == "Charged 5.");
    CHECK(effects->runs == 1);                // the charge is not made again
    REQUIRE(second->requests().size() == 1);  // only the call in flight at the crash is made again
    // The request it makes is the one the first attempt made: the tool's result is in it.
    CHECK(second->requests()[0].messages.size() == first->requests()[1].messages.size());
    CHECK(second->requests()[0].messages.back().text.find("charged") != std::string::npos);
    // Usage counts every reply the run took, journaled or new.
    CHECK(resumed.usage.inputTokens == 220);

    // An attempt after the run had finished: nothing is done again.
    auto third = std::make_shared<ScriptedProvider>();
    const RunResult replayed = journaledRun(agentWith(third, effects),
                                            std::make_shared<MemoryRunJournal>("run-8", journal->steps()));
    REQUIRE(replayed.success());
    CHECK(replayed.output == "Charged 5.");
    CHECK(third->requests().empty());
    CHECK(effects->runs == 1);
}

TEST_CASE("journaled run: a journal that refuses a step stops the run there, naming the step",
          "[agent][journal]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::reply(callCharge())).then(ScriptedTurn::reply(answer()));
    auto effects = std::make_shared<Effects>();
    auto journal = std::make_shared<MemoryRunJournal>("run-9");
    journal->failFrom(2);  // the model's first reply is journaled, the tool's record is refused
    const RunResult result = journaledRun(agentWith(provider, effects), journal);
    REQUIRE_FALSE(result.success());
    REQUIRE(result.error());
    CHECK(result.error()->code == reagent::agent::AgentErrc::internal_error);
    CHECK(result.errorMessage.find("tool:0:call_1") != std::string::npos);
    CHECK(result.errorMessage.find("run-9") != std::string::npos);
    CHECK(provider->requests().size() == 1);  // the run went no further

    auto refusing = std::make_shared<MemoryRunJournal>("run-10");
    refusing->failFrom(1);
    auto again = std::make_shared<ScriptedProvider>();
    again->then(ScriptedTurn::reply(callCharge()));
    const RunResult stopped = journaledRun(agentWith(again, effects), refusing);
    REQUIRE_FALSE(stopped.success());
    CHECK(stopped.errorMessage.find("model:0") != std::string::npos);
    CHECK(effects->runs == 1);                // the tool the unjournaled reply asked for was not run
    CHECK(stopped.usage.inputTokens == 100);  // the reply is billed all the same
}

TEST_CASE("journaled run: a call that is not idempotent journals its start, and is not repeated unasked",
          "[agent][journal]") {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::reply(callCharge())).then(ScriptedTurn::reply(answer()));
    auto effects = std::make_shared<Effects>();
    auto asked = std::make_shared<int>(0);
    auto charge = chargeTool(effects);
    charge.definition.idempotent = false;
    // Even a program that approves every call does not decide this one: the run pauses for a person.
    const Agent agent =
        Agent::create()
            .withProvider(provider)
            .withTools(reagent::agent::ToolsConfig{})
            .withTool(std::move(charge))
            .withApprovalHandler([asked](reagent::tools::ToolCallRequest,
                                         reagent::tools::ToolDefinition) -> reagent::Task<bool> {
                ++*asked;
                co_return true;
            })
            .build()
            .value();
    auto journal = std::make_shared<MemoryRunJournal>("run-11");
    REQUIRE(journaledRun(agent, journal).success());
    auto steps = journal->steps();
    REQUIRE(names(steps) == std::vector<std::string>{"model:0 model_reply", "start:0:call_1 tool_start",
                                                     "tool:0:call_1 tool_call", "model:1 model_reply"});

    // The process died while the card was charged: the start is journaled, the result is not.
    steps.resize(2);
    provider->then(ScriptedTurn::reply(answer()));
    auto again = std::make_shared<MemoryRunJournal>("run-11", steps);
    const RunResult paused = journaledRun(agent, again);
    REQUIRE(paused.terminatedBy == reagent::agent::TerminatedBy::approval_required);
    REQUIRE(paused.pendingApprovals.size() == 1);
    CHECK(paused.pendingApprovals[0].id == "call_1");
    CHECK(*asked == 0);
    CHECK(effects->runs == 1);
    bool warned = false;
    for (const auto& warning : paused.warnings) {
        warned = warned || warning.find("was running when an earlier attempt") != std::string::npos;
    }
    CHECK(warned);

    const bool approve = GENERATE(true, false);
    reagent::agent::ResumeInput decision;
    decision.decisions.push_back({"call_1", approve, approve ? "" : "already charged"});
    decision.journal = again;
    const auto resumed = runCoro(agent.resumeWith(paused.state, std::move(decision)));
    REQUIRE(resumed);
    REQUIRE(resumed->success());
    CHECK(*asked == 0);
    CHECK(effects->runs == (approve ? 2 : 1));
    const auto& told = provider->requests().back().messages.back().text;
    CHECK((told.find("already charged") != std::string::npos) == !approve);
}

TEST_CASE("journaled run: a journal that refuses a call's start stops the run before its handler runs",
          "[agent][journal]") {
    auto effects = std::make_shared<Effects>();
    auto charge = chargeTool(effects);
    charge.definition.idempotent = false;
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::reply(callCharge()));
    const Agent agent = Agent::create()
                            .withProvider(provider)
                            .withTools(reagent::agent::ToolsConfig{})
                            .withTool(std::move(charge))
                            .build()
                            .value();
    auto refusing = std::make_shared<MemoryRunJournal>("run-12");
    refusing->failFrom(2);
    const RunResult stopped = journaledRun(agent, refusing);
    REQUIRE_FALSE(stopped.success());
    CHECK(stopped.errorMessage.find("start:0:call_1") != std::string::npos);
    CHECK(effects->runs == 0);
}
