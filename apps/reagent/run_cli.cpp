// `reagent run`: its command line, and the prompt read from words, standard input or a file.

#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli_options.hpp"
#include "cli_telemetry.hpp"
#include "commands.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/untrusted_json.hpp"
#include "reagent/llm/attachment.hpp"
#include "reagent/tools/schema_validator.hpp"
#include "subcommands.hpp"

namespace reagent::cli {

namespace {

// What CLI11 parses `run` into; some values are converted only once the command runs.
struct RunCommandLine {
    RunOptions options;
    std::vector<std::string> promptWords;
    std::string promptFile;
    std::string outputSchemaFile;
    std::vector<std::string> attachFiles;
    std::string nativeOutput = "auto";
    std::string pricesFile;
    std::int64_t maxTokensTotal = 0;
    double maxCost = 0;
    int maxToolCalls = -1;
    double timeoutSeconds = 0;
    int latencyMs = 0;
    std::string traceFile;
};

std::string joinWords(const std::vector<std::string>& words) {
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
        prompt = joinWords(words);
    }
    if (prompt.find_first_not_of(" \t\r\n") == std::string::npos) {
        return reagent::fail(std::string("the prompt is empty"));
    }
    return prompt;
}

// --output-schema FILE: a JSON Schema that compiles, or why not (a usage error).
reagent::expected<nlohmann::json, std::string> readOutputSchema(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        return reagent::fail("--output-schema: cannot read '" + path + "'");
    }
    std::ostringstream text;
    text << file.rdbuf();
    auto schema = reagent::parseUntrustedJson(std::move(text).str());
    if (!schema) {
        return reagent::fail("--output-schema: '" + path + "' is not JSON: " + schema.error().message);
    }
    if (auto compiled = tools::SchemaValidator::compile(*schema); !compiled) {
        return reagent::fail("--output-schema: '" + path + "': " + compiled.error().message);
    }
    return std::move(*schema);
}

int runFromCommandLine(boost::asio::io_context& io, RunCommandLine& line) {
    auto prompt = readPrompt(line.promptWords, line.promptFile);
    if (!prompt) {
        std::cerr << "reagent: " << prompt.error() << "\nRun with --help for more information.\n";
        return kExitUsage;
    }
    if (!line.outputSchemaFile.empty()) {
        auto schema = readOutputSchema(line.outputSchemaFile);
        if (!schema) {
            std::cerr << "reagent: " << schema.error() << "\nRun with --help for more information.\n";
            return kExitUsage;
        }
        line.options.outputSchema = std::move(*schema);
    }
    for (const std::string& file : line.attachFiles) {
        auto attachment = llm::Attachment::fromFile(file);
        if (!attachment) {
            std::cerr << "reagent: --attach: " << attachment.error().message
                      << "\nRun with --help for more information.\n";
            return kExitUsage;
        }
        line.options.attachments.push_back(std::move(*attachment));
    }
    line.options.nativeOutput = line.nativeOutput == "always"  ? providers::NativeOutput::always
                                : line.nativeOutput == "tool"  ? providers::NativeOutput::tool
                                : line.nativeOutput == "never" ? providers::NativeOutput::never
                                                               : providers::NativeOutput::automatic;
    if (!line.pricesFile.empty()) {
        auto prices = llm::PriceTable::fromFile(line.pricesFile);
        if (!prices) {
            std::cerr << "reagent: --prices: " << prices.error().message
                      << "\nRun with --help for more information.\n";
            return kExitUsage;
        }
        line.options.prices = std::make_shared<const llm::PriceTable>(std::move(*prices));
    }
    if (line.maxCost > 0 && !line.options.prices) {
        std::cerr << "reagent: --max-cost needs --prices FILE, the price table that turns tokens into cost\n"
                     "Run with --help for more information.\n";
        return kExitUsage;
    }
    if (line.maxTokensTotal > 0) {
        line.options.budget.maxTotalTokens = line.maxTokensTotal;
    }
    if (line.maxCost > 0) {
        line.options.budget.maxCost = line.maxCost;
    }
    if (line.maxToolCalls >= 0) {
        line.options.budget.maxToolCalls = line.maxToolCalls;
    }
    line.options.prompt = std::move(*prompt);
    if (line.timeoutSeconds > 0) {
        line.options.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::duration<double>(line.timeoutSeconds));
    }
    line.options.demoLatency = std::chrono::milliseconds(line.latencyMs);
    return runTraced(io, line.traceFile, line.options, kHelpHint,
                     [&] { return runCommand(io, line.options); });
}

}  // namespace

Subcommand addRunCommand(CLI::App& app) {
    auto line = std::make_shared<RunCommandLine>();
    CLI::App* runCmd = app.add_subcommand("run", "Run an agent on PROMPT: trace on stderr, answer on stdout");
    runCmd->add_option(
        "prompt", line->promptWords,
        "The task for the agent (several words are joined by spaces); - reads it from standard "
        "input");
    runCmd->add_option("--prompt-file", line->promptFile, "Read the prompt from this file (any size)")
        ->check(nonEmpty("a file path"));
    runCmd
        ->add_option("--max-iterations", line->options.maxIterations,
                     "Model calls allowed before the run fails")
        ->check(wholeNumber(1'000'000))
        ->capture_default_str();
    runCmd
        ->add_option(
            "--timeout", line->timeoutSeconds,
            "Bound the whole run to this many seconds (decimals allowed); when it elapses the run is "
            "cancelled and reported as timed out. Default: none (each model request still has its "
            "own deadlines, see docs/providers.md)")
        ->check(positiveSeconds());
    auto* jsonFlag =
        runCmd->add_flag("--json", line->options.json,
                         "Print the run result as JSON on stdout: output, success, terminatedBy, "
                         "iterations, toolCalls, usage, error (no trace)");
    runCmd->add_flag("-q,--quiet", line->options.quiet, "Print only the answer (no trace, no summary)")
        ->excludes(jsonFlag);
    runCmd
        ->add_option(
            "--output-schema", line->outputSchemaFile,
            "A JSON Schema file: the answer must be a JSON value that matches it, and is printed as "
            "JSON (with --json, as \"output\"). An answer that does not match goes back to the model "
            "with the violations, twice at most; then the run fails (output_invalid)")
        ->check(nonEmpty("a file path"));
    runCmd
        ->add_option(
            "--fallback", line->options.fallbacks,
            "PROVIDER[:MODEL]: when the model call fails (overloaded, server error, rate limited past "
            "the retries, timeout, context too long), ask this one instead; repeat for a chain")
        ->allow_extra_args(false)
        ->check(nonEmpty("a provider, e.g. openai:gpt-4.1"));
    runCmd
        ->add_option("--max-concurrent", line->options.rateLimits.maxConcurrent,
                     "Rate limit: model requests in flight at once (with tools that start sub-agents)")
        ->check(wholeNumber(100'000));
    runCmd
        ->add_option("--max-rpm", line->options.rateLimits.requestsPerMinute,
                     "Rate limit: model requests started per minute, spread evenly")
        ->check(wholeNumber(10'000'000));
    runCmd
        ->add_option("--max-tpm", line->options.rateLimits.tokensPerMinute,
                     "Rate limit: tokens per minute (each request counted at its estimate, then its usage)")
        ->check(wholeNumber(1'000'000'000'000ULL));
    runCmd
        ->add_option("--prices", line->pricesFile,
                     "A price table (JSON, see docs/cost.md): the run's cost is shown beside its usage")
        ->check(nonEmpty("a file path"));
    runCmd
        ->add_option("--max-tokens-total", line->maxTokensTotal,
                     "Stop the run before its model calls pass this many tokens (input + output)")
        ->check(wholeNumber(1'000'000'000'000ULL));
    runCmd
        ->add_option("--max-cost", line->maxCost,
                     "Stop the run before it spends more than this (in the price table's currency; needs "
                     "--prices)")
        ->check(CLI::PositiveNumber);
    runCmd
        ->add_option("--max-tool-calls", line->maxToolCalls,
                     "Stop the run before it makes more tool calls than this")
        ->check(wholeNumber(1'000'000));
    runCmd
        ->add_option("--context-window", line->options.contextWindow,
                     "The model's context window in tokens, for a model reagent does not know (an Ollama "
                     "model's num_ctx): a request that would not fit is not sent")
        ->check(CLI::Range(std::int64_t{1}, std::int64_t{1'000'000'000}));
    runCmd->add_flag("--no-compaction", line->options.noCompaction,
                     "Never compact the history: a request past the context window ends the run "
                     "(context_overflow), and so does the API's context-length error");
    runCmd
        ->add_flag("--exact-counts", line->options.exactCounts,
                   "Before compacting on the estimate, ask the API for the prompt's exact token count "
                   "(Anthropic's count_tokens, Gemini's countTokens; others keep the estimate)")
        ->excludes("--no-compaction");
    runCmd
        ->add_option(
            "--native-output", line->nativeOutput,
            "With --output-schema: send the schema in the model API's structured-output field (auto: "
            "where the model takes it; always; tool: Anthropic, as a tool the model must call; never: in "
            "the prompt only, for a server that refuses the field)")
        ->check(CLI::IsMember({"auto", "always", "tool", "never"}))
        ->capture_default_str();
    runCmd
        ->add_option(
            "--attach", line->attachFiles,
            "Send this image (PNG, JPEG, GIF, WebP) or PDF document with the prompt (repeat for more; "
            "the type is read from the file's bytes, at most 20 MiB each). A provider whose API cannot "
            "take it fails the run, naming it")
        ->type_name("FILE")
        ->allow_extra_args(false)
        ->check(nonEmpty("a file path"));
    runCmd
        ->add_option("--demo-latency", line->latencyMs,
                     "Simulated latency in milliseconds of each turn of the offline demo provider")
        ->check(CLI::Range(0, 3'600'000))
        ->capture_default_str();
    runCmd
        ->add_option("--provider", line->options.provider,
                     "Model API: anthropic, openai, gemini, ollama or demo (default: the first configured in "
                     "the environment, else demo)")
        ->check(CLI::IsMember({"anthropic", "openai", "gemini", "ollama", "demo"}));
    runCmd->add_option("--model", line->options.model, "Model id (default: the provider's default model)");
    runCmd
        ->add_option("--base-url", line->options.baseUrl,
                     "Base URL of the model API, its version included (https://api.anthropic.com/v1, "
                     "http://127.0.0.1:8000/v1, http://127.0.0.1:11434/api); overrides the environment")
        ->check(nonEmpty("a URL"));
    runCmd
        ->add_option("--memory", line->options.memoryPath,
                     "Episodic memory: log every tool result in this SQLite file (created when missing) and "
                     "let the agent's recall tool search earlier runs. A file that cannot be opened for "
                     "writing (read-only, not a reagent store, a dangling link) fails the run before it "
                     "starts")
        ->check(nonEmpty("a file path"));
    runCmd
        ->add_option("--budget", line->options.compressionBudget,
                     "Characters of a tool result shown to the model unchanged; a longer result is "
                     "compressed to a preview and stored in working memory")
        ->check(wholeNumber(1'000'000'000))
        ->capture_default_str();
    addSkillsOption(runCmd, line->options.skillFolders);
    addToolSearchOption(runCmd, line->options.toolSearch);
    addDocsOption(runCmd, line->options.docsIndex);
    runCmd
        ->add_option("--mcp-config", line->options.mcpConfigPath,
                     "A JSON file of MCP servers in the mcpServers format MCP hosts use ({\"mcpServers\": "
                     "{\"fs\": {\"command\": ..., \"args\": [...]}, \"api\": {\"url\": ...}}}); their tools "
                     "join the agent's as SERVER/TOOL. A server that fails to start fails the run before it "
                     "starts, naming it")
        ->check(nonEmpty("a file path"));
    runCmd
        ->add_option(
            "--workspace", line->options.workspace,
            "Also give the agent code-execute and the built-in tools confined to this directory: the "
            "file tools (file-read, file-write, file-edit, ls, glob, grep), shell-execute and git-cli, "
            "gh-cli, gws-cli; file-write, shell-execute and the program tools' changing calls ask for "
            "approval on the terminal. Without it the agent has only the network tools (http-get, "
            "web-search, crypto-price) beside its own")
        ->check(CLI::ExistingDirectory);
    runCmd
        ->add_option(
            "--pass-env", line->options.passEnvironment,
            "Let the commands of shell-execute and the program tools inherit this credential variable "
            "(repeat for more). Variables named like credentials (a word KEY, TOKEN, SECRET, PASSWORD, "
            "PASSWD, PASSPHRASE, CREDENTIAL(S), AUTH, COOKIE or PAT: OPENAI_API_KEY, GITHUB_TOKEN, "
            "AWS_SECRET_ACCESS_KEY, SSH_AUTH_SOCK, ...) are otherwise removed from their environment")
        ->type_name("NAME")
        ->allow_extra_args(false);  // one value per occurrence: the words after it stay the prompt
    runCmd
        ->add_option("--trace-file", line->traceFile,
                     "Append the run's OpenTelemetry spans to FILE as OTLP/JSON lines (besides any "
                     "OTEL_EXPORTER_OTLP_ENDPOINT export)")
        ->option_text("FILE");
    runCmd->add_flag("--read-only", line->options.readOnly,
                     "Leave out every tool that changes something (file-write, file-edit, shell-execute, the "
                     "program tools)");
    runCmd->add_flag(
        "-y,--yes", line->options.approveAll,
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
    return {runCmd, [line](boost::asio::io_context& io) { return runFromCommandLine(io, *line); }};
}

}  // namespace reagent::cli
