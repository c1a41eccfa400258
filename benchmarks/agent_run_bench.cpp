// CPU cost of one complete agent run: two model turns (a tool call, then a text answer) and one trivial
// tool, on a reused io_context. No I/O and no sleeping: this is the runtime's own overhead per run.

#include <benchmark/benchmark.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "reagent/reagent.hpp"

namespace {

using namespace reagent;
using nlohmann::json;

Task<tools::ToolResult> echo(json args, tools::ToolContext) {
    co_return args.value("text", std::string{});
}

std::vector<llm::ScriptedTurn> script() {
    return {llm::ScriptedTurn::toolCall("echo", json{{"text", "hello"}}, "call_1"),
            llm::ScriptedTurn::text("done")};
}

agent::Agent buildAgent(std::shared_ptr<llm::Provider> provider) {
    auto tool = tools::ToolBuilder::create("echo")
                    .description("Echo the text back")
                    .param("text", "string", "Text to echo", {.required = true})
                    .handler(echo)
                    .build();
    // The same single tool the peers offer: no built-in tools.
    agent::ToolsConfig only;
    auto built = agent::Agent::create()
                     .withProvider(std::move(provider))
                     .withTools(std::move(only))
                     .withTool(std::move(tool))
                     .build();
    if (!built) {
        throw std::runtime_error(built.error().describe());
    }
    return std::move(*built);
}

// Runs one prompt to completion on `io` and checks it ended as scripted.
void runOnce(boost::asio::io_context& io, const agent::Agent& agent, benchmark::State& state) {
    std::optional<agent::RunResult> result;
    boost::asio::co_spawn(io, agent.run("Say hello"),
                          [&](std::exception_ptr, agent::RunResult value) { result = std::move(value); });
    io.run();
    io.restart();
    if (!result || !result->success() || result->toolCalls.size() != 1 || result->output != "done") {
        state.SkipWithError("the run did not end as scripted");
    }
}

void BM_AgentRun(benchmark::State& state) {
    // One looping script without a request log: nothing grows across millions of runs.
    auto provider = std::make_shared<llm::ScriptedProvider>(script());
    provider->loop(true).recordRequests(false);
    const agent::Agent agent = buildAgent(provider);
    boost::asio::io_context io;
    for (auto _ : state) {
        runOnce(io, agent, state);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AgentRun)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
