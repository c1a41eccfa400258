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
#include "partial_json.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/timeout.hpp"
#include "reagent/llm/context_window.hpp"
#include "recall_tool.hpp"
#include "result_stage.hpp"
#include "run_meta_tools.hpp"
#include "run_spending.hpp"

namespace reagent::agent {

namespace {

namespace asio = boost::asio;

// With an output schema: reports the answer's value as it grows (`PartialOutput`), only when it changed.
struct PartialReport {
    std::optional<nlohmann::json> reported;
    std::size_t healedAt = 0;

    // Healing parses the whole prefix: done when the text has grown by a sixteenth since the last time (and
    // for every delta of a short answer), so a long answer streamed in small pieces costs O(n), not O(n^2).
    bool due(std::size_t size) {
        if (size - healedAt < std::max<std::size_t>(1, healedAt / 16)) {
            return false;
        }
        healedAt = size;
        return true;
    }

    void report(RunEvents& events, int iteration, std::optional<nlohmann::json> value) {
        if (value && value != reported) {
            events.emit(PartialOutput{iteration, *value});
            reported = std::move(value);
        }
    }
};

// The answer given as the reply's text.
struct PartialText {
    detail::PartialJson text;
    PartialReport report;

    void add(RunEvents& events, int iteration, std::string_view delta) {
        text.feed(delta);
        if (report.due(text.size())) {
            report.report(events, iteration, text.heal());
        }
    }
};

// With reasoning, the answer given as `final-answer`'s arguments, {"output": "<the JSON text>"}: the
// arguments are healed, then the output's text so far.
struct PartialFinalAnswer {
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::size_t index = kNone;  // the final-answer call's position in the reply
    detail::PartialJson arguments;
    detail::PartialJson output;
    std::string outputFed;  // what `output` has been fed: a healed string only grows, so usually a prefix
    PartialReport report;

    void add(RunEvents& events, int iteration, const llm::StreamDelta& delta) {
        if (delta.kind == llm::StreamDelta::Kind::tool_call_start) {
            if (index == kNone && delta.toolName == kFinalAnswerTool) {
                index = delta.toolIndex;
            }
            return;
        }
        if (delta.toolIndex != index) {
            return;
        }
        arguments.feed(delta.text);
        if (!report.due(arguments.size())) {
            return;
        }
        const auto healed = arguments.heal();
        if (!healed || !healed->is_object()) {
            return;
        }
        const auto it = healed->find("output");
        if (it == healed->end()) {
            return;
        }
        if (!it->is_string()) {
            return;  // against the tool's schema: the call fails, and the model is told
        }
        const auto& text = it->get_ref<const std::string&>();
        if (text.compare(0, outputFed.size(), outputFed) != 0) {
            output = detail::PartialJson{};
            outputFed.clear();
        }
        output.feed(std::string_view(text).substr(outputFed.size()));
        outputFed = text;
        report.report(events, iteration, output.heal());
    }
};

// Turns provider deltas into agent events. The run's events outlive its model calls.
std::function<void(const llm::StreamDelta&)> streamDeltaSink(const std::shared_ptr<RunEvents>& events,
                                                             int iteration, bool structured, bool reasoning) {
    auto text = structured ? std::make_shared<PartialText>() : nullptr;
    auto answer = structured && reasoning ? std::make_shared<PartialFinalAnswer>() : nullptr;
    return [raw = events.get(), iteration, text, answer](const llm::StreamDelta& delta) {
        if (delta.kind == llm::StreamDelta::Kind::text) {
            raw->emit(TextDelta{iteration, delta.text});
            if (text) {
                text->add(*raw, iteration, delta.text);
            }
        } else {
            const bool start = delta.kind == llm::StreamDelta::Kind::tool_call_start;
            raw->emit(ToolCallDelta{iteration, delta.toolIndex, delta.toolCallId, delta.toolName,
                                    start ? std::string() : delta.text});
            if (answer) {
                answer->add(*raw, iteration, delta);
            }
        }
    };
}

// The small coroutine shell around the sans-io loop: it performs each action and reports back. Between
// steps it checks for cancellation so that a cancelled run still ends with a result.
Task<void> drive(std::shared_ptr<Agent::State> state, std::shared_ptr<RunEvents> events, ReactLoop* loop,
                 std::shared_ptr<std::vector<std::string>> warnings, RunResult* out, LoopAction action) {
    for (;;) {
        // A timer ends a run at its deadline; a step that comes after it (its timer not run yet) is not
        // taken.
        if (const auto& deadline = loop->ledger().deadline;
            deadline && !loop->done() && std::chrono::steady_clock::now() >= *deadline) {
            action = loop->onOutOfTime(detail::outOfTime(loop->ledger()));
        }
        if (auto* call = std::get_if<CallModel>(&action)) {
            if (isCancelled(co_await asio::this_coro::cancellation_state)) {
                action = loop->onCancelled();
                continue;
            }
            const int iteration = call->iteration;
            if (!call->rejectedOutput.empty()) {
                events->emit(
                    OutputRejected{iteration, loop->outputRetries(), std::move(call->rejectedOutput)});
            }
            llm::ModelRequest request = std::move(call->request);
            if (events->listening()) {
                // Only subscribers need the reply as it streams; without them the provider may skip it.
                request.onDelta =
                    streamDeltaSink(events, iteration, request.output != nullptr, state->config.reasoning);
                request.onRetry = [raw = events.get(), iteration](const llm::RetryNotice& notice) {
                    raw->emit(ModelRetrying{iteration, notice});
                };
                request.onThrottle = [raw = events.get(), iteration](const llm::ThrottleNotice& notice) {
                    raw->emit(ModelThrottled{iteration, notice});
                };
            }
            // The result records each move to a fallback provider, listened to or not.
            // Two pointers: small enough for std::function to hold without allocating, on every model call.
            // The call in flight is the loop's last (`iterations() - 1`).
            request.onFallback = [raw = events.get(), loop](const llm::FallbackNotice& notice) {
                const int current = loop->iterations() - 1;
                loop->noteFallback(ModelFallback{current, notice.from, notice.to, notice.error.describe()});
                raw->emit(ModelFellBack{current, notice.from, notice.to, notice.error});
            };
            auto reply = co_await state->config.provider->complete(std::move(request));
            if (isCancelled(co_await asio::this_coro::cancellation_state)) {
                loop->addUsage(reply ? reply->usage : reply.error().usage);
                action = loop->onCancelled();
                continue;
            }
            if (reply && events->listening()) {
                std::string model =
                    reply->model.empty() ? std::string(state->config.provider->model()) : reply->model;
                std::optional<double> cost;
                if (state->config.prices) {
                    cost = state->config.prices->cost(model, reply->usage);
                }
                events->emit(ModelResponded{iteration, reply->text, reply->toolCalls, reply->usage,
                                            std::move(model), cost});
            }
            action = loop->onModelReply(std::move(reply));
        } else if (auto* run = std::get_if<RunTools>(&action)) {
            if (isCancelled(co_await asio::this_coro::cancellation_state)) {
                action = loop->onCancelled();
                continue;
            }
            const int tripIndex = run->tripIndex;
            std::vector<tools::ToolCallRequest> calls = std::move(run->calls);
            auto transforms = takeTransforms(*state, calls);
            attachRunStatus(calls, *loop, state->workingMemory);
            const auto callEvents = events->callEvents();
            if (!loop->sessionState().is_object()) {
                loop->sessionState() = nlohmann::json::object();
            }
            for (tools::ToolCallRequest& call : calls) {
                call.events = callEvents;
                call.session = &loop->sessionState();  // the loop outlives the batch
                call.ledger = &loop->ledger();
            }
            auto records = co_await state->executor.execute(std::move(calls), tripIndex);
            if (isCancelled(co_await asio::this_coro::cancellation_state)) {
                processResultsNow(*state, *events, records, *warnings);
                action = loop->onCancelled(std::move(records));
                continue;
            }
            records =
                co_await processResults(state, events, std::move(records), std::move(transforms), warnings);
            if (isCancelled(co_await asio::this_coro::cancellation_state)) {
                action = loop->onCancelled(std::move(records));
                continue;
            }
            action = loop->onToolResults(std::move(records));
        } else if (auto* compact = std::get_if<Compact>(&action)) {
            if (isCancelled(co_await asio::this_coro::cancellation_state)) {
                action = loop->onCancelled();
                continue;
            }
            if (compact->countFirst) {
                // The API's exact count decides whether the estimate's compaction is needed at all.
                auto counting = state->config.provider->countTokens(loop->request());
                auto counted = co_await std::move(counting);
                if (isCancelled(co_await asio::this_coro::cancellation_state)) {
                    action = loop->onCancelled();
                    continue;
                }
                if (counted) {
                    action = loop->onCounted(*counted);
                    continue;
                }
                loop->noteCountFailed(counted.error().describe());
            }
            detail::CompactionPlan plan{
                compact->reason,
                compact->promptTokens,
                compact->target,
                loop->context().window,
                [loop](const llm::ModelRequest& request) { return loop->budgetRefusal(request); },
                loop->promptIndex()};
            auto compacting =
                detail::compactHistory(state, loop->messages(), plan,
                                       [loop](const llm::Usage& spent) { loop->chargeSideCall(spent); });
            detail::CompactionOutcome outcome = co_await std::move(compacting);
            if (isCancelled(co_await asio::this_coro::cancellation_state)) {
                action = loop->onCancelled();
                continue;
            }
            action =
                loop->onCompacted(std::move(outcome.messages), std::move(outcome.record), outcome.prompt);
            if (events->listening()) {
                events->emit(ContextCompacted{loop->context().compactions.back()});
            }
        } else if (auto* finish = std::get_if<Finish>(&action)) {
            *out = std::move(finish->result);
            if (loop->awaitingResults()) {
                out->state = loop->save();  // for Agent::resume
            }
            co_return;
        } else {
            *out = std::move(std::get<Fail>(action).result);
            co_return;
        }
    }
}

RunResult resultOf(LoopAction action) {
    if (auto* finish = std::get_if<Finish>(&action)) {
        return std::move(finish->result);
    }
    return std::move(std::get<Fail>(action).result);
}

// Nothing escapes a run: an exception from a component that broke its contract still yields a result
// holding everything the loop had recorded.
Task<RunResult> driveToEnd(std::shared_ptr<Agent::State> state, std::shared_ptr<RunEvents> events,
                           ReactLoop& loop, LoopAction first, std::chrono::steady_clock::time_point started) {
    auto warnings = std::make_shared<std::vector<std::string>>();
    // The result is written in place: a RunResult is large, and settling it by value would move it twice.
    RunResult result;
    auto driving = drive(state, events, &loop, warnings, &result, std::move(first));
    // Past its deadline the run is cancelled where it stands (drive ends the loop), then relabelled.
    const auto deadline = loop.ledger().deadline;
    // (Not `c ? co_await a : co_await b`: GCC 12 destroys such a conditional's result twice.)
    expected<void, EffectError> driven;
    if (deadline) {
        driven = co_await withTimeout(std::move(driving), *deadline - std::chrono::steady_clock::now());
    } else {
        driven = co_await settle(std::move(driving));
    }
    if (!driven && driven.error().code == EffectErrc::timeout) {
        if (!loop.done()) {
            result = resultOf(loop.onCancelled());
        }
        result.terminatedBy = TerminatedBy::budget_exceeded;
        result.errorMessage = detail::outOfTime(loop.ledger());
    } else if (!driven && !(driven.error().code == EffectErrc::cancelled && loop.done())) {
        // (A cancelled drive that ended the loop wrote the result itself.)
        const bool wasCancelled = driven.error().code == EffectErrc::cancelled;
        const std::string message = "unexpected exception during the run: " + driven.error().message;
        if (loop.done()) {
            result = RunResult{};
            result.terminatedBy = TerminatedBy::internal_error;
            result.errorMessage = message;
            result.messages = loop.messages();
            result.iterations = loop.iterations();
        } else {
            result = resultOf(wasCancelled ? loop.onCancelled() : loop.onInternalError(message));
        }
    }
    result.warnings = std::move(*warnings);
    result.duration =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
    events->emit(RunFinished{result.terminatedBy, result.iterations});
    co_return result;
}

// Sets the run's deadline: its own `maxDuration` from `started`, or its caller's deadline if earlier.
void setDeadline(detail::RunLedger& ledger, std::chrono::steady_clock::time_point started) {
    ledger.started = started;
    if (ledger.budget.maxDuration) {
        ledger.deadline = started + *ledger.budget.maxDuration;
    }
    const detail::RunLedger* caller = ledger.parent;
    if (caller != nullptr && caller->deadline && (!ledger.deadline || *caller->deadline < *ledger.deadline)) {
        ledger.deadline = caller->deadline;
        ledger.deadlineInherited = true;
    }
}

Task<RunResult> runAgent(std::shared_ptr<Agent::State> state, std::vector<llm::Message> history,
                         std::string prompt, RunOptions options) {
    const auto started = std::chrono::steady_clock::now();
    LoopConfig config = state->loopConfig(options.budget);
    if (options.parent != nullptr) {
        // A ledger from elsewhere (another library's runs) is not one this run can charge.
        config.parent = dynamic_cast<detail::RunLedger*>(options.parent);
    }
    if (options.counted) {
        config.countedMessages = options.counted->countedMessages;
        config.countedTokens = options.counted->countedTokens;
    }
    ReactLoop loop(std::move(config), std::move(history),
                   llm::Message::user(prompt, std::move(options.attachments)));
    setDeadline(loop.ledger(), started);
    if (options.sessionState.is_object()) {
        loop.sessionState() = std::move(options.sessionState);
    }
    auto events = RunEvents::make(state, std::move(options.onEvent));
    events->emit(RunStarted{std::move(prompt)});
    auto first = loop.start();
    auto run = driveToEnd(state, events, loop, std::move(first), started);
    co_return co_await std::move(run);
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

Task<expected<RunResult, AgentError>> resumeAgent(std::shared_ptr<Agent::State> state, nlohmann::json saved,
                                                  ResumeInput input) {
    const auto started = std::chrono::steady_clock::now();
    auto restored = ReactLoop::restore(state->loopConfig(input.budget), saved);
    if (!restored) {
        co_return fail(std::move(restored.error()));
    }
    ReactLoop loop = std::move(*restored);
    LoopAction first;
    if (loop.awaitingResults()) {
        auto resumed = loop.resume(std::move(input.results), std::move(input.decisions));
        if (!resumed) {
            co_return fail(std::move(resumed.error()));
        }
        first = std::move(*resumed);
    } else if (loop.done()) {
        co_return fail(AgentError{AgentErrc::invalid_state, "cannot resume the run: it has already ended"});
    } else if (!input.results.empty() || !input.decisions.empty()) {
        co_return fail(
            AgentError{AgentErrc::invalid_state,
                       "results or decisions were supplied, but the saved run was not waiting for any"});
    } else {
        first = loop.proceed();
    }
    setDeadline(loop.ledger(), started);
    auto events = RunEvents::make(state, std::move(input.onEvent));
    events->emit(RunStarted{promptOf(loop)});
    auto run = driveToEnd(state, events, loop, std::move(first), started);
    co_return co_await std::move(run);
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
    auto events = std::shared_ptr<RunEvents>(new RunEvents(std::move(state), std::move(onEvent)));
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

llm::ToolList Agent::State::offeredTools() const {
    if (offered_) {
        return *offered_;
    }
    std::vector<llm::ToolSpec> specs;
    if (config.toolsEnabled || config.reasoning) {
        for (const auto& registered : registry.all()) {
            const tools::ToolDefinition& definition = registered->tool.definition;
            specs.push_back(llm::ToolSpec{definition.name, definition.description, definition.inputSchema});
        }
    }
    offered_.emplace(std::move(specs));
    return *offered_;
}

std::optional<std::int64_t> Agent::State::contextWindow() const {
    if (config.contextWindow || !config.provider) {
        return config.contextWindow;
    }
    return llm::publishedContextWindow(config.provider->model());
}

LoopConfig Agent::State::loopConfig(const std::optional<RunBudget>& budget) const {
    LoopConfig loop;
    loop.systemPrompt = systemPrompt;
    loop.tools = offeredTools();
    loop.options = config.loop;
    loop.output = output;
    loop.outputFormat = outputFormat;
    loop.attachments = config.attachments;
    loop.prices = config.prices;
    loop.budget = budget ? *budget : config.budget;
    if (config.provider) {
        loop.model = std::string(config.provider->model());
    }
    loop.contextWindow = contextWindow();
    loop.compaction = compaction;
    if (loop.budget.maxTotalTokens || loop.budget.maxCost || loop.contextWindow) {
        loop.toolCharacters = offeredToolCharacters();
    }
    return loop;
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
    return runAgent(state_, {}, std::move(prompt), RunOptions{});
}

Task<RunResult> Agent::run(std::vector<llm::Message> history, std::string prompt) const {
    return runAgent(state_, std::move(history), std::move(prompt), RunOptions{});
}

Task<RunResult> Agent::run(std::string prompt, RunOptions options) const {
    return runAgent(state_, {}, std::move(prompt), std::move(options));
}

Task<RunResult> Agent::run(std::vector<llm::Message> history, std::string prompt, RunOptions options) const {
    return runAgent(state_, std::move(history), std::move(prompt), std::move(options));
}

expected<void, tools::ToolError> Agent::registerTool(tools::Tool tool) const {
    auto added = state_->registry.add(std::move(tool));
    if (added) {
        state_->toolsChanged();
        // Registering a tool means it should be offered, even on an agent built without withTools().
        state_->config.toolsEnabled = true;
        if (state_->config.toolSettings.recall && !state_->registry.find(kRecallTool)) {
            (void)state_->registry.add(recallTool(*state_));
        }
    }
    return added;
}

bool Agent::unregisterTool(std::string_view name) const {
    const bool meta =
        state_->config.reasoning &&
        (name == kFinalAnswerTool || (state_->config.metaTools.taskComplete && name == kTaskCompleteTool) ||
         (state_->config.metaTools.contextStatus && name == kContextStatusTool));
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
