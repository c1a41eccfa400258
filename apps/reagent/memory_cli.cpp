// `reagent memory search|recent|show`: its command line.

#include <memory>

#include "cli_options.hpp"
#include "commands.hpp"
#include "subcommands.hpp"

namespace reagent::cli {

namespace {

// What CLI11 parses `memory` into: the three actions share one set of options.
struct MemoryCommandLine {
    MemoryOptions options;
    CLI::App* searchCmd = nullptr;
    CLI::App* recentCmd = nullptr;
};

}  // namespace

Subcommand addMemoryCommand(CLI::App& app) {
    auto line = std::make_shared<MemoryCommandLine>();
    CLI::App* memoryCmd = app.add_subcommand(
        "memory",
        "Read the episodic memory written by `run --memory FILE`: search, recent, show (read-only: "
        "the file is never created or changed)");
    memoryCmd->require_subcommand(1);
    const auto addMemoryOptions = [&options = line->options](CLI::App* command) {
        command->add_option("--memory", options.path, "The episodic memory file")
            ->required()
            ->check(nonEmpty("a file path"));
        command->add_flag("--json", options.json, "Print the episodes as JSON");
    };
    line->searchCmd = memoryCmd->add_subcommand("search",
                                                "Episodes whose tool, input or result contain "
                                                "KEYWORD (case-insensitive), newest first");
    line->searchCmd->add_option("keyword", line->options.argument, "The text to look for")->required();
    line->searchCmd->add_option("--limit", line->options.limit, "Most episodes shown")
        ->check(wholeNumber(1'000'000))
        ->capture_default_str();
    addMemoryOptions(line->searchCmd);
    line->recentCmd = memoryCmd->add_subcommand("recent", "The newest episodes");
    line->recentCmd->add_option("--limit", line->options.limit, "Most episodes shown")
        ->check(wholeNumber(1'000'000))
        ->capture_default_str();
    addMemoryOptions(line->recentCmd);
    CLI::App* showCmd = memoryCmd->add_subcommand("show", "One episode in full: input and whole result");
    showCmd->add_option("id", line->options.argument, "The episode's id, as search and recent print it")
        ->required();
    addMemoryOptions(showCmd);
    return {memoryCmd, [line](boost::asio::io_context&) {
                line->options.action = *line->searchCmd ? "search" : *line->recentCmd ? "recent" : "show";
                return memoryCommand(line->options);
            }};
}

}  // namespace reagent::cli
