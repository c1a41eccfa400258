// Budgets stop a run at the right call with the right figures; prices turn usage into cost on the result,
// on each ModelResponded event and across a saved run.

#include <catch2/catch.hpp>
#include <memory>
#include <reagent/reagent.hpp>
#include <string>
#include <vector>

#include "run_coro.hpp"

using nlohmann::json;
using reagent::agent::Agent;
using reagent::agent::AgentErrc;
using reagent::agent::AgentEvent;
using reagent::agent::RunBudget;
using reagent::agent::RunResult;
using reagent::agent::TerminatedBy;
using reagent::llm::ModelReply;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::llm::Usage;
using reagent::test::runCoro;

namespace {

reagent::tools::Tool echoTool(int* runs) {
    return reagent::tools::ToolBuilder::create("echo")
        .description("Echoes")
        .handler([runs](json, reagent::tools::ToolContext) -> reagent::Task<reagent::tools::ToolResult> {
            ++*runs;
            co_return std::string("echoed");
        })
        .build()
        .value();
}

// A model that asks for the echo tool every turn, spending `tokens` input tokens each time.
std::shared_ptr<ScriptedProvider> looping(int turns, std::int64_t tokens, std::string model = {}) {
    auto provider = std::make_shared<ScriptedProvider>();
    for (int i = 0; i < turns; ++i) {
        ModelReply reply;
        reply.text = "turn " + std::to_string(i + 1);
        reply.toolCalls.push_back({"call_" + std::to_string(i), "echo", json::object()});
        reply.model = model;
        reply.usage = Usage{tokens, 0, 0, 0, 0};
        provider->then(ScriptedTurn::reply(std::move(reply)));
    }
    return provider;
}

std::shared_ptr<const reagent::llm::PriceTable> prices() {
    return std::make_shared<const reagent::llm::PriceTable>(
        reagent::llm::PriceTable::fromJson(
            json::parse(
                R"({"currency": "EUR", "models": {"gpt-4.1": {"input": 2, "output": 8, "cacheRead": 0.5}}})"))
            .value());
}

// An agent of `provider` with the echo tool, the prices above and a cost limit of 5.
Agent costCapped(std::shared_ptr<ScriptedProvider> provider, int* runs) {
    RunBudget budget;
    budget.maxCost = 5;
    auto agent = Agent::create()
                     .withProvider(std::move(provider))
                     .withTool(echoTool(runs))
                     .withPrices(prices())
                     .withBudget(budget)
                     .build();
    REQUIRE(agent);
    return std::move(*agent);
}

}  // namespace

TEST_CASE("maxModelCalls stops the run before the call past it", "[agent][budget]") {
    int runs = 0;
    auto provider = looping(10, 10);
    RunBudget budget;
    budget.maxModelCalls = 3;
    auto agent = Agent::create().withProvider(provider).withTool(echoTool(&runs)).withBudget(budget).build();
    REQUIRE(agent);
    const RunResult result = runCoro(agent->run("go"));
    CHECK(result.terminatedBy == TerminatedBy::budget_exceeded);
    REQUIRE(result.error());
    CHECK(result.error()->code == AgentErrc::budget_exceeded);
    CHECK(result.errorMessage == "budget: maxModelCalls of 3 reached: 3 model calls made");
    CHECK(provider->requests().size() == 3);
    CHECK(result.iterations == 3);
    CHECK(runs == 3);
    CHECK(result.usage.inputTokens == 30);
}

TEST_CASE(
    "maxTotalTokens: a reply past it ends the run, keeping its text, a request that would pass it "
    "is not sent",
    "[agent][budget]") {
    int runs = 0;
    RunBudget budget;
    budget.maxTotalTokens = 2500;
    SECTION("the third reply passes the limit") {
        auto provider = looping(10, 1000);
        auto agent =
            Agent::create().withProvider(provider).withTool(echoTool(&runs)).withBudget(budget).build();
        REQUIRE(agent);
        const RunResult result = runCoro(agent->run("go"));
        CHECK(result.terminatedBy == TerminatedBy::budget_exceeded);
        CHECK(result.errorMessage == "budget: maxTotalTokens of 2500 passed: 3000 tokens used");
        CHECK(result.output == "turn 3");  // the answer so far
        CHECK(provider->requests().size() == 3);
        CHECK(runs == 2);  // the third turn's call is not run
        CHECK(result.usage.total() == 3000);
    }
    SECTION("with a reply of up to 1000 tokens asked for, the third request is not sent") {
        auto provider = looping(10, 1000);
        auto agent = Agent::create()
                         .withProvider(provider)
                         .withTool(echoTool(&runs))
                         .withMaxTokens(1000)
                         .withBudget(budget)
                         .build();
        REQUIRE(agent);
        const RunResult result = runCoro(agent->run("go"));
        CHECK(result.terminatedBy == TerminatedBy::budget_exceeded);
        CHECK_THAT(
            result.errorMessage,
            Catch::StartsWith("budget: maxTotalTokens of 2500 would be passed: 2000 tokens used, and the "
                              "next request takes about ") &&
                Catch::EndsWith("(its text and a reply of up to 1000)"));
        CHECK(provider->requests().size() == 2);
        CHECK(runs == 2);
    }
}

TEST_CASE("maxToolCalls: a batch that would pass it is not run", "[agent][budget]") {
    int runs = 0;
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall("echo", json::object()))
        .then(ScriptedTurn::toolCalls({{"a", "echo", json::object()}, {"b", "echo", json::object()}}))
        .then(ScriptedTurn::text("never"));
    RunBudget budget;
    budget.maxToolCalls = 2;
    auto agent = Agent::create().withProvider(provider).withTool(echoTool(&runs)).withBudget(budget).build();
    REQUIRE(agent);
    const RunResult result = runCoro(agent->run("go"));
    CHECK(result.terminatedBy == TerminatedBy::budget_exceeded);
    CHECK(result.errorMessage ==
          "budget: maxToolCalls of 2 would be passed: 1 tool calls made, and the model asked for 2 more");
    CHECK(runs == 1);
    CHECK(result.toolCalls.size() == 1);
}

TEST_CASE("prices: the run's cost, each call's, and maxCost", "[agent][budget][prices]") {
    int runs = 0;
    std::vector<std::optional<double>> costs;
    SECTION("cost on the result and the events; a model without a price is counted apart") {
        auto provider = looping(2, 1'000'000, "gpt-4.1-2025-04-14");
        ModelReply last;
        last.text = "done";
        last.model = "mystery-model";
        last.usage = Usage{10, 10, 0, 0, 0};
        provider->then(ScriptedTurn::reply(last));
        auto agent =
            Agent::create()
                .withProvider(provider)
                .withTool(echoTool(&runs))
                .withPrices(prices())
                .withEventHandler([&](const AgentEvent& event) {
                    if (const auto* responded = std::get_if<reagent::agent::ModelResponded>(&event)) {
                        costs.push_back(responded->cost);
                    }
                })
                .build();
        REQUIRE(agent);
        const RunResult result = runCoro(agent->run("go"));
        REQUIRE(result.success());
        REQUIRE(result.cost);
        CHECK(result.cost->amount == Approx(4.0));  // 2 calls of 1M input tokens at 2
        CHECK(result.cost->currency == "EUR");
        CHECK(result.cost->unpricedCalls == 1);
        REQUIRE(costs.size() == 3);
        CHECK(costs[0].value() == Approx(2.0));
        CHECK_FALSE(costs[2]);
    }
    SECTION("no price table: no cost") {
        auto provider = looping(1, 10, "gpt-4.1");
        provider->then(ScriptedTurn::text("done"));
        auto agent = Agent::create().withProvider(provider).withTool(echoTool(&runs)).build();
        const RunResult result = runCoro(agent->run("go"));
        CHECK_FALSE(result.cost);
    }
    SECTION("maxCost stops the run when a reply passes it") {
        auto provider = looping(10, 1'000'000, "gpt-4.1");
        const RunResult result = runCoro(costCapped(provider, &runs).run("go"));
        CHECK(result.terminatedBy == TerminatedBy::budget_exceeded);
        CHECK(result.errorMessage == "budget: maxCost of 5 EUR passed: 6 EUR spent");
        CHECK(provider->requests().size() == 3);
    }
    SECTION("maxCost stops the run when a model without a price answers") {
        auto provider = looping(10, 10, "mystery-model");
        const RunResult result = runCoro(costCapped(provider, &runs).run("go"));
        CHECK(result.terminatedBy == TerminatedBy::budget_exceeded);
        CHECK_THAT(result.errorMessage, Catch::Contains("cannot be kept"));
        CHECK(provider->requests().size() == 1);
    }
}

TEST_CASE("a run's cost survives a pause and a resume", "[agent][budget][prices]") {
    auto provider = std::make_shared<ScriptedProvider>();
    ModelReply ask;
    ask.toolCalls.push_back({"call_1", "lookup", json::object()});
    ask.model = "gpt-4.1";
    ask.usage = Usage{1'000'000, 0, 0, 0, 0};
    provider->then(ScriptedTurn::reply(ask));
    ModelReply answer;
    answer.text = "found";
    answer.model = "gpt-4.1";
    answer.usage = Usage{0, 1'000'000, 0, 0, 0};
    provider->then(ScriptedTurn::reply(answer));
    auto lookup =
        reagent::tools::ToolBuilder::create("lookup").description("Looks up").declarationOnly().build();
    REQUIRE(lookup);
    auto agent =
        Agent::create().withProvider(provider).withTool(std::move(*lookup)).withPrices(prices()).build();
    REQUIRE(agent);
    const RunResult paused = runCoro(agent->run("go"));
    REQUIRE(paused.terminatedBy == TerminatedBy::external_tool_calls);
    REQUIRE(paused.cost);
    CHECK(paused.cost->amount == Approx(2.0));
    const auto resumed = runCoro(agent->resume(paused.state, {{"call_1", std::string("42")}}));
    REQUIRE(resumed);
    REQUIRE(resumed->success());
    REQUIRE(resumed->cost);
    CHECK(resumed->cost->amount == Approx(2.0 + 8.0));
    CHECK(resumed->usage.total() == 2'000'000);
}

TEST_CASE("a budget's limits are checked when the agent is built", "[agent][budget]") {
    auto provider = std::make_shared<ScriptedProvider>();
    RunBudget budget;
    budget.maxTotalTokens = 0;
    budget.maxCost = 1;
    budget.maxModelCalls = 0;
    budget.maxToolCalls = -1;
    const auto agent = Agent::create().withProvider(provider).withBudget(budget).build();
    REQUIRE_FALSE(agent);
    CHECK(agent.error().code == AgentErrc::invalid_config);
    for (const char* part : {"maxTotalTokens must be at least 1", "maxCost needs a price table",
                             "maxModelCalls must be at least 1", "maxToolCalls must not be negative"}) {
        CHECK_THAT(agent.error().message, Catch::Contains(part));
    }
}

TEST_CASE("a conversation's budget spans its turns, a turn runs with what is left",
          "[agent][budget][conversation]") {
    int runs = 0;
    auto provider = std::make_shared<ScriptedProvider>();
    // Turn 1: a tool call, then the answer (2 model calls, 1 tool call). Turn 2: a tool call, stopped.
    provider->then(ScriptedTurn::toolCall("echo", json::object()).usage(Usage{100, 10, 0, 0, 0}))
        .then(ScriptedTurn::text("first").usage(Usage{100, 10, 0, 0, 0}))
        .then(ScriptedTurn::toolCall("echo", json::object()).usage(Usage{100, 10, 0, 0, 0}))
        .then(ScriptedTurn::text("never"));
    auto agent = Agent::create().withProvider(provider).withTool(echoTool(&runs)).build();
    REQUIRE(agent);
    reagent::agent::Conversation conversation(*agent);
    RunBudget budget;
    budget.maxModelCalls = 3;
    conversation.setBudget(budget);

    const auto first = runCoro(conversation.send("one"));
    REQUIRE(first);
    REQUIRE(first->success());
    CHECK(conversation.modelCalls() == 2);
    CHECK(conversation.toolCallsMade() == 1);

    const auto second = runCoro(conversation.send("two"));
    REQUIRE(second);
    CHECK(second->terminatedBy == TerminatedBy::budget_exceeded);
    CHECK(second->errorMessage == "budget: maxModelCalls of 1 reached: 1 model calls made");
    CHECK(conversation.modelCalls() == 3);
    CHECK(conversation.usage().total() == 330);

    const auto third = runCoro(conversation.send("three"));
    REQUIRE_FALSE(third);
    CHECK(third.error().code == AgentErrc::budget_exceeded);
    CHECK(third.error().message == "the conversation's budget: maxModelCalls of 3 used up (3 model calls)");
    CHECK(provider->requests().size() == 3);

    // The counts are saved; the budget is set again after a restore.
    auto restored = reagent::agent::Conversation::restore(*agent, conversation.save());
    REQUIRE(restored);
    CHECK(restored->modelCalls() == 3);
    CHECK(restored->toolCallsMade() == 2);  // turn 2 ran its tool call before the limit
    restored->setBudget(budget);
    const auto again = runCoro(restored->send("four"));
    REQUIRE_FALSE(again);
    CHECK(again.error().code == AgentErrc::budget_exceeded);
}
