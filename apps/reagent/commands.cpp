#include "commands.hpp"

#include <unistd.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>

#include "a2a_serve_command.hpp"
#include "cli_telemetry.hpp"
#include "demo_provider.hpp"
#include "demo_tools.hpp"
#include "docs_embedder.hpp"
#include "mcp_command.hpp"
#include "output.hpp"
#include "reagent/agent/agent.hpp"
#include "reagent/builtins/builtin_tools.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/documents/sqlite_document_index.hpp"
#include "reagent/llm/fallback_provider.hpp"
#include "reagent/providers/http_provider.hpp"
#include "reagent/umbrella/agent_builder.hpp"
#include "serve_command.hpp"
#include "terminal_text.hpp"
#include "trace.hpp"

namespace reagent::cli {

namespace asio = boost::asio;

namespace {

// The process exits this way when a second signal arrives while the first cancellation is under way.
constexpr int kExitForced = 130;

// Asks on the terminal before a call that needs approval; without a terminal the call is refused, unless
// --yes approved everything beforehand. (A free coroutine: its frame holds copies, nothing of a lambda.)
Task<bool> askApproval(bool approveAll, tools::ToolCallRequest request, tools::ToolDefinition definition) {
    if (approveAll) {
        co_return true;
    }
    if (::isatty(STDIN_FILENO) == 0) {
        std::cerr << "reagent: " << oneLine(definition.name)
                  << " needs approval and stdin is not a terminal: refused (approve with --yes)\n";
        co_return false;
    }
    std::string arguments = request.arguments.dump();
    if (arguments.size() > 300) {
        arguments = arguments.substr(0, 300) + "...";
    }
    std::cerr << "Allow " << oneLine(definition.name) << " " << oneLine(arguments) << "? [y/N] "
              << std::flush;
    std::string answer;
    std::getline(std::cin, answer);
    co_return answer == "y" || answer == "Y" || answer == "yes";
}

tools::ApprovalHandler terminalApproval(bool approveAll) {
    return [approveAll](tools::ToolCallRequest request, tools::ToolDefinition definition) {
        return askApproval(approveAll, std::move(request), std::move(definition));
    };
}

// The built-in tools as `reagent run` gives them: the network tools (http-get, web-search, crypto-price)
// always; with --workspace also code-execute and the file tools on it, and unless --read-only
// shell-execute and the program tools (the library's defaults). Code runs only where the user said work
// may happen.
builtins::BuiltinSelection builtinSelection(const RunOptions& options) {
    builtins::BuiltinSelection selection;
    selection.workspace = options.workspace;
    selection.readOnly = options.readOnly;
    selection.passEnvironment = options.passEnvironment;
    if (options.workspace.empty()) {
        selection.include = std::vector<std::string>{"http-get", "web-search", "crypto-price"};
    }
    return selection;
}

}  // namespace

expected<reagent::AgentBuilder, std::string> agentBuilder(const RunOptions& options,
                                                          std::shared_ptr<llm::Provider> provider) {
    auto tools = demoTools();
    if (!tools) {
        return fail("a demo tool is malformed: " + tools.error().describe());
    }
    reagent::ToolsConfig toolsConfig;
    toolsConfig.tools = std::move(*tools);
    const builtins::BuiltinSelection selection = builtinSelection(options);
    toolsConfig.include = selection.include;
    toolsConfig.workspace = selection.workspace;
    toolsConfig.readOnly = selection.readOnly;
    toolsConfig.passEnvironment = selection.passEnvironment;
    toolsConfig.resultCompression.budget = options.compressionBudget;
    auto builder = reagent::Agent::create();
    builder.withName("reagent")
        .withProvider(std::move(provider))
        .withTools(std::move(toolsConfig))
        .withReasoning()
        .withMaxIterations(options.maxIterations);
    if (options.deferApprovals && !options.approveAll) {
        builder.withDeferredApproval();
    } else {
        builder.withApprovalHandler(terminalApproval(options.approveAll));
    }
    if (!options.outputSchema.is_null()) {
        builder.withOutputSchema(options.outputSchema);
    }
    if (options.prices) {
        builder.withPrices(options.prices);
    }
    builder.withBudget(options.budget);
    if (options.telemetry) {
        builder.withTelemetry(options.telemetry);
    }
    if (options.contextWindow > 0) {
        builder.withContextWindow(options.contextWindow);
    }
    if (options.noCompaction) {
        builder.withoutCompaction();
    } else if (options.exactCounts) {
        agent::CompactionOptions compaction;
        compaction.exactCounts = true;
        builder.withCompaction(std::move(compaction));
    }
    if (!options.memoryPath.empty()) {
        agent::MemoryConfig memoryConfig;
        memoryConfig.path = options.memoryPath;
        builder.withMemory(std::move(memoryConfig));
    }
    if (options.toolSearch != "auto") {
        agent::ToolSearch search;
        search.mode =
            options.toolSearch == "always" ? agent::ToolSearch::Mode::always : agent::ToolSearch::Mode::off;
        builder.withToolSearch(std::move(search));
    }
    if (!options.docsIndex.empty()) {
        auto index = documents::SqliteDocumentIndex::open(options.docsIndex);
        if (!index) {
            return fail("--docs " + options.docsIndex + ": " + index.error().message);
        }
        documents::RagIngestOptions ingest;
        if (!options.workspace.empty()) {
            ingest.roots.emplace_back(options.workspace);
        }
        std::string warning;
        auto embedder = embedderFor("", **index, warning);
        if (!embedder) {
            return fail("--docs " + options.docsIndex + ": " + embedder.error());
        }
        if (!warning.empty()) {
            std::cerr << "reagent: " << warning << "\n";
        }
        builder.withDocuments(std::make_shared<documents::Documents>(
                                  std::move(*index), documents::IngestOptions{}, std::move(*embedder)),
                              std::move(ingest));
    }
    if (!options.skillFolders.empty()) {
        builder.withSkills(
            std::vector<std::filesystem::path>(options.skillFolders.begin(), options.skillFolders.end()));
    }
    if (!options.mcpConfigPath.empty()) {
        auto servers = readMcpConfig(options.mcpConfigPath);
        if (!servers) {
            return fail(servers.error());
        }
        builder.withMCP(std::move(*servers));
    }
    return builder;
}

// Builds the agent (connecting its MCP servers), runs the prompt, disposes the agent.
namespace {

Task<expected<agent::RunResult, std::string>> buildRunDispose(reagent::AgentBuilder builder,
                                                              std::string prompt,
                                                              std::vector<llm::Attachment> attachments) {
    auto agent = co_await builder.buildAsync();
    if (!agent) {
        co_return fail("cannot build the agent: " + agent.error().describe());
    }
    agent::RunOptions runOptions;
    runOptions.attachments = std::move(attachments);
    agent::RunResult result = co_await agent->run(std::move(prompt), std::move(runOptions));
    co_await agent->dispose();
    co_return result;
}

// Checked: a cancelled run still reports its result, and the MCP servers are stopped after it.
Task<expected<agent::RunResult, std::string>> buildAndRun(reagent::AgentBuilder builder, std::string prompt,
                                                          std::vector<llm::Attachment> attachments) {
    co_return co_await withCheckedCancellation(
        buildRunDispose(std::move(builder), std::move(prompt), std::move(attachments)));
}

}  // namespace

namespace {

// The provider `config` describes, with the run's settings every provider of the run shares.
expected<std::shared_ptr<llm::Provider>, std::string> configured(providers::ProviderConfig config,
                                                                 const RunOptions& options) {
    config.nativeOutput = options.nativeOutput;
    config.rateLimits = options.rateLimits;
    auto made = providers::makeProvider(std::move(config));
    if (!made) {
        return fail(made.error().message);
    }
    return std::move(*made);
}

// `--fallback PROVIDER[:MODEL]`: the provider configured from its environment variables.
expected<std::shared_ptr<llm::Provider>, std::string> fallbackProvider(const std::string& spec,
                                                                       const RunOptions& options) {
    const auto colon = spec.find(':');
    const std::string name = spec.substr(0, colon);
    const auto kind = providers::parseProviderKind(name);
    if (!kind) {
        return fail("--fallback " + spec + ": unknown provider '" + name +
                    "' (anthropic, openai, gemini, ollama)");
    }
    auto config = providers::configFromEnvironment(*kind);
    if (!config) {
        return fail("--fallback " + spec + ": " + config.error().message);
    }
    if (colon != std::string::npos) {
        config->model = spec.substr(colon + 1);
    }
    auto made = configured(std::move(*config), options);
    if (!made) {
        return fail("--fallback " + spec + ": " + made.error());
    }
    return made;
}

}  // namespace

expected<std::shared_ptr<llm::Provider>, std::string> chooseProvider(const RunOptions& options) {
    std::optional<providers::ProviderConfig> config;
    if (options.provider.empty()) {
        config = providers::detectProvider();
    } else if (options.provider != "demo") {
        const auto kind = providers::parseProviderKind(options.provider);
        if (!kind) {
            return fail("unknown provider '" + options.provider +
                        "' (anthropic, openai, gemini, ollama, demo)");
        }
        auto fromEnvironment = providers::configFromEnvironment(*kind);
        if (!fromEnvironment) {
            return fail(fromEnvironment.error().message);
        }
        config = std::move(*fromEnvironment);
    }
    if (!config) {
        std::cerr << kDemoNotice << "\n";
        return makeDemoProvider(options.demoLatency);
    }
    if (!options.model.empty()) {
        config->model = options.model;
    }
    if (!options.baseUrl.empty()) {
        config->baseUrl = options.baseUrl;
    }
    auto made = configured(std::move(*config), options);
    if (!made || options.fallbacks.empty()) {
        return made;
    }
    std::vector<std::shared_ptr<llm::Provider>> chain{std::move(*made)};
    for (const std::string& spec : options.fallbacks) {
        auto provider = fallbackProvider(spec, options);
        if (!provider) {
            return provider;
        }
        chain.push_back(std::move(*provider));
    }
    auto fallback = llm::FallbackProvider::make(std::move(chain));
    if (!fallback) {
        return fail(fallback.error().message);
    }
    return std::shared_ptr<llm::Provider>(std::move(*fallback));
}

namespace {

// The library's messages speak to programmers (withMaxIterations, ...); a CLI user needs the flag.
void explainForCli(agent::RunResult& result, const RunOptions& options, bool timedOut) {
    if (result.terminatedBy == agent::TerminatedBy::max_iterations) {
        result.errorMessage = "the run used all " + std::to_string(options.maxIterations) +
                              " iterations (model calls) without an answer; raise the limit with "
                              "--max-iterations";
    } else if (result.terminatedBy == agent::TerminatedBy::budget_exceeded ||
               result.terminatedBy == agent::TerminatedBy::context_overflow) {
        for (const auto& [name, flag] :
             {std::pair<std::string_view, std::string_view>{"maxTotalTokens", "--max-tokens-total"},
              {"maxCost", "--max-cost"},
              {"maxToolCalls", "--max-tool-calls"},
              {"withContextWindow", "--context-window"}}) {
            if (const auto at = result.errorMessage.find(name); at != std::string::npos) {
                result.errorMessage.replace(at, name.size(), flag);
            }
        }
    } else if (timedOut && result.terminatedBy == agent::TerminatedBy::cancelled) {
        result.errorMessage = "the run timed out: --timeout " + formatDuration(options.timeout) +
                              " elapsed and the run was cancelled";
    }
}

void report(const agent::RunResult& result, const RunOptions& options, std::chrono::microseconds wallTime,
            bool timedOut) {
    if (options.json || options.quiet) {
        // The trace (text runs) has shown each warning as it happened.
        for (const auto& warning : result.warnings) {
            std::cerr << "reagent: warning: " << terminalSafe(warning) << "\n";
        }
    }
    if (options.json) {
        auto out = toJson(result);
        out["timedOut"] = timedOut;
        std::cout << dumpJson(out, 2) << "\n";
        return;
    }
    if (result.success() && !result.structuredOutput.is_null()) {
        // The validated value, as JSON (escaped by the serializer: nothing raw reaches the terminal).
        std::cout << dumpJson(result.structuredOutput, 2) << "\n";
    } else if (result.success()) {
        // Model text, shown and never interpreted: no escape sequence reaches the terminal.
        std::cout << terminalSafe(result.output) << "\n";
    } else {
        // A failed run has no answer: its output is at most the model's last words, which --json shows.
        // Not a success, so there is an error.
        std::cerr << "reagent: the run failed: " << terminalSafe(result.error()->describe()) << "\n";
    }
    if (!options.quiet) {
        std::cerr << summaryLine(result, wallTime) << "\n";
    }
}

}  // namespace

expected<std::vector<tools::Tool>, std::string> workspaceTools(const RunOptions& options) {
    auto made = builtins::builtinTools(builtinSelection(options));
    if (!made) {
        return fail("--workspace: " + made.error().message);
    }
    return std::move(made->tools);
}

int runCommand(asio::io_context& io, const RunOptions& options) {
    auto provider = chooseProvider(options);
    if (!provider) {
        std::cerr << "reagent: " << provider.error() << "\n";
        return kExitUsage;
    }
    auto builder = agentBuilder(options, std::move(*provider));
    if (!builder) {
        std::cerr << "reagent: " << builder.error() << "\n";
        return kExitUsage;
    }
    if (!options.json && !options.quiet) {
        auto printer = std::make_shared<TracePrinter>(std::cerr);
        builder->withEventHandler([printer](const agent::AgentEvent& event) { (*printer)(event); });
    }

    asio::cancellation_signal cancel;
    // SIGHUP (the terminal went away) and SIGQUIT end the run as SIGTERM does: with its result reported.
    asio::signal_set signals(io, SIGINT, SIGTERM, SIGHUP);
    signals.add(SIGQUIT);
    int interrupts = 0;
    std::function<void(const boost::system::error_code&, int)> onSignal =
        [&](const boost::system::error_code& ec, int number) {
            if (ec) {
                return;  // the run finished and the wait was cancelled
            }
            if (++interrupts > 1) {
                std::_Exit(kExitForced);
            }
            std::cerr << "\nreagent: " << ::strsignal(number)
                      << " \u2014 cancelling the run (signal again to quit at once)\n";
            // Terminal cancellation: the default filter of a spawned coroutine lets only this kind through.
            cancel.emit(asio::cancellation_type::terminal);
            signals.async_wait(onSignal);
        };
    signals.async_wait(onSignal);

    // --timeout: the whole run, model calls and tools alike, is cancelled when it elapses.
    asio::steady_timer deadline(io);
    bool timedOut = false;
    if (options.timeout.count() > 0) {
        deadline.expires_after(options.timeout);
        deadline.async_wait([&](const boost::system::error_code& ec) {
            if (!ec) {
                timedOut = true;
                cancel.emit(asio::cancellation_type::terminal);
            }
        });
    }

    std::optional<agent::RunResult> result;
    std::optional<std::string> buildError;
    std::exception_ptr crash;
    const auto start = std::chrono::steady_clock::now();
    asio::co_spawn(
        io, buildAndRun(std::move(*builder), options.prompt, options.attachments),
        asio::bind_cancellation_slot(
            cancel.slot(), [&](std::exception_ptr error, expected<agent::RunResult, std::string> value) {
                crash = error;
                if (!error && value) {
                    result = std::move(*value);
                } else if (!error) {
                    buildError = std::move(value.error());
                }
                signals.cancel();
                deadline.cancel();
                hurryTelemetry(io, options.telemetry);
            }));
    io.run();
    const auto wallTime =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);

    if (buildError) {
        std::cerr << "reagent: " << *buildError << "\n";
        return kExitRunFailed;
    }
    if (!result) {
        // Agent::run promises not to throw; reaching this is a library bug worth reporting as such.
        std::string what = "the run ended without a result";
        try {
            if (crash) {
                std::rethrow_exception(crash);
            }
        } catch (const std::exception& e) {
            what = e.what();
        } catch (...) {
            what = "unknown exception";
        }
        std::cerr << "reagent: internal error: " << what << "\n";
        return kExitRunFailed;
    }
    timedOut = timedOut && result->terminatedBy == agent::TerminatedBy::cancelled;
    explainForCli(*result, options, timedOut);
    report(*result, options, wallTime, timedOut);
    return result->success() ? kExitSuccess : kExitRunFailed;
}

int toolsCommand(const RunOptions& given, bool json) {
    RunOptions options = given;
    options.maxIterations = 1;
    auto builder = agentBuilder(options, makeDemoProvider(std::chrono::milliseconds(0)));
    if (!builder) {
        std::cerr << "reagent: " << builder.error() << "\n";
        return kExitRunFailed;
    }
    auto agent = builder->build();
    if (!agent) {
        std::cerr << "reagent: cannot build the agent: " << agent.error().describe() << "\n";
        return kExitRunFailed;
    }
    const auto specs = agent->toolSpecs();
    if (json) {
        std::cout << dumpJson(toJson(specs), 2) << "\n";
    } else {
        printTools(std::cout, specs);
    }
    return kExitSuccess;
}

namespace {

// A server has no one at a terminal to ask: calls that need approval are refused unless --yes, or deferred
// (durable runs wait for `reagent runs approve`).
void refuseApprovals(reagent::AgentBuilder& builder, const RunOptions& options) {
    if (!options.approveAll && !options.deferApprovals) {
        builder.withApprovalHandler(
            [](tools::ToolCallRequest, tools::ToolDefinition) -> Task<bool> { co_return false; });
    }
}

}  // namespace

expected<reagent::AgentBuilder, std::string> serverAgentBuilder(const RunOptions& options, bool* demo) {
    auto provider = chooseProvider(options);
    if (!provider) {
        return fail(provider.error());
    }
    if (demo != nullptr) {
        *demo = std::dynamic_pointer_cast<llm::ScriptedProvider>(*provider) != nullptr;
    }
    auto builder = agentBuilder(options, std::move(*provider));
    if (builder) {
        refuseApprovals(*builder, options);
    }
    return builder;
}

expected<reagent::AgentBuilder, std::string> demoAgentBuilder(const RunOptions& options) {
    auto builder = agentBuilder(options, makeDemoProvider(options.demoLatency));
    if (builder) {
        refuseApprovals(*builder, options);
    }
    return builder;
}

}  // namespace reagent::cli
