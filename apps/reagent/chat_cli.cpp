// `reagent chat`: its command line.

#include <iostream>
#include <memory>

#include "chat_command.hpp"
#include "cli_options.hpp"
#include "cli_telemetry.hpp"
#include "subcommands.hpp"

namespace reagent::cli {

Subcommand addChatCommand(CLI::App& app) {
    auto options = std::make_shared<ChatOptions>();
    CLI::App* chatCmd = app.add_subcommand(
        "chat",
        "Talk with the agent: one message per line on stdin, answers streamed to stdout; the "
        "conversation is kept until exit (/reset forgets it, /exit ends it)");
    chatCmd->add_option("--system", options->system, "A system prompt for the whole conversation");
    chatCmd
        ->add_option("--provider", options->run.provider,
                     "Model API: anthropic, openai, gemini, ollama or demo (default: the first configured in "
                     "the environment, else demo)")
        ->check(CLI::IsMember({"anthropic", "openai", "gemini", "ollama", "demo"}));
    chatCmd->add_option("--model", options->run.model, "Model id (default: the provider's default model)");
    chatCmd->add_option("--base-url", options->run.baseUrl, "Base URL of the model API (as for run)");
    chatCmd->add_option("--max-iterations", options->run.maxIterations, "Model calls allowed per turn")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    chatCmd->add_option("--workspace", options->run.workspace, "The built-in tools' workspace (as for run)")
        ->check(CLI::ExistingDirectory);
    chatCmd->add_flag("--read-only", options->run.readOnly, "Leave out every tool that changes something");
    chatCmd
        ->add_option("--pass-env", options->run.passEnvironment,
                     "A credential variable the commands inherit (as for run)")
        ->type_name("NAME")
        ->allow_extra_args(false);  // one value per occurrence: the words after it stay the prompt
    chatCmd->add_flag("-y,--yes", options->run.approveAll, "Approve every call that needs approval");
    chatCmd->add_flag("-q,--quiet", options->run.quiet, "No trace of tool calls on stderr");
    addSkillsOption(chatCmd, options->run.skillFolders);
    addToolSearchOption(chatCmd, options->run.toolSearch);
    addDocsOption(chatCmd, options->run.docsIndex);
    chatCmd
        ->add_option("--mcp-config", options->run.mcpConfigPath, "MCP servers whose tools join (as for run)")
        ->check(nonEmpty("a file path"));
    chatCmd
        ->add_option("--context-window", options->run.contextWindow,
                     "The model's context window in tokens (as for run); /context shows how full it is")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1'000'000'000}));
    chatCmd->add_flag("--no-compaction", options->run.noCompaction,
                      "Never compact the conversation (as for run); /compact is refused");
    chatCmd
        ->add_flag("--exact-counts", options->run.exactCounts,
                   "Before compacting on the estimate, ask the API for the exact count (as for run)")
        ->excludes("--no-compaction");
    chatCmd
        ->add_option("--trace-file", options->traceFile,
                     "Append each turn's OpenTelemetry spans to FILE as OTLP/JSON lines (as for run)")
        ->option_text("FILE");
    return {chatCmd, [options](boost::asio::io_context& io) -> int {
                return runTraced(io, options->traceFile, options->run, kHelpHint,
                                 [&] { return chatCommand(io, *options); });
            }};
}

}  // namespace reagent::cli
