// Cost of result compression and working memory on 1 MB tool results.

#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <string>

#include "reagent/memory/result_compressor.hpp"
#include "reagent/memory/working_memory.hpp"

namespace {

using reagent::memory::CompressionConfig;
using reagent::memory::WorkingMemory;

constexpr std::size_t kMegabyte = 1024 * 1024;

// A JSON array of GitHub-like commits, about `bytes` long.
std::string commitArray(std::size_t bytes) {
    nlohmann::ordered_json commits = nlohmann::ordered_json::array();
    std::string text = "[]";
    for (int i = 0; text.size() < bytes; ++i) {
        const std::string sha = std::to_string(1'000'000'000 + i) + std::string(30, 'f');
        const nlohmann::ordered_json person = {
            {"name", "Jane Doe"}, {"email", "jane@example.com"}, {"date", "2026-02-27T10:00:00Z"}};
        commits.push_back({{"sha", sha},
                           {"node_id", "C_kwDOLkZ0CtoAKGUyNTVhNWQ" + std::to_string(i)},
                           {"commit",
                            {{"author", person},
                             {"committer", person},
                             {"message", "refactor: step " + std::to_string(i) + "\n\nA longer body."},
                             {"comment_count", 0}}},
                           {"url", "https://api.github.com/repos/acme/reagent/commits/" + sha},
                           {"html_url", "https://github.com/acme/reagent/commit/" + sha},
                           {"author", {{"login", "janedoe"}, {"id", 4242}, {"type", "User"}}},
                           {"parents", nlohmann::ordered_json::array({{{"sha", sha}}})}});
        if (i % 64 == 0) {
            text = commits.dump();
        }
    }
    return commits.dump();
}

std::string textLines(std::size_t bytes) {
    std::string text;
    for (int i = 0; text.size() < bytes; ++i) {
        text += "line " + std::to_string(i) + ": the quick brown fox jumps over the lazy dog\n";
    }
    return text;
}

void compressJsonArray(benchmark::State& state) {
    const std::string result = commitArray(kMegabyte);
    const CompressionConfig config;
    for (auto _ : state) {
        auto out = reagent::memory::compress("github/list_commits", result, "_tool_result_1", config);
        benchmark::DoNotOptimize(out);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * result.size()));
}
BENCHMARK(compressJsonArray)->Unit(benchmark::kMillisecond);

// Reference: nlohmann's own validation of the same text, the floor of any parse-based detection.
void jsonAcceptReference(benchmark::State& state) {
    const std::string result = commitArray(kMegabyte);
    for (auto _ : state) {
        benchmark::DoNotOptimize(nlohmann::json::accept(result));
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * result.size()));
}
BENCHMARK(jsonAcceptReference)->Unit(benchmark::kMillisecond);

void compressText(benchmark::State& state) {
    const std::string result = textLines(kMegabyte);
    const CompressionConfig config;
    for (auto _ : state) {
        auto out = reagent::memory::compress("fs/read_file", result, "_tool_result_1", config);
        benchmark::DoNotOptimize(out);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * result.size()));
}
BENCHMARK(compressText)->Unit(benchmark::kMillisecond);

// Store a 1 MB value (a copy, as a tool result arrives) and read it back. The 8 MiB budget makes the
// steady state evict the oldest entry on every store.
void workingMemoryStoreRead(benchmark::State& state) {
    const std::string value = commitArray(kMegabyte);
    WorkingMemory memory;
    for (auto _ : state) {
        auto key = memory.store("github/list_commits", value);
        auto read = memory.read(*key);
        benchmark::DoNotOptimize(read);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * value.size()));
}
BENCHMARK(workingMemoryStoreRead)->Unit(benchmark::kMicrosecond);

// The whole path a tool result takes: budget check, store, preview.
void compressAndStore(benchmark::State& state) {
    const std::string result = commitArray(kMegabyte);
    WorkingMemory memory;
    const CompressionConfig config;
    for (auto _ : state) {
        auto out = reagent::memory::compressAndStore(memory, "github/list_commits", result, config);
        benchmark::DoNotOptimize(out);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * result.size()));
}
BENCHMARK(compressAndStore)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
