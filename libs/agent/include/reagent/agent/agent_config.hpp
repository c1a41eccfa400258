#pragma once
/// \file
/// \brief Configuration structs assembled by `AgentBuilder`.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reagent/agent/attachment_store.hpp"
#include "reagent/agent/compaction.hpp"
#include "reagent/agent/find_source.hpp"
#include "reagent/agent/loop_options.hpp"
#include "reagent/agent/run_budget.hpp"
#include "reagent/llm/price_table.hpp"
#include "reagent/llm/provider.hpp"
#include "reagent/memory/episodic_store.hpp"
#include "reagent/memory/result_compressor.hpp"
#include "reagent/memory/working_memory.hpp"
#include "reagent/tools/tool.hpp"
#include "reagent/tools/tool_executor.hpp"
#include "reagent/transform/jq_transform.hpp"

namespace reagent::telemetry {
class Telemetry;
}  // namespace reagent::telemetry

namespace reagent::agent {

/// \brief Name of the meta-tool that reads, lists, searches and writes the agent's memory.
inline constexpr const char* kRecallTool = "recall";

/// \brief How tools run and how their results reach the model: `ToolsConfig` without the tool list, and
/// what `AgentConfig::toolSettings` keeps.
struct ToolSettings {
    tools::ExecutionPolicy execution;
    /// How oversized tool results are condensed before the model reads them (budget 800 characters,
    /// 3 preview items, full result stored under `_tool_result_N`, `_transform` enabled).
    memory::CompressionConfig resultCompression;
    /// Limits of the agent's working memory (byte budget, default 8 MiB).
    memory::WorkingMemoryConfig workingMemory;
    /// Bounds of each `_transform` jq evaluation (time, output size, input size).
    transform::JqLimits transformLimits;
    /// Bound of all `_transform`s of one model reply together (they run `execution.maxParallel` at once);
    /// those still running when it elapses fall back to the standard preview. Must be > 0. Default 10 s.
    std::chrono::milliseconds transformStageTimeout{10'000};
    /// Whether the `recall` meta-tool is registered (when tools are enabled). Default true.
    bool recall = true;
};

/// \brief The meta-tools with live state of the run that `withReasoning()` registers besides
/// `final-answer` (`withMetaTools`).
struct MetaTools {
    /// `task-complete`: ends the run with a summary when the work itself is the deliverable. Default on.
    bool taskComplete = true;
    /// `context-status`: reports iterations used and left, tools used and pending, stored keys, tokens.
    /// Default on.
    bool contextStatus = true;
};

/// \brief Tools on demand (`withToolSearch`): the model is offered the `find` meta-tool and a small core
/// set, and each tool it finds (or calls by name) is offered from its next request on, for the rest of the
/// run. Hundreds of tools then cost a few hundred tokens per request instead of every schema every time.
struct ToolSearch {
    enum class Mode {
        /// On once the agent has more than `threshold` tools (counted when a run starts).
        automatic,
        /// On whatever the number of tools.
        always,
        /// Never: every tool is offered on every request.
        off,
    };
    Mode mode = Mode::automatic;
    /// `automatic`: tool search starts above this many registered tools (the meta-tools included).
    /// Default 64.
    std::size_t threshold = 64;
    /// Tools always offered besides the meta-tools (`final-answer`, `recall`, `find`, ...) and the `skill`
    /// tool: the few a task cannot do without. A name that is not registered is ignored.
    std::vector<std::string> core;
};

/// \brief `withTools(...)`: the tools to register and how to run them.
struct ToolsConfig : ToolSettings {
    std::vector<tools::Tool> tools;
};

/// \brief `withMemory(...)`: episodic memory, a durable log of tool results that later runs (and later
/// processes) can search with `recall`.
struct MemoryConfig {
    /// The SQLite file, created with its schema when missing. Default "reagent-memory.db" in the working
    /// directory. Ignored when `store` is set.
    std::string path = "reagent-memory.db";
    /// An open store to use instead of opening `path`, for example one shared by several agents.
    std::shared_ptr<memory::EpisodicStore> store;
    /// Whether each tool result is logged as an episode. Default true; false keeps memory read-only.
    bool logToolResults = true;
};

/// \brief Everything an agent is made of; the builder fills it in.
struct AgentConfig {
    /// Shown in logs and the CLI. Default "agent".
    std::string name = "agent";
    std::shared_ptr<llm::Provider> provider;
    /// Prepended as the system message; empty for none (with reasoning, a ReAct guide is added).
    std::string systemPrompt;
    /// The iteration limit and sampling options of every run (`withMaxIterations`, `withTemperature`,
    /// `withMaxTokens`, `withMaxOutputRetries`).
    LoopOptions loop;
    /// The JSON Schema the final answer must match (`withOutputSchema`, `withOutput<T>`); null: any text.
    nlohmann::json outputSchema;
    /// How saved runs and conversations keep attachments (`withAttachmentStore`): inline by default.
    AttachmentStorage attachments;
    /// Prices of the models (`withPrices`): each run's `RunResult::cost`; null: no cost.
    std::shared_ptr<const llm::PriceTable> prices;
    /// What each run may spend (`withBudget`); none by default.
    RunBudget budget;
    /// The model's context window in tokens (`AgentBuilder::withContextWindow`); none: the model's
    /// published window (`llm::publishedContextWindow`), or none at all.
    std::optional<std::int64_t> contextWindow;
    /// When and how a history is compacted to stay inside the window (`withCompaction`); on by default with
    /// the three built-in strategies; none (`withoutCompaction`): never, a run that outgrows the window ends
    /// with `context_overflow`.
    std::optional<CompactionOptions> compaction = CompactionOptions{};
    /// Whether tools are enabled at all.
    bool toolsEnabled = false;
    /// Whether the ReAct meta-tools (`final-answer`, and as `metaTools` says `task-complete` and
    /// `context-status`) are registered.
    bool reasoning = false;
    /// The optional meta-tools registered with reasoning.
    MetaTools metaTools;
    /// Set by `withTools(...)`.
    ToolSettings toolSettings;
    /// Set by `withMemory(...)`: episodic memory is enabled.
    std::optional<MemoryConfig> memory;
    tools::ApprovalHandler approval;
    /// Tool sources opened at once by `buildAsync()` (MCP servers being connected, initialised, their
    /// tools listed); the others wait for a free slot, so a long list does not start a thousand processes
    /// together. Invariant: >= 1 (0 is taken as 1). Default 4.
    std::size_t maxConcurrentOpens = 4;
    /// When only some tools are offered up front and the rest are found on demand (`withToolSearch`).
    ToolSearch toolSearch;
    /// What `find` searches besides tools and memory (`withFindSource`, `withDocuments`): with one, `find`
    /// is offered even while tool search is off.
    std::vector<std::shared_ptr<FindSource>> findSources;
    /// Where the runs' spans go (`withTelemetry`); null: nothing is traced, at no cost.
    std::shared_ptr<telemetry::Telemetry> telemetry;
};

}  // namespace reagent::agent
