// Cost of the result stage inside a whole agent run (scripted model, so only the agent's own work is
// measured): a 1 MB tool result compressed and stored, recall of a 1 MB value (whole and as a preview),
// a `_transform` (a jq helper process per call) and an episodic log entry (SQLite, WAL).

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <reagent/reagent.hpp>
#include <string>

namespace {

using nlohmann::json;
using reagent::agent::Agent;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;

constexpr std::size_t kMegabyte = 1024 * 1024;

std::string commitArray(std::size_t bytes) {
    json commits = json::array();
    for (int i = 0; commits.size() * 200 < bytes; ++i) {
        commits.push_back(json{{"sha", std::to_string(1'000'000'000 + i) + std::string(30, 'f')},
                               {"commit", {{"message", "refactor: step " + std::to_string(i)}}},
                               {"author", {{"login", "janedoe"}}},
                               {"html_url", "https://github.com/acme/reagent/commit/" + std::to_string(i)},
                               {"padding", std::string(60, 'p')}});
    }
    return commits.dump();
}

reagent::Task<reagent::tools::ToolResult> give(std::shared_ptr<const std::string> output) {
    co_return *output;
}

reagent::tools::Tool fixedTool(std::shared_ptr<const std::string> output) {
    auto tool = reagent::tools::ToolBuilder::create("list_commits")
                    .description("Lists commits")
                    .handler([output](json, reagent::tools::ToolContext) { return give(output); })
                    .build();
    return std::move(*tool);
}

// A provider that plays `call` then "done", forever, without keeping requests.
std::shared_ptr<ScriptedProvider> looping(std::string tool, json arguments) {
    auto provider = std::make_shared<ScriptedProvider>();
    provider->then(ScriptedTurn::toolCall(std::move(tool), std::move(arguments), "c1"));
    provider->then(ScriptedTurn::text("done"));
    provider->loop(true).recordRequests(false);
    return provider;
}

void runOnce(boost::asio::io_context& io, const Agent& agent) {
    bool ok = false;
    boost::asio::co_spawn(io, agent.run("go"), [&](std::exception_ptr, reagent::agent::RunResult result) {
        ok = result.success();
    });
    io.restart();
    io.run();
    benchmark::DoNotOptimize(ok);
}

// A tool returns 1 MB of JSON: the model gets the preview, working memory the full text.
void runWithOversizedResult(benchmark::State& state) {
    auto output = std::make_shared<const std::string>(commitArray(kMegabyte));
    auto agent = Agent::create()
                     .withProvider(looping("list_commits", json::object()))
                     .withTools({fixedTool(output)})
                     .build();
    boost::asio::io_context io;
    for (auto _ : state) {
        runOnce(io, *agent);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * output->size()));
}
BENCHMARK(runWithOversizedResult)->Unit(benchmark::kMillisecond);

// Recall of a 1 MB value stored in working memory: whole (`full`) and as a preview.
void recall(benchmark::State& state, bool full) {
    auto provider =
        looping("recall", json{{"key", "_tool_result_1"}, {"full", full}, {"limit", 2 * kMegabyte}});
    auto agent = Agent::create().withProvider(provider).withTools({fixedTool(nullptr)}).build();
    const std::string value = commitArray(kMegabyte);
    (void)agent->workingMemory().store("list_commits", value);
    boost::asio::io_context io;
    for (auto _ : state) {
        runOnce(io, *agent);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * value.size()));
}
BENCHMARK_CAPTURE(recall, full_1MB, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(recall, preview_1MB, false)->Unit(benchmark::kMillisecond);

// `_transform` on a 30 KB result: dominated by starting the jq helper process. Wall time.
void runWithTransform(benchmark::State& state) {
    auto output = std::make_shared<const std::string>(commitArray(30 * 1024));
    auto provider = looping("list_commits", json{{"_transform", ".[0:5] | map({sha: .sha[0:7]})"}});
    auto agent = Agent::create().withProvider(provider).withTools({fixedTool(output)}).build();
    boost::asio::io_context io;
    for (auto _ : state) {
        runOnce(io, *agent);
    }
}
BENCHMARK(runWithTransform)->Unit(benchmark::kMillisecond)->UseRealTime();

// A run whose one tool result is logged in the episodic store (a 2 KB result).
void runWithEpisodicLog(benchmark::State& state) {
    std::string pattern = (std::filesystem::temp_directory_path() / "reagent-bench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
        state.SkipWithError("no temporary directory");
        return;
    }
    {
        auto output = std::make_shared<const std::string>(std::string(2048, 'r'));
        reagent::agent::MemoryConfig memory;
        memory.path = pattern + "/episodes.db";
        auto agent = Agent::create()
                         .withProvider(looping("list_commits", json::object()))
                         .withTools({fixedTool(output)})
                         .withMemory(memory)
                         .build();
        boost::asio::io_context io;
        for (auto _ : state) {
            runOnce(io, *agent);
        }
    }
    std::filesystem::remove_all(pattern);
}
BENCHMARK(runWithEpisodicLog)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
