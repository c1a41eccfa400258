#pragma once
/// \file
/// \brief The subcommands of the reagent CLI: each declares its options on the app and runs what was parsed.

#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <functional>

namespace reagent::cli {

/// \brief A subcommand declared on the app, its options bound to storage that `run` owns.
struct Subcommand {
    /// The CLI11 subcommand: true after parsing when the command line chose it.
    CLI::App* command = nullptr;
    /// Runs the command with the parsed options on `io` (in the calling thread); returns the exit status.
    std::function<int(boost::asio::io_context&)> run;
};

/// \brief `reagent run PROMPT`: the agent on one prompt (`runCommand`).
[[nodiscard]] Subcommand addRunCommand(CLI::App& app);
/// \brief `reagent chat`: a conversation on stdin (`chatCommand`).
[[nodiscard]] Subcommand addChatCommand(CLI::App& app);
/// \brief `reagent tools`: the tools offered to the model (`toolsCommand`).
[[nodiscard]] Subcommand addToolsCommand(CLI::App& app);
/// \brief `reagent serve --a2a`: the agent served over A2A (`a2aServeCommand`).
[[nodiscard]] Subcommand addA2aServeCommand(CLI::App& app);
/// \brief `reagent memory search|recent|show`: reads episodic memory (`memoryCommand`).
[[nodiscard]] Subcommand addMemoryCommand(CLI::App& app);
/// \brief `reagent docs ingest|search|list`: a document index (`docsCommand`).
[[nodiscard]] Subcommand addDocsCommand(CLI::App& app);
/// \brief `reagent mcp tools|call|serve`: MCP servers used directly (`mcpCommand`), or the built-in tools
/// served over MCP (`mcpServeCommand`).
[[nodiscard]] Subcommand addMcpCommand(CLI::App& app);
/// \brief `reagent worker`: runs the store's durable runs (`workerCommand`).
[[nodiscard]] Subcommand addWorkerCommand(CLI::App& app);
/// \brief `reagent submit PROMPT`: a durable run for the workers (`submitCommand`).
[[nodiscard]] Subcommand addSubmitCommand(CLI::App& app);
/// \brief `reagent runs list|show|cancel|approve`: the store's runs (`runsCommand`).
[[nodiscard]] Subcommand addRunsCommand(CLI::App& app);

}  // namespace reagent::cli
