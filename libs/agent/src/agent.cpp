#include <algorithm>
#include <any>
#include <boost/asio/cancellation_state.hpp>
#include <boost/asio/this_coro.hpp>
#include <chrono>
#include <exception>
#include <functional>
#include <utility>
#include <variant>

#include "agent_state.hpp"
#include "compaction_run.hpp"
#include "find_tool.hpp"
#include "partial_json.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/timeout.hpp"
#include "reagent/llm/context_window.hpp"
#include "recall_tool.hpp"
#include "result_stage.hpp"
#include "run_driver.hpp"
#include "run_meta_tools.hpp"
#include "run_spending.hpp"

namespace reagent::agent {

namespace {

namespace asio = boost::asio;

// What `Agent::run` was given, in one allocation that `startRun` consumes: as the coroutine's arguments it
// would take room in the frame of every waiting run.
struct RunInput {
    std::vector<llm::Message> history;
    std::string prompt;
    RunOptions options;
};

// Builds the run out of line: the coroutine below then holds a pointer, not the loop's construction's
// temporaries (see run_driver.cpp).
REAGENT_OUT_OF_FRAME std::unique_ptr<detail::RunContext> startRun(
    const std::shared_ptr<Agent::State>& state, std::unique_ptr<RunInput> input,
    std::chrono::steady_clock::time_point started) {
    std::vector<llm::Message>& history = input->history;
    std::string& prompt = input->prompt;
    RunOptions& options = input->options;
    LoopRun own{options.budget};
    if (options.parent != nullptr) {
        // A ledger from elsewhere (another library's runs) is not one this run can charge.
        own.parent = dynamic_cast<detail::RunLedger*>(options.parent);
    }
    if (options.counted) {
        own.countedMessages = options.counted->countedMessages;
        own.countedTokens = options.counted->countedTokens;
    }
    auto run = std::make_unique<detail::RunContext>(
        state, RunEvents::make(state, std::move(options.onEvent)), state->sharedLoopConfig(), own,
        std::move(history), llm::Message::user(std::move(prompt), std::move(options.attachments)));
    detail::setDeadline(run->loop.ledger(), started);
    if (state->config.telemetry) {
        run->trace = std::make_unique<detail::RunTrace>(state->config.telemetry, *state, options.traceParent,
                                                        std::move(options.conversationId));
    }
    if (options.sessionState.is_object()) {
        run->loop.sessionState() = std::move(options.sessionState);
    }
    run->journal = std::move(options.journal);
    if (run->events->listening()) {
        run->events->emit(RunStarted{run->loop.messages()[run->loop.promptIndex()].text});
    }
    detail::advance(*run, run->loop.start());
    return run;
}

Task<RunResult> runAgent(std::shared_ptr<Agent::State> state, std::unique_ptr<RunInput> input) {
    const auto started = std::chrono::steady_clock::now();
    const auto run = startRun(state, std::move(input), started);
    const auto driven = co_await detail::driveToEnd(*run);
    co_return std::move(detail::finishRun(*run, driven, started));
}

// The prompt a saved run started from (its first user message), for the RunStarted event.
std::string promptOf(const ReactLoop& loop) {
    for (const llm::Message& message : loop.messages()) {
        if (message.role == llm::Role::user) {
            return message.text;
        }
    }
    return {};
}

// The restored run, at the step it resumes from; or why it cannot resume.
REAGENT_OUT_OF_FRAME expected<std::unique_ptr<detail::RunContext>, AgentError> restoreRun(
    const std::shared_ptr<Agent::State>& state, const nlohmann::json& saved, ResumeInput& input,
    std::chrono::steady_clock::time_point started) {
    auto restored = ReactLoop::restore(state->sharedLoopConfig(), LoopRun{input.budget}, saved);
    if (!restored) {
        return fail(std::move(restored.error()));
    }
    auto run = std::make_unique<detail::RunContext>(state, RunEvents::make(state, std::move(input.onEvent)),
                                                    std::move(*restored));
    ReactLoop& loop = run->loop;
    run->journal = std::move(input.journal);
    // Kept for the trace (the loop takes them): a refused call shows there.
    std::vector<ApprovalDecision> decisions;
    if (state->config.telemetry) {
        decisions = input.decisions;
    }
    if (loop.awaitingResults()) {
        auto resumed = loop.resume(std::move(input.results), std::move(input.decisions));
        if (!resumed) {
            return fail(std::move(resumed.error()));
        }
        detail::advance(*run, std::move(*resumed));
    } else if (loop.done()) {
        return fail(AgentError{AgentErrc::invalid_state, "cannot resume the run: it has already ended"});
    } else if (!input.results.empty() || !input.decisions.empty()) {
        return fail(
            AgentError{AgentErrc::invalid_state,
                       "results or decisions were supplied, but the saved run was not waiting for any"});
    } else {
        detail::advance(*run, loop.proceed());
    }
    detail::setDeadline(loop.ledger(), started);
    if (state->config.telemetry) {
        run->trace = std::make_unique<detail::RunTrace>(state->config.telemetry, *state, input.traceParent,
                                                        input.conversationId);
        run->trace->resumedWith(decisions);
    }
    if (run->events->listening()) {
        run->events->emit(RunStarted{promptOf(loop)});
    }
    return run;
}

Task<expected<RunResult, AgentError>> resumeAgent(std::shared_ptr<Agent::State> state, nlohmann::json saved,
                                                  ResumeInput input) {
    const auto started = std::chrono::steady_clock::now();
    auto run = restoreRun(state, saved, input, started);
    if (!run) {
        co_return fail(std::move(run.error()));
    }
    const auto driven = co_await detail::driveToEnd(**run);
    co_return std::move(detail::finishRun(**run, driven, started));
}

Task<expected<std::string, AgentError>> rollbackWorkspace(std::shared_ptr<Agent::State> state,
                                                          std::string checkpointId) {
    if (!state->rollback) {
        co_return fail(AgentError{AgentErrc::invalid_config,
                                  "this agent has no workspace to roll back: give the built-in tools one "
                                  "(reagent::ToolsConfig::workspace), or add a tool source with a rollback"});
    }
    auto restore = state->rollback(std::move(checkpointId));
    auto restored = co_await std::move(restore);
    if (!restored) {
        co_return fail(AgentError{AgentErrc::rollback_failed, restored.error().message});
    }
    co_return std::move(*restored);
}

// Settled: a caller already cancelled skips the hooks, as disposeAll does once cancelled.
Task<void> disposeTools(std::shared_ptr<Agent::State> state) {
    (void)co_await settle(state->executor.disposeAll());
    co_await withCheckedCancellation(closeSources(state));
}

// Tool events come from the executor; subscribers see them as agent events.
AgentEvent toAgentEvent(const tools::ToolEvent& event) {
    return std::visit([](const auto& alternative) { return AgentEvent{alternative}; }, event);
}

}  // namespace

Agent::State::State(AgentConfig agentConfig)
    : config(std::move(agentConfig)),
      systemPrompt(config.systemPrompt),
      workingMemory(config.toolSettings.workingMemory),
      executor(registry, config.toolSettings.execution) {
    executor.setApprovalHandler(config.approval);
    // The executor lives inside this State, so the raw pointer never outlives it.
    if (config.compaction) {
        auto options = std::make_shared<CompactionOptions>(*config.compaction);
        if (options->strategies.empty()) {
            options->strategies = {clearToolResults(), summarizeTurns(), dropOldestTurns()};
        }
        compaction = std::move(options);
    }
}

std::shared_ptr<RunEvents> RunEvents::make(std::shared_ptr<Agent::State> state, EventHandler onEvent) {
    // One allocation for the events and their count (the constructor is protected: a derived type makes it).
    struct Made : RunEvents {
        Made(std::shared_ptr<Agent::State> s, EventHandler h) : RunEvents(std::move(s), std::move(h)) {}
    };
    std::shared_ptr<RunEvents> events = std::make_shared<Made>(std::move(state), std::move(onEvent));
    events->self_ = events;
    return events;
}

std::shared_ptr<const tools::CallEvents> RunEvents::callEvents() {
    if (!listening()) {
        return nullptr;
    }
    if (!calls_) {
        // Weak: the calls' sinks may be copied into tasks that outlive the run (a tool's stray report).
        tools::CallEvents calls;
        calls.sink = [weak = self_](const tools::ToolEvent& event) {
            if (const auto run = weak.lock()) {
                run->emit(toAgentEvent(event));
            }
        };
        calls.relay = [weak = self_](const std::string& callId, const std::string& tool, int tripIndex,
                                     std::any event) {
            const auto run = weak.lock();
            auto* inner = std::any_cast<AgentEvent>(&event);
            if (run && inner != nullptr) {
                run->emit(
                    SubAgentEvent{callId, tool, tripIndex,
                                  std::make_shared<const AgentEventBox>(AgentEventBox{std::move(*inner)})});
            }
        };
        calls_ = std::make_shared<const tools::CallEvents>(std::move(calls));
    }
    return calls_;
}

void RunEvents::emit(const AgentEvent& event) const {
    state_->emit(event);
    if (onEvent_) {
        (void)settleCall(onEvent_, event);  // observers must not be able to break a run
    }
}

void Agent::State::emit(const AgentEvent& event) const {
    if (subscribers.empty()) {
        return;
    }
    // A copy: a handler may subscribe or unsubscribe while being called.
    const auto handlers = subscribers;
    for (const auto& [id, handler] : handlers) {
        (void)settleCall(handler, event);  // observers must not be able to break a run
    }
}

namespace {

// Offered whatever the search: the meta-tools, the skill index and the tools the user named.
bool isCoreTool(const tools::ToolDefinition& definition, const ToolSearch& search) {
    return definition.category == "meta" || definition.name == "skill" ||
           std::find(search.core.begin(), search.core.end(), definition.name) != search.core.end();
}

}  // namespace

bool Agent::State::searchesTools() const {
    const auto find = registry.find(kFindTool);
    return find && find->tool.definition.category == "meta" &&
           config.toolSearch.mode != ToolSearch::Mode::off &&
           (config.toolSearch.mode == ToolSearch::Mode::always ||
            registry.size() - 1 > config.toolSearch.threshold);
}

void Agent::State::toolsChanged() {
    offered_.reset();
    onDemand_ = {};
    offeredCharacters_ = -1;
    loop_.reset();
    const bool enabled = config.toolsEnabled || config.reasoning;
    const ToolSearch& search = config.toolSearch;
    const bool wanted =
        enabled && (search.mode == ToolSearch::Mode::always ||
                    (search.mode == ToolSearch::Mode::automatic &&
                     registry.size() - (registry.find(kFindTool) ? 1 : 0) > search.threshold));
    const auto find = registry.find(kFindTool);
    if ((wanted || !config.findSources.empty()) && enabled && !find) {
        (void)registry.add(findTool(*this, wanted));  // a user's own "find" keeps its name: search stays off
    } else if (wanted && find && find->tool.definition.category == "meta" &&
               find->tool.definition.description != findTool(*this, true).definition.description) {
        // Registered for the find sources before tool search started: now it tells the model to search.
        registry.remove(kFindTool);
        (void)registry.add(findTool(*this, true));
    }
}

void Agent::State::partitionTools() const {
    std::vector<llm::ToolSpec> offered;
    std::vector<llm::ToolSpec> onDemand;
    if (config.toolsEnabled || config.reasoning) {
        const bool search = searchesTools();
        for (const auto& registered : registry.all()) {
            const tools::ToolDefinition& definition = registered->tool.definition;
            llm::ToolSpec spec{definition.name, definition.description, definition.inputSchema};
            if (!search || isCoreTool(definition, config.toolSearch)) {
                offered.push_back(std::move(spec));
            } else {
                onDemand.push_back(std::move(spec));
            }
        }
    }
    offered_.emplace(std::move(offered));
    onDemand_ = llm::ToolList(std::move(onDemand));
}

llm::ToolList Agent::State::offeredTools() const {
    if (!offered_) {
        partitionTools();
    }
    return *offered_;
}

llm::ToolList Agent::State::onDemandTools() const {
    if (!offered_) {
        partitionTools();
    }
    return onDemand_;
}

std::optional<std::int64_t> Agent::State::contextWindow() const {
    if (config.contextWindow || !config.provider) {
        return config.contextWindow;
    }
    return llm::publishedContextWindow(config.provider->model());
}

std::shared_ptr<const LoopConfig> Agent::State::sharedLoopConfig() const {
    if (loop_) {
        return loop_;
    }
    LoopConfig loop;
    loop.systemPrompt = systemPrompt;
    loop.tools = offeredTools();
    loop.onDemand = onDemandTools();
    loop.options = config.loop;
    loop.output = output;
    loop.outputFormat = outputFormat;
    loop.attachments = config.attachments;
    loop.prices = config.prices;
    loop.budget = config.budget;
    if (config.provider) {
        loop.model = std::string(config.provider->model());
    }
    loop.contextWindow = contextWindow();
    loop.compaction = compaction;
    loop.handOverAtEnd = true;                      // a run's driver reads the result only
    loop.toolCharacters = offeredToolCharacters();  // measured once, for the runs' estimates
    loop_ = std::make_shared<const LoopConfig>(std::move(loop));
    return loop_;
}

std::int64_t Agent::State::offeredToolCharacters() const {
    if (offeredCharacters_ < 0) {
        offeredCharacters_ = detail::toolDeclarationCharacters(offeredTools());  // once per tool list
    }
    return offeredCharacters_;
}

expected<nlohmann::json, AgentError> Agent::structuredAnswer(const RunResult& result) {
    if (auto error = result.error()) {
        return fail(std::move(*error));
    }
    if (result.structuredOutput.is_null()) {
        return fail(AgentError{AgentErrc::invalid_config,
                               "runAs needs an output schema: build the agent with withOutput<T>() (or "
                               "withOutputSchema)"});
    }
    return result.structuredOutput;
}

Agent::Agent(std::shared_ptr<State> state) : state_(std::move(state)) {}

Task<RunResult> Agent::run(std::string prompt) const {
    return runAgent(state_, std::make_unique<RunInput>(RunInput{{}, std::move(prompt), RunOptions{}}));
}

Task<RunResult> Agent::run(std::vector<llm::Message> history, std::string prompt) const {
    return runAgent(
        state_, std::make_unique<RunInput>(RunInput{std::move(history), std::move(prompt), RunOptions{}}));
}

Task<RunResult> Agent::run(std::string prompt, RunOptions options) const {
    return runAgent(state_, std::make_unique<RunInput>(RunInput{{}, std::move(prompt), std::move(options)}));
}

Task<RunResult> Agent::run(std::vector<llm::Message> history, std::string prompt, RunOptions options) const {
    return runAgent(state_, std::make_unique<RunInput>(
                                RunInput{std::move(history), std::move(prompt), std::move(options)}));
}

expected<void, tools::ToolError> Agent::registerTool(tools::Tool tool) const {
    auto added = state_->registry.add(std::move(tool));
    if (added) {
        // Registering a tool means it should be offered, even on an agent built without withTools().
        state_->config.toolsEnabled = true;
        if (state_->config.toolSettings.recall && !state_->registry.find(kRecallTool)) {
            (void)state_->registry.add(recallTool(*state_));
        }
        state_->toolsChanged();
    }
    return added;
}

bool Agent::unregisterTool(std::string_view name) const {
    const auto find = name == kFindTool ? state_->registry.find(kFindTool) : nullptr;
    const bool meta =
        (state_->config.reasoning &&
         (name == kFinalAnswerTool || (state_->config.metaTools.taskComplete && name == kTaskCompleteTool) ||
          (state_->config.metaTools.contextStatus && name == kContextStatusTool))) ||
        (find && find->tool.definition.category == "meta");
    if (meta || (state_->config.toolSettings.recall && name == kRecallTool)) {
        return false;
    }
    const bool removed = state_->registry.remove(name);
    if (removed) {
        state_->toolsChanged();
    }
    return removed;
}

std::vector<llm::ToolSpec> Agent::toolSpecs() const {
    return state_->offeredTools().specs();
}

std::vector<tools::ToolDefinition> Agent::toolDefinitions() const {
    std::vector<tools::ToolDefinition> definitions;
    for (const auto& registered : state_->registry.all()) {
        definitions.push_back(registered->tool.definition);
    }
    return definitions;
}

SubscriptionId Agent::subscribe(EventHandler handler) const {
    const SubscriptionId id = state_->nextSubscription++;
    state_->subscribers.emplace(id, std::move(handler));
    return id;
}

void Agent::unsubscribe(SubscriptionId id) const {
    state_->subscribers.erase(id);
}

memory::WorkingMemory& Agent::workingMemory() const noexcept {
    return state_->workingMemory;
}

std::shared_ptr<memory::EpisodicStore> Agent::episodicMemory() const noexcept {
    return state_->episodic;
}

const AgentConfig& Agent::config() const noexcept {
    return state_->config;
}

std::optional<std::int64_t> Agent::contextWindow() const {
    return state_->contextWindow();
}

Task<expected<RunResult, AgentError>> Agent::resume(nlohmann::json state,
                                                    std::vector<ExternalResult> results) const {
    ResumeInput input;
    input.results = std::move(results);
    return resumeAgent(state_, std::move(state), std::move(input));
}

Task<expected<RunResult, AgentError>> Agent::resumeWith(nlohmann::json state, ResumeInput input) const {
    return resumeAgent(state_, std::move(state), std::move(input));
}

Task<expected<std::string, AgentError>> Agent::rollback(std::string checkpointId) const {
    return rollbackWorkspace(state_, std::move(checkpointId));
}

Task<void> Agent::dispose() const {
    return disposeTools(state_);
}

}  // namespace reagent::agent
