#include "reagent/tools/tool_executor.hpp"

#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <utility>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/event.hpp"
#include "reagent/core/parallel.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/timeout.hpp"

namespace reagent::tools {

namespace asio = boost::asio;
using nlohmann::json;
using SteadyClock = std::chrono::steady_clock;
using SystemClock = std::chrono::system_clock;

struct ToolExecutor::InitGate {
    explicit InitGate(std::shared_ptr<const RegisteredTool> t, Executor ex)
        : tool(std::move(t)), wakeup(ex) {}
    std::shared_ptr<const RegisteredTool> tool;
    // Waiters wait for it; the initialiser sets it (for good) when `init` has finished.
    Event wakeup;
    bool running = true;
    std::optional<ToolError> failure;
};

namespace {

std::string milliseconds(std::chrono::milliseconds limit) {
    return std::to_string(limit.count()) + " ms";
}

Task<ToolResult> rethrown(std::exception_ptr error) {
    std::rethrow_exception(error);
    co_return ToolResult{};
}

// The handler's task. A handler that throws before returning one gives a task that throws the same, so that
// it is contained like any other exception (by `withTimeout`). A plain call, not a coroutine around it: that
// would be one more frame on every tool call. The caller holds the tool alive until the task is done.
Task<ToolResult> handlerTask(const RegisteredTool& tool, json args, ToolContext context) {
    try {
        return tool.tool.handler(std::move(args), std::move(context));
    } catch (...) {
        return rethrown(std::current_exception());
    }
}

// A free coroutine holding the tool alive: a hook that throws before its first suspension is contained like
// any other exception, and unregistering the tool meanwhile is harmless.
Task<expected<void, ToolError>> runHook(std::shared_ptr<const RegisteredTool> tool, bool dispose) {
    auto task = dispose ? tool->tool.dispose() : tool->tool.init();
    co_return co_await std::move(task);
}

ToolError fromEffect(const EffectError& error, const std::string& tool, std::chrono::milliseconds limit) {
    switch (error.code) {
        case EffectErrc::timeout:
            return {ToolErrc::timeout, "tool " + tool + " timed out after " + milliseconds(limit)};
        case EffectErrc::cancelled:
            return {ToolErrc::cancelled, "tool " + tool + " was cancelled"};
        case EffectErrc::exception: {
            ToolError thrown{ToolErrc::exception, "tool " + tool + " threw: " + error.message};
            thrown.cause = std::make_shared<const ErrorCause>(ErrorCause{"exception", {}, error.message});
            return thrown;
        }
    }
    return {ToolErrc::failed, error.message};
}

// A coroutine of its own, so that a handler that throws before returning its task is settled too.
Task<bool> decide(ApprovalHandler approve, ToolCallRequest request, ToolDefinition definition) {
    co_return co_await approve(std::move(request), std::move(definition));
}

// Returns the refusal, if any. An approval handler that throws counts as a refusal.
Task<std::optional<ToolError>> askApproval(ApprovalHandler approve, ToolCallRequest request,
                                           ToolDefinition definition) {
    const std::string name = definition.name;
    if (!approve) {
        co_return ToolError{ToolErrc::approval_unavailable,
                            "refused: tool " + name + " requires approval and no approval handler is set"};
    }
    auto decision = settle(decide(std::move(approve), std::move(request), std::move(definition)));
    const auto approved = co_await std::move(decision);
    if (!approved && approved.error().code == EffectErrc::cancelled) {
        co_return ToolError{ToolErrc::cancelled, "tool " + name + " was cancelled while awaiting approval"};
    }
    if (!approved) {
        co_return ToolError{ToolErrc::approval_denied, "refused: the approval check for tool " + name +
                                                           " failed: " + approved.error().message};
    }
    if (!*approved) {
        co_return ToolError{ToolErrc::approval_denied,
                            "refused: the call to tool " + name + " was not approved"};
    }
    co_return std::nullopt;
}

// Whether this call asks for approval: a tool's rule may let the calls it knows to be harmless through.
bool needsApproval(const ToolDefinition& definition, const json& args) {
    if (!definition.requiresApproval || !definition.approvalRule) {
        return definition.requiresApproval;
    }
    try {
        return definition.approvalRule(args);
    } catch (...) {
        return true;
    }
}

std::string actionText(const ToolDefinition& definition, const json& args) {
    if (!definition.action) {
        return {};
    }
    // A progress text for people is not worth failing a call over.
    auto text = settleCall(definition.action, args);
    return text ? std::move(*text) : std::string();
}

// Reverse order, like destructors: a tool set up later may depend on one set up earlier. Shutting
// down, a failing dispose hook is not worth reporting; once cancelled, the remaining hooks do not start.
Task<void> disposeEach(std::vector<std::shared_ptr<const RegisteredTool>> tools) {
    for (auto it = tools.rbegin(); it != tools.rend(); ++it) {
        if ((*it)->tool.dispose) {
            auto hook = runHook(*it, true);
            (void)co_await withTimeout(std::move(hook), (*it)->tool.definition.timeout);
        }
    }
}

void emit(const ToolEventSink* sink, const ToolEvent& event) {
    if (sink != nullptr) {
        (void)settleCall(*sink, event);  // a faulty observer must not break the run
    }
}

// The error of a batch's call that never started because the batch was cancelled.
ToolError notStartedInBatch() {
    return {ToolErrc::cancelled, "cancelled before it started"};
}

std::string availableTools(const ToolRegistry& registry) {
    std::string names;
    for (const auto& entry : registry.all()) {
        names += (names.empty() ? "" : ", ") + entry->tool.definition.name;
    }
    return names.empty() ? "no tools are registered" : "available tools: " + names;
}

}  // namespace

ToolExecutor::ToolExecutor(const ToolRegistry& registry, ExecutionPolicy policy)
    : registry_(&registry), policy_(std::move(policy)) {}

void ToolExecutor::setApprovalHandler(ApprovalHandler handler) {
    approval_ = std::move(handler);
}

void ToolExecutor::setEventSink(ToolEventSink sink) {
    sink_ = std::move(sink);
}

bool ToolExecutor::isSideEffect(const ToolDefinition& definition) const {
    if (definition.sideEffect) {
        return true;
    }
    for (const auto& prefix : policy_.sideEffectPrefixes) {
        if (!prefix.empty() && definition.name.compare(0, prefix.size(), prefix) == 0) {
            return true;
        }
    }
    return false;
}

bool ToolExecutor::runsAlone(const ToolCallRequest& call) const {
    const auto tool = registry_->find(call.name);
    return tool && isSideEffect(tool->tool.definition);
}

const ToolEventSink* ToolExecutor::sinkFor(const ToolCallRequest& call) const {
    if (call.events) {
        return call.events->sink ? &call.events->sink : nullptr;
    }
    return sink_ ? &sink_ : nullptr;
}

ToolCallRecord ToolExecutor::notStarted(const ToolCallRequest& call, int tripIndex, ToolError error) const {
    ToolCallRecord record;
    record.id = call.id;
    record.tripIndex = tripIndex;
    record.name = call.name;
    record.input = call.arguments;
    if (const auto tool = registry_->find(call.name)) {
        record.mode = tool->tool.definition.mode;
    }
    record.startedAt = SystemClock::now();
    record.endedAt = record.startedAt;
    error.tool = call.name;
    error.tripIndex = tripIndex;
    record.outcome = fail(error);
    if (const ToolEventSink* sink = sinkFor(call)) {
        emit(sink,
             ToolFailed{record.id, record.name, record.input, std::move(error), tripIndex, record.duration});
    }
    return record;
}

Task<expected<void, ToolError>> ToolExecutor::ensureInitialised(std::shared_ptr<const RegisteredTool> tool) {
    const std::string& name = tool->tool.definition.name;
    for (const auto& done : initialised_) {
        if (done == tool) {
            co_return expected<void, ToolError>{};
        }
    }
    if (!tool->tool.init) {
        // Nothing to run; remembering the tool lets `disposeAll` run its `dispose` hook.
        initialised_.push_back(tool);
        co_return expected<void, ToolError>{};
    }

    std::shared_ptr<InitGate> gate;
    for (const auto& pending : initGates_) {
        if (pending->tool == tool) {
            gate = pending;
        }
    }
    if (gate) {
        // Another call is running `init`: share its outcome instead of running it twice.
        while (gate->running) {
            if (isCancelled(co_await asio::this_coro::cancellation_state)) {
                co_return fail(
                    ToolError{ToolErrc::cancelled, "tool " + name + " was cancelled during its init"});
            }
            (void)co_await gate->wakeup.wait(asio::use_awaitable);
        }
        if (gate->failure) {
            co_return fail(*gate->failure);
        }
        co_return expected<void, ToolError>{};
    }

    Executor executor = co_await asio::this_coro::executor;
    gate = std::make_shared<InitGate>(tool, std::move(executor));
    initGates_.push_back(gate);
    auto hook = runHook(tool, false);
    const auto outcome = co_await withTimeout(std::move(hook), tool->tool.definition.timeout);

    std::optional<ToolError> failure;
    if (!outcome) {
        failure = outcome.error().code == EffectErrc::cancelled
                      ? ToolError{ToolErrc::cancelled, "tool " + name + " was cancelled during its init"}
                      : ToolError{ToolErrc::init_failed,
                                  "tool " + name + " failed to initialise: " + outcome.error().message};
    } else if (!*outcome) {
        failure = ToolError{ToolErrc::init_failed,
                            "tool " + name + " failed to initialise: " + outcome->error().message,
                            outcome->error().details};
        // The hook's own cause (an A2A or MCP error, say) is the original error; else the hook's error is.
        failure->cause = outcome->error().cause
                             ? outcome->error().cause
                             : std::make_shared<const ErrorCause>(outcome->error().asCause());
    }
    gate->failure = failure;
    if (!failure) {
        initialised_.push_back(tool);
    }
    gate->running = false;
    gate->wakeup.set();
    std::erase(initGates_, gate);
    if (failure) {
        co_return fail(std::move(*failure));
    }
    co_return expected<void, ToolError>{};
}

// One call in progress. Its work with large values (errors, the context, the record's events) is done by
// these members, out of `runCall`'s frame (`REAGENT_OUT_OF_FRAME`), which holds this, the values it awaits,
// and no record (the caller's).
struct ToolExecutor::Call {
    ToolExecutor& executor;
    ToolCallRequest& request;
    ToolCallRecord& record;
    int tripIndex = 0;
    SteadyClock::time_point clockStart{};
    const ToolEventSink* sink = nullptr;
    std::shared_ptr<const RegisteredTool> tool{};

    // Every path ends here: the record is completed and the matching event emitted.
    REAGENT_OUT_OF_FRAME void finish(ToolResult outcome) {
        if (!outcome) {
            // One error shape for every failure of a call: it names the tool and the turn it failed in.
            outcome.error().tool = record.name;
            outcome.error().tripIndex = tripIndex;
        }
        record.outcome = std::move(outcome);
        record.endedAt = SystemClock::now();
        record.duration =
            std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - clockStart);
        if (sink == nullptr) {
            return;
        }
        if (record.outcome) {
            emit(sink, ToolCalled{record});
        } else {
            emit(sink, ToolFailed{record.id, record.name, record.input, record.outcome.error(), tripIndex,
                                  record.duration});
        }
    }

    REAGENT_OUT_OF_FRAME void refuse(ToolErrc code, std::string message) {
        finish(fail(ToolError{code, std::move(message)}));
    }

    void cancelled() { refuse(ToolErrc::cancelled, "tool " + request.name + " was cancelled"); }

    // The record begun, the tool found, the arguments checked (defaults filled in); false: refused, the
    // record is complete.
    REAGENT_OUT_OF_FRAME bool admit() {
        clockStart = SteadyClock::now();
        record.id = request.id;
        record.tripIndex = tripIndex;
        record.name = request.name;
        record.input = std::move(request.arguments);  // the call is ours: its arguments are the record's
        record.startedAt = SystemClock::now();
        sink = executor.sinkFor(request);
        tool = executor.registry_->find(request.name);
        if (!tool) {
            refuse(ToolErrc::unknown_tool,
                   "unknown tool '" + request.name + "'; " + availableTools(*executor.registry_));
            return false;
        }
        record.mode = tool->tool.definition.mode;
        if (request.argumentsProblem) {
            refuse(ToolErrc::invalid_arguments,
                   "tool " + request.name + ": " + *request.argumentsProblem +
                       "; send the call again with complete, valid JSON arguments");
            return false;
        }
        auto args = tool->validator.validate(record.input);
        if (!args) {
            auto invalid = std::move(args.error());
            invalid.cause = std::make_shared<const ErrorCause>(
                ErrorCause{"schema", "validation", invalid.message, invalid.details});
            finish(fail(std::move(invalid)));
            return false;
        }
        record.input = std::move(*args);
        return true;
    }

    REAGENT_OUT_OF_FRAME bool needsApproval() const {
        return !request.preApproved &&
               (reagent::tools::needsApproval(tool->tool.definition, record.input) || interrupted());
    }

    // Not idempotent, and an earlier attempt of the run stopped while it ran: it may have had its effect.
    [[nodiscard]] bool interrupted() const {
        return request.journal && request.journal->interrupted && !tool->tool.definition.idempotent;
    }

    // A tool that is not idempotent journals its start before its handler runs; false: refused.
    [[nodiscard]] bool journalsStart() const {
        return request.journal && request.journal->begin && !tool->tool.definition.idempotent;
    }

    Task<bool> journalStart() {
        const bool kept = co_await request.journal->begin();
        if (!kept) {
            refuse(ToolErrc::failed,
                   "tool " + request.name + " did not run: the run's journal refused to record its start");
        }
        co_return kept;
    }

    // Asks the approval handler, or defers to the run's caller; false: refused, the record is complete. A
    // call cut off earlier always defers: a person, who can look at what it did, decides.
    Task<bool> approve() {
        if (executor.policy_.deferApproval || interrupted()) {
            refuse(ToolErrc::approval_pending,
                   interrupted()
                       ? "tool " + request.name +
                             " is not idempotent and was running when an earlier attempt of the run "
                             "stopped, so it may have had its effect: the run pauses until its "
                             "caller approves running it again or refuses this call"
                       : "tool " + request.name +
                             " requires approval: the run pauses until its caller approves or "
                             "refuses this call");
            co_return false;
        }
        auto asking = askApproval(executor.approval_, ToolCallRequest{request.id, request.name, record.input},
                                  tool->tool.definition);
        auto refusal = co_await std::move(asking);
        if (refusal) {
            finish(fail(std::move(*refusal)));
            co_return false;
        }
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            cancelled();
            co_return false;
        }
        co_return true;
    }

    // False: declaration-only, refused. Otherwise `ToolCalling` is emitted.
    REAGENT_OUT_OF_FRAME bool executable() {
        if (!tool->tool.executable()) {
            refuse(ToolErrc::not_executable,
                   "tool " + request.name + " is declaration-only: its caller executes it");
            return false;
        }
        // Events are built only when someone listens: they copy the arguments and the record.
        if (sink != nullptr) {
            emit(sink, ToolCalling{record.id, record.name, record.input, tripIndex,
                                   actionText(tool->tool.definition, record.input)});
        }
        return true;
    }

    [[nodiscard]] bool initialised() const {
        return std::find(executor.initialised_.begin(), executor.initialised_.end(), tool) !=
               executor.initialised_.end();
    }

    // Runs the tool's `init` (once per executor); false: it failed, the record is complete.
    Task<bool> initialise() {
        auto ready = co_await executor.ensureInitialised(tool);
        if (!ready) {
            finish(fail(std::move(ready.error())));
            co_return false;
        }
        co_return true;
    }

    REAGENT_OUT_OF_FRAME Task<expected<ToolResult, EffectError>> startHandler(Executor ex) {
        const ToolDefinition& definition = tool->tool.definition;
        auto context = ToolContext{request.id, definition.name, tripIndex, std::move(ex), &record.artifacts};
        context.runStatus = request.runStatus;
        context.session = request.session;
        context.ledger = request.ledger;
        context.trace = request.trace;
        if (request.journal) {
            context.idempotencyKey = &request.journal->idempotencyKey;
        }
        context.content = &record.content;
        context.structured = &record.structured;
        if (request.channel) {
            context.request = request.channel->request;
            context.notify = request.channel->notify;
        }
        if (request.events && request.events->relay) {
            context.relay = [relay = request.events->relay, id = request.id, name = definition.name,
                             trip = tripIndex](std::any event) { relay(id, name, trip, std::move(event)); };
        }
        if (sink != nullptr) {
            // A copy of the sink: a handler may report until its task completes, and the call's request
            // (and the executor, for its own sink) outlive that, but the copy needs neither.
            context.progress = [progressSink = *sink, id = request.id, name = definition.name,
                                trip = tripIndex](const ToolProgress& value) {
                emit(&progressSink, ToolProgressed{id, name, trip, value});
            };
        }
        return withTimeout(handlerTask(*tool, record.input, std::move(context)), definition.timeout);
    }

    REAGENT_OUT_OF_FRAME void handled(expected<ToolResult, EffectError>& outcome) {
        const ToolDefinition& definition = tool->tool.definition;
        if (!outcome) {
            finish(fail(fromEffect(outcome.error(), definition.name, definition.timeout)));
        } else {
            finish(std::move(*outcome));
        }
    }
};

// A driver that checks for cancellation after each step that may suspend (approval, init), so that no
// await of it throws; each step settles what is not ours. The call's arguments move to `record`; both stay
// put until the task is done.
Task<void> ToolExecutor::runCall(ToolCallRequest& request, int tripIndex, ToolCallRecord& record) {
    if (request.journal && request.journal->recorded) {
        record = *request.journal->recorded;  // journaled by an earlier attempt of the run: not run again
        co_return;
    }
    Call call{*this, request, record, tripIndex};
    if (!call.admit()) {
        co_return;
    }
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        call.cancelled();
        co_return;
    }
    if (call.needsApproval()) {
        const bool approved = co_await call.approve();
        if (!approved) {
            co_return;
        }
    }
    if (!call.executable()) {
        co_return;
    }
    // A tool already set up (the usual case) costs no coroutine here.
    if (!call.initialised()) {
        const bool ready = co_await call.initialise();
        if (!ready) {
            co_return;
        }
    }
    if (call.journalsStart()) {
        const bool started = co_await call.journalStart();
        if (!started) {
            co_return;
        }
    }
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        call.cancelled();
        co_return;
    }
    Executor executor = co_await asio::this_coro::executor;
    auto outcome = co_await call.startHandler(std::move(executor));
    call.handled(outcome);
    if (request.journal && request.journal->record) {
        co_await request.journal->record(record);
    }
}

Task<ToolCallRecord> ToolExecutor::executeOne(ToolCallRequest call, int tripIndex) {
    ToolCallRecord record;
    co_await runCall(call, tripIndex, record);
    co_return record;
}

std::size_t ToolExecutor::segmentEnd(const std::vector<ToolCallRequest>& calls, std::size_t first) const {
    // A segment is one side-effect call, or a run of consecutive calls that may overlap.
    std::size_t end = first + 1;
    if (!runsAlone(calls[first])) {
        while (end < calls.size() && !runsAlone(calls[end])) {
            ++end;
        }
    }
    return end;
}

void ToolExecutor::recordNotStarted(const std::vector<ToolCallRequest>& calls, int tripIndex,
                                    std::vector<ToolCallRecord>& records) const {
    for (std::size_t i = records.size(); i < calls.size(); ++i) {
        records.push_back(notStarted(calls[i], tripIndex, notStartedInBatch()));
    }
}

// Calls that may overlap, at most `maxParallel` at a time; their records appended in call order.
Task<void> ToolExecutor::runSegment(const std::vector<ToolCallRequest>& calls, std::size_t first,
                                    std::size_t end, int tripIndex, std::vector<ToolCallRecord>& records) {
    std::vector<ToolCallRequest> segment(calls.begin() + static_cast<std::ptrdiff_t>(first),
                                         calls.begin() + static_cast<std::ptrdiff_t>(end));
    auto run = [this, tripIndex](ToolCallRequest& call) { return executeOne(call, tripIndex); };
    auto mapped = parallelMap(std::move(segment), policy_.maxParallel, run);
    auto results = co_await std::move(mapped);
    for (std::size_t i = 0; i < results.size(); ++i) {
        if (results[i]) {
            records.push_back(std::move(*results[i]));
        } else if (results[i].error().code == EffectErrc::exception) {
            auto error = ToolError{ToolErrc::exception, results[i].error().message};
            records.push_back(notStarted(calls[first + i], tripIndex, std::move(error)));
        } else {
            records.push_back(notStarted(calls[first + i], tripIndex, notStartedInBatch()));
        }
    }
}

// The batch's driver holds little while a call runs: each call runs into its place in `records` (reserved
// here, so that it stays put), and the rarer paths are functions of their own.
Task<std::vector<ToolCallRecord>> ToolExecutor::execute(std::vector<ToolCallRequest> calls, int tripIndex) {
    std::vector<ToolCallRecord> records;
    records.reserve(calls.size());
    std::size_t next = 0;
    while (next < calls.size()) {
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            break;
        }
        const std::size_t end = segmentEnd(calls, next);
        if (end - next == 1) {
            records.emplace_back();
            co_await runCall(calls[next], tripIndex, records.back());
        } else {
            co_await runSegment(calls, next, end, tripIndex, records);
        }
        next = end;
    }
    recordNotStarted(calls, tripIndex, records);  // calls never started because the batch was cancelled
    co_return records;
}

Task<void> ToolExecutor::disposeAll() {
    return withCheckedCancellation(disposeEach(std::exchange(initialised_, {})));
}

}  // namespace reagent::tools
