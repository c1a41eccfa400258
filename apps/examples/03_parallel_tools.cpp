// 03 — Parallel tools: when the model asks for several calls in one turn, they run at the same time.
//
// Three tools each take 300 ms. Run one after another they would take 900 ms; in one batch (up to
// ExecutionPolicy::maxParallel = 3 at once) the whole run takes about 300 ms.

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "example_support.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr auto kLatency = 300ms;

// Stands for slow I/O (an HTTP call, a query). An Asio wait suspends the coroutine instead of blocking
// the thread, which is what lets the other calls proceed; it also reacts to cancellation.
Task<tools::ToolResult> slowLookup(json, tools::ToolContext context) {
    boost::asio::steady_timer timer(context.executor, kLatency);
    co_await timer.async_wait(boost::asio::use_awaitable);
    co_return context.toolName + " is ready";
}

expected<tools::Tool, tools::ToolError> lookupTool(std::string name) {
    return tools::ToolBuilder::create(std::move(name))
        .description("Fetch a piece of the morning briefing")
        .handler(slowLookup)
        .build();
}

int main() {
    // 1. One model turn asks for three calls at once; the next turn answers.
    std::vector<llm::ToolCall> batch{{"w", "fetch_weather", json::object()},
                                     {"n", "fetch_news", json::object()},
                                     {"s", "fetch_stocks", json::object()}};
    auto provider = std::make_shared<llm::ScriptedProvider>();
    provider->then(llm::ScriptedTurn::toolCalls(batch));
    provider->then(llm::ScriptedTurn::text("Here is your briefing."));

    auto agent = agent::Agent::create()
                     .withProvider(provider)
                     .withTool(lookupTool("fetch_weather"))
                     .withTool(lookupTool("fetch_news"))
                     .withTool(lookupTool("fetch_stocks"))
                     .build();
    examples::check(agent.has_value(), "the agent builds");

    // 2. Time the whole run: both model turns and the batch.
    const auto start = std::chrono::steady_clock::now();
    const agent::RunResult result = examples::runTask(agent->run("Prepare my morning briefing."));
    const auto wall =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);

    std::cout << "answer: " << result.output << "\n";
    for (const auto& call : result.toolCalls) {
        std::cout << "  " << call.name << ": " << call.outcome.value_or("<error>") << " ("
                  << std::chrono::duration_cast<std::chrono::milliseconds>(call.duration).count() << " ms)\n";
    }
    std::cout << "wall time: " << wall.count() << " ms for 3 calls of " << kLatency.count()
              << " ms each (sequential would be " << 3 * kLatency.count() << " ms)\n";

    // 3. Every call succeeded, in call order, and the batch cost about one call's latency.
    examples::check(result.success() && result.toolCalls.size() == 3, "three calls, run succeeded");
    for (const auto& call : result.toolCalls) {
        examples::check(call.succeeded() && call.tripIndex == 0, "each call succeeded in the first trip");
    }
    examples::check(result.toolCalls[0].name == "fetch_weather" && result.toolCalls[2].name == "fetch_stocks",
                    "records come back in call order");
    examples::check(wall >= kLatency && wall < 2 * kLatency, "the calls overlapped");
    return 0;
}
