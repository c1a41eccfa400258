// `reagent serve --a2a`: its command line.

#include <chrono>
#include <memory>

#include "a2a_serve_command.hpp"
#include "cli_options.hpp"
#include "subcommands.hpp"

namespace reagent::cli {

namespace {

// What CLI11 parses `serve` into; the latency becomes a duration once the command runs.
struct A2aServeCommandLine {
    A2aServeOptions options;
    // `--a2a`, required and so never read: A2A is the only protocol `serve` speaks.
    bool a2a = false;
    int latencyMs = 0;
};

}  // namespace

Subcommand addA2aServeCommand(CLI::App& app) {
    auto line = std::make_shared<A2aServeCommandLine>();
    CLI::App* serveCmd = app.add_subcommand(
        "serve", "Serve the agent `run` would build to other agents, over A2A (Agent Card + JSON-RPC)");
    serveCmd->add_flag("--a2a", line->a2a, "Speak the A2A protocol (0.3 and 1.0 JSON-RPC, SSE streaming)")
        ->required();
    serveCmd->add_option("--port", line->options.port, "Port to listen on (0: a free one, printed on stderr)")
        ->capture_default_str();
    serveCmd
        ->add_option("--host", line->options.host, "Address to listen on (0.0.0.0 to accept other machines)")
        ->capture_default_str();
    serveCmd->add_option("--max-tasks", line->options.maxTasks, "Tasks running at once; more are refused")
        ->check(wholeNumber(100'000))
        ->capture_default_str();
    serveCmd
        ->add_option(
            "--provider", line->options.agent.provider,
            "Model API: anthropic, openai, gemini, ollama or demo (default: the environment's, else demo)")
        ->check(CLI::IsMember({"anthropic", "openai", "gemini", "ollama", "demo"}));
    serveCmd->add_option("--model", line->options.agent.model,
                         "Model id (default: the provider's default model)");
    serveCmd->add_option("--base-url", line->options.agent.baseUrl, "Base URL of the model API")
        ->check(nonEmpty("a URL"));
    serveCmd
        ->add_option("--max-iterations", line->options.agent.maxIterations, "Model calls allowed per task")
        ->check(wholeNumber(1'000'000))
        ->capture_default_str();
    addSkillsOption(serveCmd, line->options.agent.skillFolders);
    addToolSearchOption(serveCmd, line->options.agent.toolSearch);
    addDocsOption(serveCmd, line->options.agent.docsIndex);
    serveCmd
        ->add_option("--mcp-config", line->options.agent.mcpConfigPath,
                     "MCP servers whose tools join the agent's")
        ->check(nonEmpty("a file path"));
    serveCmd
        ->add_option("--workspace", line->options.agent.workspace,
                     "The directory the file and shell tools work in")
        ->check(CLI::ExistingDirectory);
    serveCmd->add_flag("--read-only", line->options.agent.readOnly,
                       "Leave out every tool that changes something");
    serveCmd
        ->add_option("--pass-env", line->options.agent.passEnvironment,
                     "A credential variable the commands inherit (as for run)")
        ->type_name("NAME")
        ->allow_extra_args(false);  // one value per occurrence: the words after it stay the prompt
    serveCmd->add_flag(
        "-y,--yes", line->options.agent.approveAll,
        "Approve every call that needs approval (otherwise refused: a server has no terminal)");
    serveCmd->add_option("--demo-latency", line->latencyMs, "Simulated latency (ms) of each demo model turn")
        ->check(CLI::Range(0, 3'600'000));
    serveCmd
        ->add_option(
            "--db", line->options.db,
            "Keep the tasks as durable runs in this store (a file, sqlite:// or postgresql:// URL), run "
            "by this server's worker: they survive a restart, and servers on one store share them")
        ->check(nonEmpty("a database"));
    serveCmd
        ->add_option(
            "--lease-seconds", line->options.leaseSeconds,
            "With --db: seconds a run's claim lasts unrenewed (a dead server's runs are taken over after)")
        ->check(CLI::Range(1, 86'400))
        ->capture_default_str();
    addServerAuthOptions(serveCmd, line->options.auth, kA2aServeTokenVariable);
    serveCmd
        ->add_option("--trace-file", line->options.traceFile,
                     "Append each task's OpenTelemetry spans to FILE as OTLP/JSON lines (as for run); a "
                     "caller's traceparent header is continued")
        ->option_text("FILE");
    serveCmd->footer("SIGINT or SIGTERM stops the server gracefully: running tasks end canceled.");
    return {serveCmd, [line](boost::asio::io_context& io) {
                line->options.agent.demoLatency = std::chrono::milliseconds(line->latencyMs);
                return a2aServeCommand(io, line->options);
            }};
}

}  // namespace reagent::cli
