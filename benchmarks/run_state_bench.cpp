// Cost of pausing and resuming a run: ReactLoop::save as JSON text, and ReactLoop::restore from that text,
// for a run that has made `turns` tool calls (each a model turn with a 200-byte result), compared with
// the CPU cost of a whole agent run (agent_run_bench: the same machine, the same build) to read as a ratio.

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "reagent/agent/attachment_store.hpp"
#include "reagent/agent/react_loop.hpp"

namespace {

using namespace reagent;
using nlohmann::json;

agent::LoopConfig loopConfig() {
    agent::LoopConfig config;
    config.systemPrompt = "You are a careful assistant.";
    config.options.maxIterations = 1000;
    config.tools.push_back({"lookup", "Look a word up", {{"type", "object"}}});
    return config;
}

// A loop after `turns` model turns, each asking for one call whose 200-byte result came back.
agent::ReactLoop loopAfter(int turns) {
    agent::ReactLoop loop(loopConfig(), "Define the words one by one");
    (void)loop.start();
    for (int i = 0; i < turns; ++i) {
        llm::ModelReply reply;
        const std::string id = "call_" + std::to_string(i);
        reply.toolCalls.push_back(llm::ToolCall{id, "lookup", json{{"word", "w" + std::to_string(i)}}});
        reply.usage = llm::Usage{100, 10};
        (void)loop.onModelReply(reply);
        tools::ToolCallRecord record;
        record.id = id;
        record.tripIndex = i;
        record.name = "lookup";
        record.input = json{{"word", "w" + std::to_string(i)}};
        record.outcome = std::string(200, 'x');
        (void)loop.onToolResults({record});
    }
    return loop;
}

// Saves `loop` as JSON text on each iteration; the counter is the text's size.
void measureSave(benchmark::State& state, const agent::ReactLoop& loop) {
    std::size_t bytes = 0;
    for (auto _ : state) {
        std::string text = loop.save().dump();
        bytes = text.size();
        benchmark::DoNotOptimize(text);
    }
    state.counters["state_bytes"] = static_cast<double>(bytes);
}

void BM_SaveRunState(benchmark::State& state) {
    measureSave(state, loopAfter(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_SaveRunState)->Arg(1)->Arg(10)->Arg(50)->Unit(benchmark::kMicrosecond);

void BM_RestoreRunState(benchmark::State& state) {
    const std::string text = loopAfter(static_cast<int>(state.range(0))).save().dump();
    for (auto _ : state) {
        auto restored = agent::ReactLoop::restore(loopConfig(), json::parse(text));
        if (!restored) {
            state.SkipWithError("the saved state did not restore");
            break;
        }
        auto next = restored->proceed();
        benchmark::DoNotOptimize(next);
    }
}
BENCHMARK(BM_RestoreRunState)->Arg(1)->Arg(10)->Arg(50)->Unit(benchmark::kMicrosecond);

// ---- A run whose prompt carries an image of `range(0)` KiB (PNG bytes), saved inline (base64) and restored
// (decoded and its type checked again), beside the same run without it (Arg 0).
agent::ReactLoop loopWithImage(std::size_t kib, agent::AttachmentStorage storage = {}) {
    std::vector<llm::Attachment> attachments;
    if (kib > 0) {
        std::string bytes = "\x89PNG\r\n\x1a\n";
        bytes.resize(kib * 1024, 'p');
        attachments.push_back(*llm::Attachment::fromBytes(std::move(bytes), "photo.png"));
    }
    agent::LoopConfig config = loopConfig();
    config.attachments = std::move(storage);
    agent::ReactLoop loop(config, {}, llm::Message::user("What is in the photo?", std::move(attachments)));
    (void)loop.start();
    return loop;
}

void BM_SaveRunStateWithImage(benchmark::State& state) {
    measureSave(state, loopWithImage(static_cast<std::size_t>(state.range(0))));
}
BENCHMARK(BM_SaveRunStateWithImage)->Arg(0)->Arg(100)->Arg(1024)->Unit(benchmark::kMicrosecond);

// The same, the image kept by reference in an attachment store (withAttachmentStore): the state holds its
// SHA-256, computed on each save; the store keeps the bytes once.
void BM_SaveRunStateWithImageByReference(benchmark::State& state) {
    const agent::AttachmentStorage storage{std::make_shared<agent::MemoryAttachmentStore>(), 16 * 1024};
    measureSave(state, loopWithImage(static_cast<std::size_t>(state.range(0)), storage));
}
BENCHMARK(BM_SaveRunStateWithImageByReference)->Arg(100)->Arg(1024)->Unit(benchmark::kMicrosecond);

void BM_RestoreRunStateWithImageByReference(benchmark::State& state) {
    const agent::AttachmentStorage storage{std::make_shared<agent::MemoryAttachmentStore>(), 16 * 1024};
    const std::string text = loopWithImage(static_cast<std::size_t>(state.range(0)), storage).save().dump();
    agent::LoopConfig config = loopConfig();
    config.attachments = storage;
    for (auto _ : state) {
        auto restored = agent::ReactLoop::restore(config, json::parse(text));
        if (!restored) {
            state.SkipWithError("the saved state did not restore");
            break;
        }
        benchmark::DoNotOptimize(restored);
    }
}
BENCHMARK(BM_RestoreRunStateWithImageByReference)->Arg(100)->Arg(1024)->Unit(benchmark::kMicrosecond);

void BM_RestoreRunStateWithImage(benchmark::State& state) {
    const std::string text = loopWithImage(static_cast<std::size_t>(state.range(0))).save().dump();
    for (auto _ : state) {
        auto restored = agent::ReactLoop::restore(loopConfig(), json::parse(text));
        if (!restored) {
            state.SkipWithError("the saved state did not restore");
            break;
        }
        benchmark::DoNotOptimize(restored);
    }
}
BENCHMARK(BM_RestoreRunStateWithImage)->Arg(0)->Arg(100)->Arg(1024)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
