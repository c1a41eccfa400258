// 16 — What a run spends: full usage (cache and reasoning tokens), its cost from a price table, and a
// budget that stops a run before it spends too much.
//
// Usage comes from the API's own counts. Prices are data the program supplies (a JSON file such as
// docs/prices.example.json, dated: prices change); nothing is compiled in. A budget is checked by the loop:
// a request that would pass it is not sent, a reply that passes it ends the run with budget_exceeded.

#include <iostream>
#include <memory>
#include <string>

#include "example_support.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using nlohmann::json;

// A scripted model that calls the `search` tool on every turn, as a model stuck in a loop would; each call
// spends 1,200 prompt tokens (1,000 of them read from the prompt cache) and 80 output tokens.
std::shared_ptr<llm::ScriptedProvider> loopingModel() {
    auto provider = std::make_shared<llm::ScriptedProvider>();
    for (int turn = 0; turn < 20; ++turn) {
        llm::ModelReply reply;
        reply.text = "Searching again (" + std::to_string(turn + 1) + ")";
        reply.toolCalls.push_back({"call_" + std::to_string(turn), "search", json{{"query", "reagent"}}});
        reply.model = "claude-sonnet-4-5-20250929";  // the API names the snapshot that answered
        reply.usage = llm::Usage{1200, 80, 1000, 0, 0};
        provider->then(llm::ScriptedTurn::reply(std::move(reply)));
    }
    return provider;
}

Task<tools::ToolResult> search(json, tools::ToolContext) {
    co_return std::string("3 results");
}

int main() {
    // 1. The price table, per million tokens; "claude-sonnet-4-5" also prices its dated snapshots.
    auto prices = llm::PriceTable::fromJson(json::parse(R"({
        "date": "2025-11-01", "currency": "USD",
        "models": {"claude-sonnet-4-5": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}}})"));
    examples::check(prices.has_value(), "the price table reads");
    auto table = std::make_shared<const llm::PriceTable>(std::move(*prices));

    auto tool = tools::ToolBuilder::create("search").description("Searches").handler(search).build();
    examples::check(tool.has_value(), "the tool builds");

    // 2. A budget: at most 5 cents, and at most 6 tool calls.
    agent::RunBudget budget;
    budget.maxCost = 0.05;
    budget.maxToolCalls = 6;
    auto provider = loopingModel();
    auto agent = agent::Agent::create()
                     .withProvider(provider)
                     .withTool(std::move(*tool))
                     .withPrices(table)
                     .withBudget(budget)
                     .withMaxIterations(50)
                     .withEventHandler([](const agent::AgentEvent& event) {
                         if (const auto* responded = std::get_if<agent::ModelResponded>(&event)) {
                             std::cout << "call " << responded->iteration + 1 << ": "
                                       << responded->usage.total() << " tokens ("
                                       << responded->usage.cacheReadTokens << " from cache), cost "
                                       << responded->cost.value_or(0) << " USD\n";
                         }
                     })
                     .build();
    examples::check(agent.has_value(), "the agent builds");

    const agent::RunResult result = examples::runTask(agent->run("Find everything about reagent"));
    std::cout << "ended: " << agent::toString(result.terminatedBy) << " — " << result.errorMessage << "\n";
    std::cout << "usage: " << result.usage.inputTokens << " in (" << result.usage.cacheReadTokens
              << " cached), " << result.usage.outputTokens << " out; cost " << result.cost->amount << " "
              << result.cost->currency << "\n";

    // Each call costs (200 x 3 + 1000 x 0.3 + 80 x 15) / 1e6 = 0.0021 USD: the cost limit is far; the
    // 7th tool call would pass maxToolCalls, so the 7th batch is not run.
    examples::check(result.terminatedBy == agent::TerminatedBy::budget_exceeded,
                    "the budget stopped the run");
    examples::check(result.errorMessage.find("maxToolCalls of 6") != std::string::npos, "named the budget");
    examples::check(provider->requests().size() == 7, "seven model calls, six tool calls");
    examples::check(result.cost && result.cost->amount > 0.0146 && result.cost->amount < 0.0148,
                    "seven calls at 0.0021 USD");
    return 0;
}
