#pragma once
/// \file
/// \brief The `run` and `tools` commands of the reagent CLI.

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/agent/agent.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/llm/provider.hpp"
#include "reagent/providers/codec_options.hpp"
#include "reagent/providers/provider_config.hpp"
#include "reagent/tools/tool.hpp"
#include "reagent/umbrella/agent_builder.hpp"

namespace reagent::cli {

/// \brief Exit statuses of the CLI.
enum ExitCode : int {
    /// The command did what was asked (for `run`: the agent answered).
    kExitSuccess = 0,
    /// The run ended without an answer: provider failure, iteration limit, cancellation.
    kExitRunFailed = 1,
    /// The command line was wrong (unknown command or option, bad value).
    kExitUsage = 2,
};

/// \brief The line that follows a usage error of `run` and `chat`.
inline constexpr std::string_view kHelpHint = "Run with --help for more information.\n";

/// \brief What `reagent run` was asked to do.
struct RunOptions {
    std::string prompt;
    /// Model calls allowed. Invariant: >= 1. Default 10.
    int maxIterations = 10;
    /// Print the run result as JSON on stdout instead of the answer and trace.
    bool json = false;
    /// Print only the answer.
    bool quiet = false;
    /// Simulated latency of each demo model turn. Default 0.
    std::chrono::milliseconds demoLatency{0};
    /// `--provider`: anthropic, openai, gemini, ollama or demo; empty: the first configured in the
    /// environment (`providers::detectProvider`), else the offline demo.
    std::string provider;
    /// `--model`: overrides the provider's default model.
    std::string model;
    /// `--base-url`: overrides the provider's base URL (and its environment variable).
    std::string baseUrl;
    /// `--memory`: episodic memory file (SQLite); empty: no episodic memory, nothing written.
    std::string memoryPath;
    /// `--timeout`: bound of the whole run; zero for none.
    std::chrono::milliseconds timeout{0};
    /// `--budget`: characters of a tool result shown unchanged; longer ones are compressed. Default 800.
    std::size_t compressionBudget = 800;
    /// `--mcp-config`: a JSON file in the `mcpServers` format; its servers' tools join the agent's.
    std::string mcpConfigPath;
    /// `--skills DIR` (repeatable): Agent Skills folders, offered through the `skill` tool.
    std::vector<std::string> skillFolders;
    /// `--docs FILE`: a document index `find` searches (and `rag-ingest` adds the workspace's files to).
    std::string docsIndex;
    /// `--tool-search`: auto (tools on demand above 64 tools), always or off.
    std::string toolSearch = "auto";
    /// `--workspace`: the directory the built-in file, shell and git tools are confined to; empty: none.
    std::string workspace;
    /// `--read-only`: leave out every tool that changes something.
    bool readOnly = false;
    /// `--yes`: approve every call that needs approval (file-write, shell-execute) without asking.
    bool approveAll = false;
    /// A worker's: calls that need approval pause their run for a decision given later (`reagent runs
    /// approve`) instead of asking at the terminal; ignored with `approveAll`.
    bool deferApprovals = false;
    /// `--pass-env NAME` (repeated): credential variables the shell and program tools' commands inherit.
    std::vector<std::string> passEnvironment;
    /// `--output-schema FILE`: the JSON Schema the answer must match (read and checked before the run);
    /// null: a text answer.
    nlohmann::json outputSchema;
    /// `--native-output`: whether the output schema goes in the API's structured-output field.
    providers::NativeOutput nativeOutput = providers::NativeOutput::automatic;
    /// `--attach FILE` (repeated): images and documents sent with the prompt, read before the run.
    std::vector<llm::Attachment> attachments;
    /// `--prices FILE`: the price table (read and checked before the run); null: no cost shown.
    std::shared_ptr<const llm::PriceTable> prices;
    /// `--max-tokens-total`, `--max-cost`, `--max-tool-calls`: the run's budget.
    agent::RunBudget budget;
    /// `--fallback PROVIDER[:MODEL]` (repeated): the providers that take a model call the first cannot
    /// serve, in order (`llm::FallbackProvider`).
    std::vector<std::string> fallbacks;
    /// `--max-concurrent`, `--max-rpm`, `--max-tpm`: the providers' rate limits (`providers::RateLimits`).
    providers::RateLimits rateLimits;
    /// `--context-window TOKENS`: the model's context window; 0: the model's published one, if known.
    std::int64_t contextWindow = 0;
    /// `--no-compaction`: a history past the window ends the run instead of being compacted.
    bool noCompaction = false;
    /// `--exact-counts`: before compacting, ask the API for the prompt's exact count (Anthropic, Gemini).
    bool exactCounts = false;
    /// Where the run's spans go (`OTEL_*` variables, `--trace-file`); null: nothing is traced.
    std::shared_ptr<telemetry::Telemetry> telemetry;
};

/// \brief What `reagent memory` was asked to do.
struct MemoryOptions {
    /// "search", "recent" or "show".
    std::string action;
    /// The episodic memory file. Required.
    std::string path;
    /// search: the keyword; show: the episode id.
    std::string argument;
    /// Most episodes listed. Default 10.
    std::size_t limit = 10;
    bool json = false;
};

/// \brief Runs the agent on `io` (in the calling thread) until it answers, fails or a signal cancels it.
///
/// SIGINT, SIGTERM, SIGHUP and SIGQUIT cancel the run in flight, and so does `RunOptions::timeout` when
/// it elapses; the cancelled result is then reported like any other. A second signal ends the process at
/// once (status 130).
[[nodiscard]] int runCommand(boost::asio::io_context& io, const RunOptions& options);

/// \brief Reads an episodic memory file written by `run --memory`: search it, list recent episodes, or
/// show one in full. A missing file is an error (never created here).
[[nodiscard]] int memoryCommand(const MemoryOptions& options);

/// \brief The provider `--provider` names, else the first configured in the environment, else the offline
/// demo (with a notice on stderr).
[[nodiscard]] expected<std::shared_ptr<llm::Provider>, std::string> chooseProvider(const RunOptions& options);
/// \brief The agent `run` builds: the demo tools, the built-in tools, reasoning, terminal approval,
/// memory and MCP servers as `options` say.
[[nodiscard]] expected<reagent::AgentBuilder, std::string> agentBuilder(
    const RunOptions& options, std::shared_ptr<llm::Provider> provider);

/// \brief The built-in tools as `run` gives them (`builtins::builtinTools`): code-execute (in its own
/// temporary directory), http-get, web-search and crypto-price; with `--workspace` the file tools on it,
/// and unless `--read-only` shell-execute and the program tools. Used by `mcp serve`.
[[nodiscard]] expected<std::vector<tools::Tool>, std::string> workspaceTools(const RunOptions& options);

/// \brief Lists the tools an agent of this CLI offers to the model (`final-answer` included).
[[nodiscard]] int toolsCommand(const RunOptions& options, bool json);

}  // namespace reagent::cli
