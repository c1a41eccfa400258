#include <algorithm>
#include <boost/asio/this_coro.hpp>
#include <utility>

#include "agent_state.hpp"
#include "output_check.hpp"
#include "reagent/core/settle.hpp"
#include "recall_tool.hpp"
#include "run_meta_tools.hpp"

namespace reagent::agent {

namespace {

// A free coroutine: the handler's frame refers to nothing that a registry update could destroy.
Task<tools::ToolResult> recordFinalAnswer() {
    co_return std::string("final answer recorded");
}

}  // namespace

tools::Tool finalAnswerTool() {
    using nlohmann::json;
    tools::Tool tool = metaTool(
        kFinalAnswerTool,
        "Finish the task: call this once, with the complete deliverable for the user in `output`, when you "
        "have the answer. Nothing runs after it.",
        json{{"type", "object"},
             {"properties",
              {{"output",
                {{"type", "string"}, {"description", "The complete answer or deliverable for the user."}}},
               {"format",
                {{"type", "string"},
                 {"enum", {"text", "markdown", "json"}},
                 {"default", "text"},
                 {"description", "How `output` is written."}}},
               {"summary", {{"type", "string"}, {"description", "One sentence on what was done."}}},
               {"confidence",
                {{"type", "number"},
                 {"minimum", 0},
                 {"maximum", 1},
                 {"description", "Your confidence in the answer, from 0 to 1."}}}}},
             {"required", {"output"}}},
        "Delivering the final answer");
    tool.handler = [](nlohmann::json, tools::ToolContext) { return recordFinalAnswer(); };
    return tool;
}

std::string reactGuidance() {
    return "Work step by step. Think about what the task needs; act by calling a tool when it helps; observe "
           "the tool's result before deciding the next step. Rely on real tool results, never invented ones. "
           "When you have the complete answer, call the `final-answer` tool with the deliverable in `output` "
           "instead of replying with plain text.";
}

AgentBuilder Agent::create() {
    return AgentBuilder{};
}

AgentBuilder& AgentBuilder::withName(std::string name) {
    config_.name = std::move(name);
    return *this;
}

AgentBuilder& AgentBuilder::withProvider(
    expected<std::shared_ptr<llm::Provider>, llm::ProviderError> provider) {
    providerError_.reset();
    config_.provider.reset();
    if (provider) {
        config_.provider = std::move(*provider);
    } else {
        providerError_ = std::move(provider.error());
    }
    return *this;
}

AgentBuilder& AgentBuilder::withTools(ToolsConfig config) {
    config_.toolsEnabled = true;
    for (tools::Tool& tool : config.tools) {
        tools_.push_back(std::move(tool));
    }
    config_.toolSettings = std::move(static_cast<ToolSettings&>(config));
    return *this;
}

AgentBuilder& AgentBuilder::withTools(std::vector<tools::Tool> tools) {
    config_.toolsEnabled = true;
    for (tools::Tool& tool : tools) {
        tools_.push_back(std::move(tool));
    }
    return *this;
}

AgentBuilder& AgentBuilder::withToolSource(
    expected<std::shared_ptr<tools::ToolSource>, tools::ToolError> source) {
    if (!source) {
        problems_.push_back("a tool source failed to build: " + source.error().message);
    } else if (!*source) {
        problems_.push_back("a null tool source was given");
    } else {
        sources_.push_back(std::move(*source));
    }
    return *this;
}

AgentBuilder& AgentBuilder::withMaxConcurrentOpens(std::size_t opens) {
    config_.maxConcurrentOpens = opens;
    return *this;
}

AgentBuilder& AgentBuilder::withTool(expected<tools::Tool, tools::ToolError> tool) {
    config_.toolsEnabled = true;
    if (tool) {
        tools_.push_back(std::move(*tool));
    } else {
        problems_.push_back("a tool failed to build: " + tool.error().describe());
    }
    return *this;
}

AgentBuilder& AgentBuilder::withReasoning() {
    config_.reasoning = true;
    return *this;
}

AgentBuilder& AgentBuilder::withMetaTools(MetaTools tools) {
    config_.metaTools = tools;
    return *this;
}

AgentBuilder& AgentBuilder::withToolSearch() {
    config_.toolSearch.mode = ToolSearch::Mode::always;
    return *this;
}

AgentBuilder& AgentBuilder::withToolSearch(ToolSearch search) {
    config_.toolSearch = std::move(search);
    return *this;
}

AgentBuilder& AgentBuilder::withFindSource(std::shared_ptr<FindSource> source) {
    if (source) {
        config_.findSources.push_back(std::move(source));
    } else {
        problems_.push_back("withFindSource was given no source (a null pointer)");
    }
    return *this;
}

AgentBuilder& AgentBuilder::withMemory(MemoryConfig config) {
    config_.memory = std::move(config);
    return *this;
}

AgentBuilder& AgentBuilder::withSystemPrompt(std::string prompt) {
    config_.systemPrompt = std::move(prompt);
    return *this;
}

AgentBuilder& AgentBuilder::withMaxIterations(int iterations) {
    config_.loop.maxIterations = iterations;
    return *this;
}

AgentBuilder& AgentBuilder::withApprovalHandler(tools::ApprovalHandler handler) {
    config_.approval = std::move(handler);
    return *this;
}

AgentBuilder& AgentBuilder::withDeferredApproval() {
    config_.toolSettings.execution.deferApproval = true;
    return *this;
}

AgentBuilder& AgentBuilder::withEventHandler(EventHandler handler) {
    handlers_.push_back(std::move(handler));
    return *this;
}

AgentBuilder& AgentBuilder::withTemperature(double temperature) {
    config_.loop.temperature = temperature;
    return *this;
}

AgentBuilder& AgentBuilder::withMaxTokens(int tokens) {
    config_.loop.maxTokens = tokens;
    return *this;
}

AgentBuilder& AgentBuilder::withOutputSchema(nlohmann::json schema) {
    config_.outputSchema = std::move(schema);
    return *this;
}

AgentBuilder& AgentBuilder::withMaxOutputRetries(int retries) {
    config_.loop.maxOutputRetries = retries;
    return *this;
}

AgentBuilder& AgentBuilder::withAttachmentStore(std::shared_ptr<AttachmentStore> store,
                                                std::size_t inlineBelow) {
    config_.attachments = AttachmentStorage{std::move(store), inlineBelow};
    return *this;
}

AgentBuilder& AgentBuilder::withPrices(std::shared_ptr<const llm::PriceTable> prices) {
    config_.prices = std::move(prices);
    return *this;
}

AgentBuilder& AgentBuilder::withTelemetry(std::shared_ptr<telemetry::Telemetry> telemetry) {
    config_.telemetry = std::move(telemetry);
    return *this;
}

AgentBuilder& AgentBuilder::withBudget(RunBudget budget) {
    config_.budget = budget;
    return *this;
}

AgentBuilder& AgentBuilder::withContextWindow(std::int64_t tokens) {
    config_.contextWindow = tokens;
    return *this;
}

AgentBuilder& AgentBuilder::withCompaction(CompactionOptions options) {
    config_.compaction = std::move(options);
    return *this;
}

AgentBuilder& AgentBuilder::withoutCompaction() {
    config_.compaction.reset();
    return *this;
}

expected<Agent, AgentError> AgentBuilder::build() const {
    for (const auto& source : sources_) {
        if (source->opens()) {
            return fail(AgentError{AgentErrc::invalid_config,
                                   "tool source '" + source->name() +
                                       "' connects asynchronously (an MCP server): build the agent with "
                                       "co_await builder.buildAsync() (or runOnce)"});
        }
    }
    return assemble();
}

Task<expected<Agent, AgentError>> AgentBuilder::buildAsync() const {
    auto agent = assemble();
    if (!agent) {
        co_return agent;
    }
    auto state = agent->state_;
    auto opened = co_await openSources(state);
    if (!opened) {
        co_await closeSources(state);
        co_return fail(AgentError{AgentErrc::invalid_config,
                                  "the agent's tool sources did not all open: " + opened.error()});
    }
    co_return agent;
}

namespace {

// Checked: a cancelled run still ends with its result, and the agent is disposed after it.
Task<expected<RunResult, AgentError>> buildRunDispose(Task<expected<Agent, AgentError>> build,
                                                      std::string prompt) {
    auto agent = co_await std::move(build);
    if (!agent) {
        co_return fail(std::move(agent.error()));
    }
    RunResult result = co_await agent->run(std::move(prompt));
    co_await agent->dispose();
    co_return result;
}

}  // namespace

Task<expected<RunResult, AgentError>> AgentBuilder::runOnce(std::string prompt) const {
    co_return co_await withCheckedCancellation(buildRunDispose(buildAsync(), std::move(prompt)));
}

expected<Agent, AgentError> AgentBuilder::assemble() const {
    std::vector<std::string> problems = problems_;
    AgentConfig config = config_;
    const std::optional<llm::ProviderError>& providerError = providerError_;
    if (providerError) {
        problems.push_back("provider: " + providerError->message);
    } else if (!config.provider) {
        problems.push_back("no provider (none given, or a null one): call withProvider(...)");
    }
    const LoopOptions& loop = config_.loop;
    if (loop.maxIterations < 1) {
        problems.push_back("maxIterations must be at least 1 (got " + std::to_string(loop.maxIterations) +
                           ")");
    }
    if (loop.maxTokens && *loop.maxTokens < 1) {
        problems.push_back("maxTokens must be at least 1 (got " + std::to_string(*loop.maxTokens) + ")");
    }
    if (loop.maxOutputRetries < 0) {
        problems.push_back("maxOutputRetries must not be negative (got " +
                           std::to_string(loop.maxOutputRetries) + ")");
    }
    const RunBudget& budget = config_.budget;
    if (budget.maxTotalTokens && *budget.maxTotalTokens < 1) {
        problems.push_back("budget: maxTotalTokens must be at least 1 (got " +
                           std::to_string(*budget.maxTotalTokens) + ")");
    }
    if (budget.maxCost && !(*budget.maxCost > 0)) {
        problems.push_back("budget: maxCost must be positive (got " + std::to_string(*budget.maxCost) + ")");
    }
    if (budget.maxCost && !config_.prices) {
        problems.push_back("budget: maxCost needs a price table (withPrices) to count the cost");
    }
    if (budget.maxModelCalls && *budget.maxModelCalls < 1) {
        problems.push_back("budget: maxModelCalls must be at least 1 (got " +
                           std::to_string(*budget.maxModelCalls) + ")");
    }
    if (budget.maxToolCalls && *budget.maxToolCalls < 0) {
        problems.push_back("budget: maxToolCalls must not be negative (got " +
                           std::to_string(*budget.maxToolCalls) + ")");
    }
    if (const auto& compaction = config_.compaction) {
        if (!(compaction->threshold > 0 && compaction->threshold <= 1)) {
            problems.push_back("compaction: threshold must be a share of the window in (0, 1] (got " +
                               std::to_string(compaction->threshold) + ")");
        }
        if (!(compaction->target > 0 && compaction->target <= compaction->threshold)) {
            problems.push_back("compaction: target must be a share of the window in (0, threshold] (got " +
                               std::to_string(compaction->target) + ")");
        }
        if (compaction->replyReserve < 0) {
            problems.push_back("compaction: replyReserve must not be negative (got " +
                               std::to_string(compaction->replyReserve) + ")");
        }
        if (compaction->keepTurns < 0) {
            problems.push_back("compaction: keepTurns must not be negative (got " +
                               std::to_string(compaction->keepTurns) + ")");
        }
        for (std::size_t i = 0; i < compaction->strategies.size(); ++i) {
            if (!compaction->strategies[i]) {
                problems.push_back("compaction: strategy " + std::to_string(i + 1) + " is null");
            }
        }
    }
    if (config_.contextWindow && *config_.contextWindow < 1) {
        problems.push_back("the context window must be at least 1 token (got " +
                           std::to_string(*config_.contextWindow) + ")");
    }
    if (budget.maxDuration && budget.maxDuration->count() < 1) {
        problems.push_back("budget: maxDuration must be at least 1 ms (got " +
                           std::to_string(budget.maxDuration->count()) + " ms)");
    }
    std::optional<tools::SchemaValidator> output;
    if (!config_.outputSchema.is_null()) {
        if (auto compiled = tools::SchemaValidator::compile(config_.outputSchema)) {
            output = std::move(*compiled);
        } else {
            problems.push_back("output schema: " + compiled.error().message);
        }
    }
    if (loop.temperature && *loop.temperature < 0.0) {
        problems.push_back("temperature must not be negative (got " + std::to_string(*loop.temperature) +
                           ")");
    }
    const ToolSettings& settings = config_.toolSettings;
    if (settings.execution.maxParallel < 1) {
        problems.push_back("execution.maxParallel must be at least 1");
    }
    if (config_.toolSettings.execution.deferApproval && config_.approval) {
        problems.push_back(
            "both an approval handler and deferred approval are set: choose withApprovalHandler (decide "
            "during the run) or withDeferredApproval (pause the run for a decision)");
    }
    if (settings.resultCompression.budget < 1) {
        problems.push_back("resultCompression.budget must be at least 1 character");
    }
    if (settings.resultCompression.previewItems < 1) {
        problems.push_back("resultCompression.previewItems must be at least 1");
    }
    if (settings.workingMemory.byteBudget < 1) {
        problems.push_back("workingMemory.byteBudget must be at least 1 byte");
    }
    if (settings.transformLimits.timeout.count() <= 0) {
        problems.push_back("transformLimits.timeout must be positive");
    }
    if (settings.transformStageTimeout.count() <= 0) {
        problems.push_back("transformStageTimeout must be positive");
    }
    for (std::size_t i = 0; i < sources_.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            if (sources_[j]->name() == sources_[i]->name()) {
                problems.push_back("two tool sources are named '" + sources_[i]->name() +
                                   "'; names must be unique");
            }
        }
    }
    std::shared_ptr<memory::EpisodicStore> episodic;
    if (config_.memory) {
        episodic = config_.memory->store;
        if (!episodic) {
            if (auto opened = memory::EpisodicStore::open(config_.memory->path)) {
                episodic = std::make_shared<memory::EpisodicStore>(std::move(*opened));
            } else {
                problems.push_back("memory: " + opened.error().message);
            }
        }
    }

    // The sources' ready tools, asked for first: a source that has some enables tools (and `recall`).
    std::vector<std::pair<std::shared_ptr<tools::ToolSource>, std::vector<tools::Tool>>> ready;
    for (const auto& source : sources_) {
        auto made = source->tools();
        if (!made) {
            problems.push_back("tool source '" + source->name() + "': " + made.error().message);
            continue;
        }
        config.toolsEnabled = config.toolsEnabled || !made->empty();
        ready.emplace_back(source, std::move(*made));
    }
    auto state = std::make_shared<Agent::State>(std::move(config));
    state->episodic = std::move(episodic);
    state->output = std::move(output);
    if (state->output) {
        llm::OutputFormat format;
        if (const auto title = config_.outputSchema.find("title");
            title != config_.outputSchema.end() && title->is_string()) {
            format.name = title->get<std::string>();  // the provider falls back to "output" if unfit
        }
        format.schema = config_.outputSchema;
        state->outputFormat = std::make_shared<const llm::OutputFormat>(std::move(format));
    }
    if (config_.reasoning) {
        state->systemPrompt = reactGuidance();
        if (!config_.systemPrompt.empty()) {
            state->systemPrompt += "\n\n" + config_.systemPrompt;
        }
        // Registered first, so a user tool of the same name is reported as the duplicate.
        std::vector<tools::Tool> meta{finalAnswerTool()};
        if (config_.metaTools.taskComplete) {
            meta.push_back(taskCompleteTool());
        }
        if (config_.metaTools.contextStatus) {
            meta.push_back(contextStatusTool());
        }
        for (tools::Tool& tool : meta) {
            const std::string name = tool.definition.name;
            if (auto added = state->registry.add(std::move(tool)); !added) {
                problems.push_back("the " + name +
                                   " meta-tool could not be registered: " + added.error().describe());
            }
        }
    }
    if (state->output) {
        // Told in the system prompt as well: not every provider, model or schema lets the API constrain
        // the reply (`llm::OutputFormat`), and a model that reads the schema answers right more often.
        const std::string guide = detail::outputGuide(config_.outputSchema, config_.reasoning);
        state->systemPrompt += (state->systemPrompt.empty() ? "" : "\n\n") + guide;
    }
    if (state->config.toolsEnabled && settings.recall) {
        if (auto added = state->registry.add(recallTool(*state)); !added) {
            problems.push_back("the recall meta-tool could not be registered: " + added.error().describe());
        }
    }
    for (auto& [source, made] : ready) {
        if (!state->rollback) {
            state->rollback = source->rollback();
        }
        for (tools::Tool& tool : made) {
            // A tool given to the builder replaces a source's tool of the same name.
            const bool replaced = std::any_of(tools_.begin(), tools_.end(), [&](const tools::Tool& user) {
                return user.definition.name == tool.definition.name;
            });
            if (!replaced) {
                if (auto added = state->registry.add(std::move(tool)); !added) {
                    problems.push_back("tool source '" + source->name() + "': " + added.error().describe());
                }
            }
        }
    }
    state->sources = sources_;
    for (const tools::Tool& tool : tools_) {
        if (auto added = state->registry.add(tool); !added) {
            problems.push_back("tool '" + tool.definition.name + "': " + added.error().describe());
        }
    }

    state->toolsChanged();  // starts tool search when it should, and registers find for the find sources
    const auto find = state->registry.find(kFindTool);
    if (find && find->tool.definition.category != "meta" &&
        (config_.toolSearch.mode == ToolSearch::Mode::always || !config_.findSources.empty())) {
        problems.push_back(
            "a tool is named find, the name of the meta-tool that tool search and find sources need: rename "
            "the tool");
    }
    std::vector<std::string> kinds = {"tools", "memory", "episodes"};
    for (const auto& source : config_.findSources) {
        const std::string kind = source->kind();
        const bool wellFormed = !kind.empty() && std::all_of(kind.begin(), kind.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
        });
        if (!wellFormed) {
            problems.push_back("a find source's kind '" + kind + "' is not letters, digits and '-'");
        } else if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) {
            problems.push_back("two find sources, or a find source and find itself, share the kind '" + kind +
                               "'");
        }
        kinds.push_back(kind);
    }

    if (!problems.empty()) {
        std::string message = "the agent configuration has " + std::to_string(problems.size()) + " problem" +
                              (problems.size() == 1 ? "" : "s") + ":";
        for (std::size_t i = 0; i < problems.size(); ++i) {
            message +=
                " " + std::to_string(i + 1) + ") " + problems[i] + (i + 1 < problems.size() ? ";" : "");
        }
        return fail(AgentError{AgentErrc::invalid_config, std::move(message)});
    }
    for (const EventHandler& handler : handlers_) {
        state->subscribers.emplace(state->nextSubscription++, handler);
    }
    return Agent(std::move(state));
}

}  // namespace reagent::agent
