// `reagent worker`, `reagent submit` and `reagent runs`: their command lines.

#include <chrono>
#include <memory>

#include "cli_options.hpp"
#include "durable_command.hpp"
#include "subcommands.hpp"

namespace reagent::cli {

namespace {

constexpr const char* kDbHelp =
    "The run store: an SQLite file, sqlite://FILE, or a postgresql:// URL (default: $REAGENT_DB)";

struct WorkerCommandLine {
    WorkerCommandOptions options;
    int latencyMs = 0;
};

struct RunsCommandLine {
    RunsOptions options;
    std::string status;
    CLI::App* listCmd = nullptr;
    CLI::App* showCmd = nullptr;
    CLI::App* cancelCmd = nullptr;
};

}  // namespace

Subcommand addWorkerCommand(CLI::App& app) {
    auto line = std::make_shared<WorkerCommandLine>();
    CLI::App* cmd = app.add_subcommand(
        "worker",
        "Run the store's submitted runs with the agent `run` would build, journaled step by step, so "
        "that another worker goes on with a run this one could not finish");
    cmd->add_option("--db", line->options.db, kDbHelp);
    cmd->add_option("--name", line->options.name,
                    "This worker's name in the store (default: host-pid-random)");
    cmd->add_option("--concurrency", line->options.concurrency, "Runs at once")
        ->check(CLI::Range(1, 10'000))
        ->capture_default_str();
    cmd->add_option("--lease-seconds", line->options.leaseSeconds,
                    "How long a run stays this worker's without renewal (renewed every third of it)")
        ->check(CLI::Range(1, 86'400))
        ->capture_default_str();
    cmd->add_flag("--until-idle", line->options.untilIdle, "Return once no run is left to claim");
    cmd->add_option(
           "--drain-seconds", line->options.drainSeconds,
           "After SIGTERM, how long the runs in progress may take to end; those left are then cut off "
           "and released to another worker (default: as long as they take)")
        ->check(CLI::Range(0, 86'400));
    cmd->add_option(
           "--provider", line->options.agent.provider,
           "Model API: anthropic, openai, gemini, ollama or demo (default: the environment's, else demo)")
        ->check(CLI::IsMember({"anthropic", "openai", "gemini", "ollama", "demo"}));
    cmd->add_option("--model", line->options.agent.model, "Model id (default: the provider's default model)");
    cmd->add_option("--base-url", line->options.agent.baseUrl, "Base URL of the model API")
        ->check(nonEmpty("a URL"));
    cmd->add_option("--max-iterations", line->options.agent.maxIterations, "Model calls allowed per run")
        ->check(wholeNumber(1'000'000))
        ->capture_default_str();
    addSkillsOption(cmd, line->options.agent.skillFolders);
    addToolSearchOption(cmd, line->options.agent.toolSearch);
    addDocsOption(cmd, line->options.agent.docsIndex);
    cmd->add_option("--mcp-config", line->options.agent.mcpConfigPath,
                    "MCP servers whose tools join the agent's")
        ->check(nonEmpty("a file path"));
    cmd->add_option("--workspace", line->options.agent.workspace,
                    "The directory the file and shell tools work in")
        ->check(CLI::ExistingDirectory);
    cmd->add_flag("--read-only", line->options.agent.readOnly, "Leave out every tool that changes something");
    cmd->add_flag(
        "-y,--yes", line->options.agent.approveAll,
        "Approve every call that needs approval (otherwise its run waits for `reagent runs approve`)");
    cmd->add_option("--demo-latency", line->latencyMs, "Simulated latency (ms) of each demo model turn")
        ->check(CLI::Range(0, 3'600'000));
    cmd->add_option("--trace-file", line->options.traceFile,
                    "Append the runs' OpenTelemetry spans to FILE as OTLP/JSON lines (as for run)")
        ->option_text("FILE");
    cmd->footer(
        "SIGTERM or SIGINT drains (the runs in progress finish); a second one stops at once, leaving "
        "them to the next worker when their leases expire.");
    return {cmd, [line](boost::asio::io_context& io) {
                line->options.agent.demoLatency = std::chrono::milliseconds(line->latencyMs);
                return workerCommand(io, line->options);
            }};
}

Subcommand addSubmitCommand(CLI::App& app) {
    auto line = std::make_shared<SubmitOptions>();
    CLI::App* cmd = app.add_subcommand("submit", "Submit a run for the store's workers; print its id");
    cmd->add_option("prompt", line->prompt, "What to ask the agent")->required();
    cmd->add_option("--db", line->db, kDbHelp);
    cmd->add_option(
        "--id", line->id,
        "The run's id (default: a new one); submitting an id again with the same prompt does nothing");
    cmd->add_flag(
        "--wait", line->wait,
        "Print each step as a worker journals it, then the answer; exit 1 unless the run completed");
    cmd->add_flag("--json", line->json, "Print the run as JSON");
    return {cmd, [line](boost::asio::io_context& io) { return submitCommand(io, *line); }};
}

Subcommand addRunsCommand(CLI::App& app) {
    auto line = std::make_shared<RunsCommandLine>();
    CLI::App* cmd = app.add_subcommand("runs", "The store's runs: list, show, cancel, approve");
    cmd->require_subcommand(1);
    const auto common = [&options = line->options](CLI::App* sub) {
        sub->add_option("--db", options.db, kDbHelp);
        sub->add_flag("--json", options.json, "Print JSON");
    };
    line->listCmd = cmd->add_subcommand("list", "The newest runs");
    line->listCmd->add_option(
        "--status", line->status,
        "Only runs in this status: queued, running, waiting, completed, failed, cancelled");
    line->listCmd->add_option("--limit", line->options.limit, "Most runs shown")
        ->check(wholeNumber(1'000'000))
        ->capture_default_str();
    common(line->listCmd);
    line->showCmd = cmd->add_subcommand("show", "One run: its record, its journal, its inputs");
    line->showCmd->add_option("id", line->options.id, "The run's id")->required();
    common(line->showCmd);
    line->cancelCmd = cmd->add_subcommand("cancel", "Cancel a run (a running one stops at its next renewal)");
    line->cancelCmd->add_option("id", line->options.id, "The run's id")->required();
    common(line->cancelCmd);
    CLI::App* approveCmd = cmd->add_subcommand("approve", "Decide on a call a waiting run asks approval for");
    approveCmd->add_option("id", line->options.id, "The run's id")->required();
    approveCmd->add_option("call", line->options.callId, "The call's id (`runs show` lists them)")
        ->required();
    approveCmd->add_flag("--deny", line->options.deny, "Refuse the call instead");
    approveCmd->add_option("--reason", line->options.reason,
                           "Why (the model sees it when the call is refused)");
    common(approveCmd);
    return {cmd, [line](boost::asio::io_context& io) {
                RunsOptions& options = line->options;
                options.action = *line->listCmd     ? "list"
                                 : *line->showCmd   ? "show"
                                 : *line->cancelCmd ? "cancel"
                                                    : "approve";
                if (!line->status.empty()) {
                    options.status = line->status;
                }
                return runsCommand(io, options);
            }};
}

}  // namespace reagent::cli
