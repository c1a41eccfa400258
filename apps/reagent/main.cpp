// reagent — run an LLM agent from the command line.
//
//   reagent run "What is 6*7?"     run the agent; trace on stderr, answer on stdout
//   reagent run --json "..."       the whole run result as JSON
//   reagent tools                  the tools the agent offers to the model

#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>

#include "commands.hpp"

namespace {

std::string join(const std::vector<std::string>& words) {
    std::string text;
    for (const auto& word : words) {
        text += (text.empty() ? "" : " ") + word;
    }
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace reagent::cli;

    CLI::App app{"reagent: run LLM agents (a ReAct loop with tools) from the command line.", "reagent"};
    app.set_version_flag("--version", std::string("reagent ") + REAGENT_VERSION,
                         "Print the version and exit");
    app.require_subcommand(1);

    RunOptions run;
    std::vector<std::string> promptWords;
    int latencyMs = 0;
    CLI::App* runCmd = app.add_subcommand("run", "Run an agent on PROMPT: trace on stderr, answer on stdout");
    runCmd->add_option("prompt", promptWords, "The task for the agent (several words are joined by spaces)")
        ->required();
    runCmd->add_option("--max-iterations", run.maxIterations, "Model calls allowed before the run fails")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    auto* jsonFlag =
        runCmd->add_flag("--json", run.json,
                         "Print the run result as JSON on stdout: output, success, terminatedBy, "
                         "iterations, toolCalls, usage, error (no trace)");
    runCmd->add_flag("-q,--quiet", run.quiet, "Print only the answer (no trace, no summary)")
        ->excludes(jsonFlag);
    runCmd->add_option("--demo-latency", latencyMs,
                       "Simulated latency in milliseconds of each turn of the offline demo provider")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    runCmd->add_option("--provider", run.provider,
                       "Model API: anthropic, openai, gemini, ollama or demo (default: the first configured in "
                       "the environment, else demo)")
        ->check(CLI::IsMember({"anthropic", "openai", "gemini", "ollama", "demo"}));
    runCmd->add_option("--model", run.model, "Model id (default: the provider's default model)");
    runCmd->add_option("--base-url", run.baseUrl, "Base URL of the model API (overrides the environment)");
    runCmd->footer(
        "Providers read ANTHROPIC_API_KEY, OPENAI_API_KEY (+ OPENAI_BASE_URL), GEMINI_API_KEY or OLLAMA_HOST. "
        "With none configured, an offline demo provider answers: a scripted stand-in (no model) "
        "that calls calculator, word_count and current_time in one parallel batch, then final-answer.\n"
        "Ctrl-C (SIGINT) or SIGTERM cancels the run and reports what was done.\n"
        "Exit status: 0 when the agent answered, 1 when the run failed or was cancelled, 2 on usage errors.");

    bool toolsJson = false;
    CLI::App* toolsCmd =
        app.add_subcommand("tools", "List the tools offered to the model: name, description, JSON Schema");
    toolsCmd->add_flag("--json", toolsJson,
                       "Print the tools as a JSON array of {name, description, inputSchema}");

    // Set last: subcommands copy the footer of their parent when they are created.
    app.footer("Run `reagent <command> --help` for the options of a command.");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // CLI11 reports an unknown command as a missing one; name it instead.
        const auto extra = app.remaining();
        if (app.get_subcommands().empty() && !extra.empty() && extra.front().rfind('-', 0) != 0) {
            std::cerr << "reagent: unknown command '" << extra.front()
                      << "' (commands: run, tools)\nRun with --help for more information.\n";
            return kExitUsage;
        }
        // --help and --version arrive here too, with a zero status; every real parse error is a usage error.
        const int status = app.exit(e);
        return status == 0 ? kExitSuccess : kExitUsage;
    }

    // One io_context, run in this thread by the command; signals are handled on it as well.
    boost::asio::io_context io;
    if (*runCmd) {
        run.prompt = join(promptWords);
        run.demoLatency = std::chrono::milliseconds(latencyMs);
        return runCommand(io, run);
    }
    return toolsCommand(toolsJson);
}
