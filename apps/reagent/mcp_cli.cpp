// `reagent mcp tools|call|serve`: its command line.

#include <memory>

#include "cli_options.hpp"
#include "mcp_command.hpp"
#include "serve_command.hpp"
#include "subcommands.hpp"

namespace reagent::cli {

namespace {

// What CLI11 parses `mcp` into: tools and call share `options`, serve has its own.
struct McpCommandLine {
    McpOptions options;
    ServeOptions serveOptions;
    CLI::App* toolsCmd = nullptr;
    CLI::App* serveCmd = nullptr;
};

}  // namespace

Subcommand addMcpCommand(CLI::App& app) {
    auto line = std::make_shared<McpCommandLine>();
    CLI::App* mcpCmd = app.add_subcommand(
        "mcp",
        "Use MCP servers directly: list their tools, call one (servers from --mcp-config FILE); or serve the "
        "built-in tools over MCP");
    mcpCmd->require_subcommand(1);
    const auto addMcpOptions = [&options = line->options](CLI::App* command) {
        command->add_option("--mcp-config", options.configPath, "The mcpServers JSON file")
            ->required()
            ->check(nonEmpty("a file path"));
        command->add_flag("--json", options.json, "Print JSON on stdout");
        command
            ->add_option("--trace-file", options.traceFile,
                         "Append each request's OpenTelemetry client span to FILE as OTLP/JSON lines (beside "
                         "the OTEL_* variables, as for run)")
            ->option_text("FILE");
    };
    line->toolsCmd =
        mcpCmd->add_subcommand("tools", "Connect to each server and list its tools as SERVER/TOOL");
    line->toolsCmd->add_option("--server", line->options.server, "Only this server");
    addMcpOptions(line->toolsCmd);
    CLI::App* mcpCallCmd = mcpCmd->add_subcommand(
        "call",
        "Call one tool: its text on stdout, progress and server logs on stderr; exit 1 when the tool "
        "reports an error");
    mcpCallCmd->add_option("tool", line->options.tool, "SERVER/TOOL")->required();
    mcpCallCmd->add_option("arguments", line->options.arguments,
                           "The arguments as a JSON object (default {})");
    addMcpOptions(mcpCallCmd);
    line->serveCmd = mcpCmd->add_subcommand(
        "serve",
        "Serve the built-in tools of --workspace to MCP clients: stdio by default, streamable HTTP at /mcp "
        "with --http; logs on stderr only; SIGINT or SIGTERM shuts down gracefully");
    line->serveCmd
        ->add_option("--workspace", line->serveOptions.tools.workspace,
                     "The directory the file, shell and git tools are confined to (the tools of `run "
                     "--workspace`)")
        ->required()
        ->check(CLI::ExistingDirectory);
    line->serveCmd->add_flag("--read-only", line->serveOptions.tools.readOnly,
                             "Leave out every tool that changes something");
    line->serveCmd
        ->add_option("--pass-env", line->serveOptions.tools.passEnvironment,
                     "A credential variable the commands inherit (as for run)")
        ->type_name("NAME")
        ->allow_extra_args(false);  // one value per occurrence: the words after it stay the prompt
    line->serveCmd->add_flag(
        "-y,--yes", line->serveOptions.tools.approveAll,
        "Approve every call that needs approval (file-write, shell-execute); without it they "
        "are refused, as there is no terminal to ask on");
    line->serveCmd->add_flag("--agent", line->serveOptions.agent,
                             "Also serve the agent itself (configured as for `run`: provider from the "
                             "environment, else the offline demo) as one tool, `agent`");
    line->serveCmd
        ->add_option("--trace-file", line->serveOptions.traceFile,
                     "Append each call's OpenTelemetry spans to FILE as OTLP/JSON lines (as for run); a "
                     "client's traceparent in _meta is continued")
        ->option_text("FILE");
    line->serveCmd->add_option(
        "--http", line->serveOptions.http,
        "Serve streamable HTTP on HOST:PORT (like 127.0.0.1:8080; port 0 picks a free one "
        "and the address is printed on stderr)");
    addServerAuthOptions(line->serveCmd, line->serveOptions.auth, kMcpServeTokenVariable);
    return {mcpCmd, [line](boost::asio::io_context& io) {
                if (*line->serveCmd) {
                    return mcpServeCommand(io, line->serveOptions);
                }
                line->options.action = *line->toolsCmd ? "tools" : "call";
                return mcpCommand(io, line->options);
            }};
}

}  // namespace reagent::cli
