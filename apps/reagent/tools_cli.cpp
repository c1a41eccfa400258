// `reagent tools`: its command line.

#include <memory>

#include "commands.hpp"
#include "subcommands.hpp"

namespace reagent::cli {

namespace {

// What CLI11 parses `tools` into.
struct ToolsCommandLine {
    RunOptions options;
    bool json = false;
};

}  // namespace

Subcommand addToolsCommand(CLI::App& app) {
    auto line = std::make_shared<ToolsCommandLine>();
    CLI::App* toolsCmd =
        app.add_subcommand("tools", "List the tools offered to the model: name, description, JSON Schema");
    toolsCmd->add_flag("--json", line->json,
                       "Print the tools as a JSON array of {name, description, inputSchema}");
    toolsCmd->add_option("--workspace", line->options.workspace, "Also list the built-in workspace tools")
        ->check(CLI::ExistingDirectory);
    toolsCmd->add_flag("--read-only", line->options.readOnly, "Without the tools that change something");
    return {toolsCmd, [line](boost::asio::io_context&) { return toolsCommand(line->options, line->json); }};
}

}  // namespace reagent::cli
