// reagent — run an LLM agent from the command line.
//
//   reagent run "What is 6*7?"     run the agent; trace on stderr, answer on stdout
//   reagent run --json "..."       the whole run result as JSON
//   reagent tools                  the tools the agent offers to the model
//   reagent memory search WORD --memory FILE   what earlier runs did (episodic memory)
//   reagent docs ingest docs/ --index docs.db   a document index; `run --docs docs.db` searches it
//   reagent run --mcp-config mcp.json "..."     the agent also uses the MCP servers' tools
//   reagent mcp tools --mcp-config mcp.json     the tools of MCP servers
//   reagent mcp call SERVER/TOOL '{...}' --mcp-config mcp.json   one MCP tool call
//   reagent mcp serve --workspace DIR [--http 127.0.0.1:8080]   the built-in tools as an MCP server

#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <iostream>
#include <optional>
#include <string>

#include "commands.hpp"
#include "subcommands.hpp"

namespace {

// The exit status when the process ends at parsing (--help, --version, a usage error); none when the
// chosen subcommand should run.
std::optional<int> parseCommandLine(CLI::App& app, int argc, char** argv) {
    using namespace reagent::cli;
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // CLI11 reports an unknown command as a missing one; name it instead.
        const auto extra = app.remaining();
        if (app.get_subcommands().empty() && !extra.empty() && extra.front().rfind('-', 0) != 0) {
            std::cerr
                << "reagent: unknown command '" << extra.front()
                << "' (commands: run, chat, tools, memory, docs, mcp, serve, worker, submit, runs)\nRun with "
                   "--help for more information.\n";
            return kExitUsage;
        }
        // --help and --version arrive here too, with a zero status; every real parse error is a usage error.
        const int status = app.exit(e);
        return status == 0 ? kExitSuccess : kExitUsage;
    }
    return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace reagent::cli;
    CLI::App app{"reagent: run LLM agents (a ReAct loop with tools) from the command line.", "reagent"};
    app.set_version_flag("--version", std::string("reagent ") + REAGENT_VERSION,
                         "Print the version and exit");
    app.require_subcommand(1);
    // Declared in the order --help lists them (a braced list is evaluated left to right).
    const Subcommand subcommands[] = {addRunCommand(app),      addChatCommand(app),   addToolsCommand(app),
                                      addA2aServeCommand(app), addMemoryCommand(app), addDocsCommand(app),
                                      addMcpCommand(app),      addWorkerCommand(app), addSubmitCommand(app),
                                      addRunsCommand(app)};
    // Set last: subcommands copy the footer of their parent when they are created.
    app.footer("Run `reagent <command> --help` for the options of a command.");

    if (const auto status = parseCommandLine(app, argc, argv)) {
        return *status;
    }
    // One io_context, run in this thread by the command; signals are handled on it as well.
    boost::asio::io_context io;
    for (const auto& subcommand : subcommands) {
        if (*subcommand.command) {
            return subcommand.run(io);
        }
    }
    return kExitUsage;  // not reached: parsing requires one subcommand
}
