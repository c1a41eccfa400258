// 16 — What a run spends: full usage (cache and reasoning tokens), its cost from a price table, and a
// budget that stops a run before it spends too much.
//
// Usage comes from the API's own counts. Prices are data the program supplies (a JSON file such as
// docs/prices.example.json, dated: prices change); nothing is compiled in. A budget is checked by the loop:
// a request that would pass it is not sent, a reply that passes it ends the run with budget_exceeded.
// A sub-agent called as a tool draws on its caller's budget: its spending counts there as it happens.

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

    // 3. A lead agent hands the research to the looping agent (as a tool) under a budget of 5 model calls
    //    in all: the researcher's calls count against it, so the researcher is stopped at the 4th of its
    //    own, and the lead, its budget used up, stops before asking again.
    auto researcherModel = loopingModel();
    auto researchTool = tools::ToolBuilder::create("search").description("Searches").handler(search).build();
    auto researcher = agent::Agent::create()
                          .withName("researcher")
                          .withProvider(researcherModel)
                          .withTool(std::move(*researchTool))
                          .withMaxIterations(50)
                          .build();
    examples::check(researcher.has_value(), "the researcher builds");
    auto leadModel = std::make_shared<llm::ScriptedProvider>();
    leadModel
        ->then(llm::ScriptedTurn::toolCall("research", json{{"message", "Find everything about reagent"}}))
        .then(llm::ScriptedTurn::text("never asked"));
    agent::RunBudget shared;
    shared.maxModelCalls = 5;
    auto lead = agent::Agent::create()
                    .withProvider(leadModel)
                    .withAgentTool("research", *researcher)
                    .withPrices(table)  // the researcher has no table: its calls are priced with this one
                    .withBudget(shared)
                    .build();
    examples::check(lead.has_value(), "the lead builds");
    const agent::RunResult led = examples::runTask(lead->run("Research reagent"));
    std::cout << "lead ended: " << agent::toString(led.terminatedBy) << " — " << led.errorMessage << "\n";
    std::cout << "sub-runs: " << led.subRuns.modelCalls << " model calls, " << led.subRuns.usage.total()
              << " tokens, cost " << led.subRuns.cost << " USD\n";
    examples::check(researcherModel->requests().size() == 4, "the researcher stopped at the shared limit");
    examples::check(led.subRuns.modelCalls == 4 && led.iterations == 1,
                    "one lead call, four researcher calls");
    examples::check(led.terminatedBy == agent::TerminatedBy::budget_exceeded, "the lead stopped too");
    return 0;
}
