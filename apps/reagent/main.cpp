// reagent — run an LLM agent from the command line.
//
//   reagent run "What is 6*7?"     run the agent; trace on stderr, answer on stdout
//   reagent run --json "..."       the whole run result as JSON
//   reagent tools                  the tools the agent offers to the model
//   reagent memory search WORD --memory FILE   what earlier runs did (episodic memory)
//   reagent run --mcp-config mcp.json "..."     the agent also uses the MCP servers' tools
//   reagent mcp tools --mcp-config mcp.json     the tools of MCP servers
//   reagent mcp call SERVER/TOOL '{...}' --mcp-config mcp.json   one MCP tool call
//   reagent mcp serve --workspace DIR [--http 127.0.0.1:8080]   the built-in tools as an MCP server

#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "a2a_serve_command.hpp"
#include "chat_command.hpp"
#include "cli_options.hpp"
#include "commands.hpp"
#include "mcp_command.hpp"
#include "reagent/builtins/builtin_tools.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/mcp/remote_transports.hpp"
#include "serve_command.hpp"

namespace {

std::string join(const std::vector<std::string>& words) {
    std::string text;
    for (const auto& word : words) {
        text += (text.empty() ? "" : " ") + word;
    }
    return text;
}

// The prompt: its words, or `-` for standard input, or --prompt-file. Reads bytes as they are.
reagent::expected<std::string, std::string> readPrompt(const std::vector<std::string>& words,
                                                       const std::string& promptFile) {
    const bool fromStdin = words.size() == 1 && words.front() == "-";
    if (!promptFile.empty() && !words.empty()) {
        return reagent::fail(
            std::string("give the prompt either as words (or - for standard input) or with "
                        "--prompt-file, not both"));
    }
    std::string prompt;
    if (!promptFile.empty() || fromStdin) {
        std::ifstream file;
        std::istream* in = &std::cin;
        if (!fromStdin) {
            file.open(promptFile, std::ios::binary);
            if (!file) {
                return reagent::fail("cannot read the prompt file '" + promptFile + "'");
            }
            in = &file;
        }
        std::ostringstream text;
        text << in->rdbuf();
        if (in->bad()) {
            return reagent::fail(std::string("cannot read the prompt from ") +
                                 (fromStdin ? "standard input" : "'" + promptFile + "'"));
        }
        prompt = std::move(text).str();
    } else if (words.empty()) {
        return reagent::fail(
            std::string("run needs a prompt: PROMPT words, - to read it from standard input, "
                        "or --prompt-file FILE"));
    } else {
        prompt = join(words);
    }
    if (prompt.find_first_not_of(" \t\r\n") == std::string::npos) {
        return reagent::fail(std::string("the prompt is empty"));
    }
    return prompt;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace reagent::cli;
    // MCP servers may be reached over HTTP, SSE or WebSocket, not only stdio.
    reagent::mcp::enableRemoteTransports();
    // withTools() registers the built-in tools (http-get, code-execute, the workspace tools, ...).
    reagent::builtins::enableBuiltinTools();

    CLI::App app{"reagent: run LLM agents (a ReAct loop with tools) from the command line.", "reagent"};
    app.set_version_flag("--version", std::string("reagent ") + REAGENT_VERSION,
                         "Print the version and exit");
    app.require_subcommand(1);

    RunOptions run;
    std::vector<std::string> promptWords;
    std::string promptFile;
    double timeoutSeconds = 0;
    int latencyMs = 0;
    CLI::App* runCmd = app.add_subcommand("run", "Run an agent on PROMPT: trace on stderr, answer on stdout");
    runCmd->add_option(
        "prompt", promptWords,
        "The task for the agent (several words are joined by spaces); - reads it from standard "
        "input");
    runCmd->add_option("--prompt-file", promptFile, "Read the prompt from this file (any size)")
        ->check(nonEmpty("a file path"));
    runCmd->add_option("--max-iterations", run.maxIterations, "Model calls allowed before the run fails")
        ->check(wholeNumber(1'000'000))
        ->capture_default_str();
    runCmd
        ->add_option(
            "--timeout", timeoutSeconds,
            "Bound the whole run to this many seconds (decimals allowed); when it elapses the run is "
            "cancelled and reported as timed out. Default: none (each model request still has its "
            "own deadlines, see docs/providers.md)")
        ->check(positiveSeconds());
    auto* jsonFlag =
        runCmd->add_flag("--json", run.json,
                         "Print the run result as JSON on stdout: output, success, terminatedBy, "
                         "iterations, toolCalls, usage, error (no trace)");
    runCmd->add_flag("-q,--quiet", run.quiet, "Print only the answer (no trace, no summary)")
        ->excludes(jsonFlag);
    runCmd
        ->add_option("--demo-latency", latencyMs,
                     "Simulated latency in milliseconds of each turn of the offline demo provider")
        ->check(CLI::Range(0, 3'600'000))
        ->capture_default_str();
    runCmd
        ->add_option("--provider", run.provider,
                     "Model API: anthropic, openai, gemini, ollama or demo (default: the first configured in "
                     "the environment, else demo)")
        ->check(CLI::IsMember({"anthropic", "openai", "gemini", "ollama", "demo"}));
    runCmd->add_option("--model", run.model, "Model id (default: the provider's default model)");
    runCmd
        ->add_option("--base-url", run.baseUrl,
                     "Base URL of the model API, its version included (https://api.anthropic.com/v1, "
                     "http://127.0.0.1:8000/v1, http://127.0.0.1:11434/api); overrides the environment")
        ->check(nonEmpty("a URL"));
    runCmd
        ->add_option("--memory", run.memoryPath,
                     "Episodic memory: log every tool result in this SQLite file (created when missing) and "
                     "let the agent's recall tool search earlier runs. A file that cannot be opened for "
                     "writing (read-only, not a reagent store, a dangling link) fails the run before it "
                     "starts")
        ->check(nonEmpty("a file path"));
    runCmd
        ->add_option("--budget", run.compressionBudget,
                     "Characters of a tool result shown to the model unchanged; a longer result is "
                     "compressed to a preview and stored in working memory")
        ->check(wholeNumber(1'000'000'000))
        ->capture_default_str();
    runCmd
        ->add_option("--mcp-config", run.mcpConfigPath,
                     "A JSON file of MCP servers in the mcpServers format MCP hosts use ({\"mcpServers\": "
                     "{\"fs\": {\"command\": ..., \"args\": [...]}, \"api\": {\"url\": ...}}}); their tools "
                     "join the agent's as SERVER/TOOL. A server that fails to start fails the run before it "
                     "starts, naming it")
        ->check(nonEmpty("a file path"));
    runCmd
        ->add_option(
            "--workspace", run.workspace,
            "Also give the agent code-execute and the built-in tools confined to this directory: the "
            "file tools (file-read, file-write, file-edit, ls, glob, grep), shell-execute and git-cli, "
            "gh-cli, gws-cli; file-write, shell-execute and the program tools' changing calls ask for "
            "approval on the terminal. Without it the agent has only the network tools (http-get, "
            "web-search, crypto-price) beside its own")
        ->check(CLI::ExistingDirectory);
    runCmd
        ->add_option(
            "--pass-env", run.passEnvironment,
            "Let the commands of shell-execute and the program tools inherit this credential variable "
            "(repeat for more). Variables named like credentials (a word KEY, TOKEN, SECRET, PASSWORD, "
            "PASSWD, PASSPHRASE, CREDENTIAL(S), AUTH, COOKIE or PAT: OPENAI_API_KEY, GITHUB_TOKEN, "
            "AWS_SECRET_ACCESS_KEY, SSH_AUTH_SOCK, ...) are otherwise removed from their environment")
        ->type_name("NAME");
    runCmd->add_flag("--read-only", run.readOnly,
                     "Leave out every tool that changes something (file-write, file-edit, shell-execute, the "
                     "program tools)");
    runCmd->add_flag(
        "-y,--yes", run.approveAll,
        "Approve every call that needs approval without asking (otherwise asked on the terminal, "
        "and refused when stdin is not one)");
    runCmd->footer(
        "Providers read ANTHROPIC_API_KEY, OPENAI_API_KEY (+ OPENAI_BASE_URL), GEMINI_API_KEY or "
        "OLLAMA_HOST. "
        "With none configured, an offline demo provider answers: a scripted stand-in (no model) "
        "that calls calculator, word_count and current_time in one parallel batch, then final-answer.\n"
        "Ctrl-C (SIGINT), SIGTERM, SIGHUP or SIGQUIT cancels the run and reports what was done; a second "
        "signal "
        "ends the process at once (status 130).\n"
        "Exit status: 0 when the agent answered, 1 when the run failed, was cancelled or timed out, 2 on "
        "usage "
        "errors. A tool result that could not be logged to --memory (file locked past the 5 s busy timeout, "
        "corrupt, disk full) does not change the status: the answer exists; each one is a warning on stderr "
        "(\"reagent: warning: ...\") and in the \"warnings\" list of --json.");

    ChatOptions chat;
    CLI::App* chatCmd = app.add_subcommand(
        "chat",
        "Talk with the agent: one message per line on stdin, answers streamed to stdout; the "
        "conversation is kept until exit (/reset forgets it, /exit ends it)");
    chatCmd->add_option("--system", chat.system, "A system prompt for the whole conversation");
    chatCmd
        ->add_option("--provider", chat.run.provider,
                     "Model API: anthropic, openai, gemini, ollama or demo (default: the first configured in "
                     "the environment, else demo)")
        ->check(CLI::IsMember({"anthropic", "openai", "gemini", "ollama", "demo"}));
    chatCmd->add_option("--model", chat.run.model, "Model id (default: the provider's default model)");
    chatCmd->add_option("--base-url", chat.run.baseUrl, "Base URL of the model API (as for run)");
    chatCmd->add_option("--max-iterations", chat.run.maxIterations, "Model calls allowed per turn")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    chatCmd->add_option("--workspace", chat.run.workspace, "The built-in tools' workspace (as for run)")
        ->check(CLI::ExistingDirectory);
    chatCmd->add_flag("--read-only", chat.run.readOnly, "Leave out every tool that changes something");
    chatCmd
        ->add_option("--pass-env", chat.run.passEnvironment,
                     "A credential variable the commands inherit (as for run)")
        ->type_name("NAME");
    chatCmd->add_flag("-y,--yes", chat.run.approveAll, "Approve every call that needs approval");
    chatCmd->add_flag("-q,--quiet", chat.run.quiet, "No trace of tool calls on stderr");
    chatCmd->add_option("--mcp-config", chat.run.mcpConfigPath, "MCP servers whose tools join (as for run)")
        ->check(nonEmpty("a file path"));

    bool toolsJson = false;
    CLI::App* toolsCmd =
        app.add_subcommand("tools", "List the tools offered to the model: name, description, JSON Schema");
    toolsCmd->add_flag("--json", toolsJson,
                       "Print the tools as a JSON array of {name, description, inputSchema}");
    RunOptions toolsOptions;
    toolsCmd->add_option("--workspace", toolsOptions.workspace, "Also list the built-in workspace tools")
        ->check(CLI::ExistingDirectory);
    toolsCmd->add_flag("--read-only", toolsOptions.readOnly, "Without the tools that change something");

    A2aServeOptions serve;
    bool serveA2a = false;
    int serveLatencyMs = 0;
    CLI::App* serveCmd = app.add_subcommand(
        "serve", "Serve the agent `run` would build to other agents, over A2A (Agent Card + JSON-RPC)");
    serveCmd->add_flag("--a2a", serveA2a, "Speak the A2A protocol (0.3 and 1.0 JSON-RPC, SSE streaming)")
        ->required();
    serveCmd->add_option("--port", serve.port, "Port to listen on (0: a free one, printed on stderr)")
        ->capture_default_str();
    serveCmd->add_option("--host", serve.host, "Address to listen on (0.0.0.0 to accept other machines)")
        ->capture_default_str();
    serveCmd->add_option("--max-tasks", serve.maxTasks, "Tasks running at once; more are refused")
        ->check(wholeNumber(100'000))
        ->capture_default_str();
    serveCmd
        ->add_option(
            "--provider", serve.agent.provider,
            "Model API: anthropic, openai, gemini, ollama or demo (default: the environment's, else demo)")
        ->check(CLI::IsMember({"anthropic", "openai", "gemini", "ollama", "demo"}));
    serveCmd->add_option("--model", serve.agent.model, "Model id (default: the provider's default model)");
    serveCmd->add_option("--base-url", serve.agent.baseUrl, "Base URL of the model API")
        ->check(nonEmpty("a URL"));
    serveCmd->add_option("--max-iterations", serve.agent.maxIterations, "Model calls allowed per task")
        ->check(wholeNumber(1'000'000))
        ->capture_default_str();
    serveCmd
        ->add_option("--mcp-config", serve.agent.mcpConfigPath, "MCP servers whose tools join the agent's")
        ->check(nonEmpty("a file path"));
    serveCmd
        ->add_option("--workspace", serve.agent.workspace, "The directory the file and shell tools work in")
        ->check(CLI::ExistingDirectory);
    serveCmd->add_flag("--read-only", serve.agent.readOnly, "Leave out every tool that changes something");
    serveCmd
        ->add_option("--pass-env", serve.agent.passEnvironment,
                     "A credential variable the commands inherit (as for run)")
        ->type_name("NAME");
    serveCmd->add_flag(
        "-y,--yes", serve.agent.approveAll,
        "Approve every call that needs approval (otherwise refused: a server has no terminal)");
    serveCmd->add_option("--demo-latency", serveLatencyMs, "Simulated latency (ms) of each demo model turn")
        ->check(CLI::Range(0, 3'600'000));
    addServerAuthOptions(serveCmd, serve.auth, kA2aServeTokenVariable);
    serveCmd->footer("SIGINT or SIGTERM stops the server gracefully: running tasks end canceled.");

    MemoryOptions memoryOptions;
    CLI::App* memoryCmd = app.add_subcommand(
        "memory",
        "Read the episodic memory written by `run --memory FILE`: search, recent, show (read-only: "
        "the file is never created or changed)");
    memoryCmd->require_subcommand(1);
    const auto addMemoryOptions = [&memoryOptions](CLI::App* command) {
        command->add_option("--memory", memoryOptions.path, "The episodic memory file")
            ->required()
            ->check(nonEmpty("a file path"));
        command->add_flag("--json", memoryOptions.json, "Print the episodes as JSON");
    };
    CLI::App* searchCmd = memoryCmd->add_subcommand("search",
                                                    "Episodes whose tool, input or result contain "
                                                    "KEYWORD (case-insensitive), newest first");
    searchCmd->add_option("keyword", memoryOptions.argument, "The text to look for")->required();
    searchCmd->add_option("--limit", memoryOptions.limit, "Most episodes shown")
        ->check(wholeNumber(1'000'000))
        ->capture_default_str();
    addMemoryOptions(searchCmd);
    CLI::App* recentCmd = memoryCmd->add_subcommand("recent", "The newest episodes");
    recentCmd->add_option("--limit", memoryOptions.limit, "Most episodes shown")
        ->check(wholeNumber(1'000'000))
        ->capture_default_str();
    addMemoryOptions(recentCmd);
    CLI::App* showCmd = memoryCmd->add_subcommand("show", "One episode in full: input and whole result");
    showCmd->add_option("id", memoryOptions.argument, "The episode's id, as search and recent print it")
        ->required();
    addMemoryOptions(showCmd);

    McpOptions mcpOptions;
    CLI::App* mcpCmd = app.add_subcommand(
        "mcp",
        "Use MCP servers directly: list their tools, call one (servers from --mcp-config FILE); or serve the "
        "built-in tools over MCP");
    mcpCmd->require_subcommand(1);
    const auto addMcpOptions = [&mcpOptions](CLI::App* command) {
        command->add_option("--mcp-config", mcpOptions.configPath, "The mcpServers JSON file")
            ->required()
            ->check(nonEmpty("a file path"));
        command->add_flag("--json", mcpOptions.json, "Print JSON on stdout");
    };
    CLI::App* mcpToolsCmd =
        mcpCmd->add_subcommand("tools", "Connect to each server and list its tools as SERVER/TOOL");
    mcpToolsCmd->add_option("--server", mcpOptions.server, "Only this server");
    addMcpOptions(mcpToolsCmd);
    CLI::App* mcpCallCmd = mcpCmd->add_subcommand(
        "call",
        "Call one tool: its text on stdout, progress and server logs on stderr; exit 1 when the tool "
        "reports an error");
    mcpCallCmd->add_option("tool", mcpOptions.tool, "SERVER/TOOL")->required();
    mcpCallCmd->add_option("arguments", mcpOptions.arguments, "The arguments as a JSON object (default {})");
    addMcpOptions(mcpCallCmd);
    ServeOptions serveOptions;
    CLI::App* mcpServeCmd = mcpCmd->add_subcommand(
        "serve",
        "Serve the built-in tools of --workspace to MCP clients: stdio by default, streamable HTTP at /mcp "
        "with --http; logs on stderr only; SIGINT or SIGTERM shuts down gracefully");
    mcpServeCmd
        ->add_option("--workspace", serveOptions.tools.workspace,
                     "The directory the file, shell and git tools are confined to (the tools of `run "
                     "--workspace`)")
        ->required()
        ->check(CLI::ExistingDirectory);
    mcpServeCmd->add_flag("--read-only", serveOptions.tools.readOnly,
                          "Leave out every tool that changes something");
    mcpServeCmd
        ->add_option("--pass-env", serveOptions.tools.passEnvironment,
                     "A credential variable the commands inherit (as for run)")
        ->type_name("NAME");
    mcpServeCmd->add_flag(
        "-y,--yes", serveOptions.tools.approveAll,
        "Approve every call that needs approval (file-write, shell-execute); without it they "
        "are refused, as there is no terminal to ask on");
    mcpServeCmd->add_flag("--agent", serveOptions.agent,
                          "Also serve the agent itself (configured as for `run`: provider from the "
                          "environment, else the offline demo) as one tool, `agent`");
    mcpServeCmd->add_option(
        "--http", serveOptions.http,
        "Serve streamable HTTP on HOST:PORT (like 127.0.0.1:8080; port 0 picks a free one "
        "and the address is printed on stderr)");
    addServerAuthOptions(mcpServeCmd, serveOptions.auth, kMcpServeTokenVariable);

    // Set last: subcommands copy the footer of their parent when they are created.
    app.footer("Run `reagent <command> --help` for the options of a command.");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // CLI11 reports an unknown command as a missing one; name it instead.
        const auto extra = app.remaining();
        if (app.get_subcommands().empty() && !extra.empty() && extra.front().rfind('-', 0) != 0) {
            std::cerr
                << "reagent: unknown command '" << extra.front()
                << "' (commands: run, tools, memory, mcp, serve)\nRun with --help for more information.\n";
            return kExitUsage;
        }
        // --help and --version arrive here too, with a zero status; every real parse error is a usage error.
        const int status = app.exit(e);
        return status == 0 ? kExitSuccess : kExitUsage;
    }

    // One io_context, run in this thread by the command; signals are handled on it as well.
    boost::asio::io_context io;
    if (*runCmd) {
        auto prompt = readPrompt(promptWords, promptFile);
        if (!prompt) {
            std::cerr << "reagent: " << prompt.error() << "\nRun with --help for more information.\n";
            return kExitUsage;
        }
        run.prompt = std::move(*prompt);
        if (timeoutSeconds > 0) {
            run.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::duration<double>(timeoutSeconds));
        }
        run.demoLatency = std::chrono::milliseconds(latencyMs);
        return runCommand(io, run);
    }
    if (*chatCmd) {
        return chatCommand(io, chat);
    }
    if (*serveCmd) {
        serve.agent.demoLatency = std::chrono::milliseconds(serveLatencyMs);
        return a2aServeCommand(io, serve);
    }
    if (*mcpCmd && *mcpServeCmd) {
        return mcpServeCommand(io, serveOptions);
    }
    if (*mcpCmd) {
        mcpOptions.action = *mcpToolsCmd ? "tools" : "call";
        return mcpCommand(io, mcpOptions);
    }
    if (*memoryCmd) {
        memoryOptions.action = *searchCmd ? "search" : *recentCmd ? "recent" : "show";
        return memoryCommand(memoryOptions);
    }
    return toolsCommand(toolsOptions, toolsJson);
}
