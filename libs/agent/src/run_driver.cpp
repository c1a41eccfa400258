#include "run_driver.hpp"

#include <algorithm>
#include <boost/asio/this_coro.hpp>
#include <chrono>
#include <functional>
#include <utility>
#include <variant>

#include "compaction_run.hpp"
#include "partial_json.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/timeout.hpp"
#include "result_stage.hpp"
#include "run_journaling.hpp"
#include "run_meta_tools.hpp"
#include "run_spending.hpp"

namespace reagent::agent::detail {

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

// The steps below are coroutines: their work with large values (an action, a reply, a batch) is done by
// these helpers, out of their frames (`REAGENT_OUT_OF_FRAME`).

// The stream callbacks and the fallback note of one model call. The fallback note is wired whether or not
// anyone listens: the result records each move to a fallback provider.
REAGENT_OUT_OF_FRAME void wireCallbacks(RunContext& run, CallModel& call) {
    const int iteration = call.iteration;
    if (!call.rejectedOutput.empty()) {
        if (run.trace) {
            run.trace->outputRejected(run.loop.outputRetries(), call.rejectedOutput.size());
        }
        run.events->emit(OutputRejected{iteration, run.loop.outputRetries(), std::move(call.rejectedOutput)});
    }
    llm::ModelRequest& request = call.request;
    RunEvents* events = run.events.get();
    if (events->listening()) {
        // Only subscribers need the reply as it streams; without them the provider may skip it.
        request.onDelta =
            streamDeltaSink(run.events, iteration, request.output != nullptr, run.state->config.reasoning);
        request.onRetry = [events, iteration](const llm::RetryNotice& notice) {
            events->emit(ModelRetrying{iteration, notice});
        };
        request.onThrottle = [events, iteration](const llm::ThrottleNotice& notice) {
            events->emit(ModelThrottled{iteration, notice});
        };
    }
    // Two pointers: small enough for std::function to hold without allocating, on every model call.
    // The call in flight is the loop's last (`iterations() - 1`).
    request.onFallback = [events, loop = &run.loop](const llm::FallbackNotice& notice) {
        const int current = loop->iterations() - 1;
        loop->noteFallback(ModelFallback{current, notice.from, notice.to, notice.error.describe()});
        events->emit(ModelFellBack{current, notice.from, notice.to, notice.error});
    };
    if (run.trace) {
        run.trace->modelCallStarting(request, iteration);
    }
}

REAGENT_OUT_OF_FRAME Task<expected<llm::ModelReply, llm::ProviderError>> startModelCall(RunContext& run,
                                                                                        CallModel& call) {
    wireCallbacks(run, call);
    auto task = run.state->config.provider->complete(std::move(call.request));
    run.next = std::monostate{};  // the reply decides the next step; the call is not needed while it waits
    return task;
}

// `replayed`: the reply comes from the run's journal, not from a call made now (nothing to trace).
REAGENT_OUT_OF_FRAME void onReply(RunContext& run, int iteration,
                                  expected<llm::ModelReply, llm::ProviderError>& reply,
                                  bool replayed = false) {
    if (run.trace && !replayed) {
        run.trace->modelCallEnded(reply);
    }
    if (reply && run.events->listening()) {
        const llm::Provider& provider = *run.state->config.provider;
        std::string model = reply->model.empty() ? std::string(provider.model()) : reply->model;
        std::optional<double> cost;
        if (run.state->config.prices) {
            cost = run.state->config.prices->cost(model, reply->usage);
        }
        run.events->emit(
            ModelResponded{iteration, reply->text, reply->toolCalls, reply->usage, std::move(model), cost});
    }
    advance(run, run.loop.onModelReply(std::move(reply)));
}

// The driver saw the run cancelled; `reply` (the model call's, if it came back) is billed all the same.
REAGENT_OUT_OF_FRAME void onCancelled(RunContext& run,
                                      const expected<llm::ModelReply, llm::ProviderError>* reply = nullptr) {
    if (reply != nullptr) {
        run.loop.addUsage(*reply ? (*reply)->usage : reply->error().usage);
        if (run.trace) {
            run.trace->modelCallEnded(*reply);
        }
    }
    advance(run, run.loop.onCancelled());
}

REAGENT_OUT_OF_FRAME void onOutOfTime(RunContext& run) {
    advance(run, run.loop.onOutOfTime(outOfTime(run.loop.ledger())));
}

// The batch as the executor takes it: transforms taken out, the run's status, events, session and ledger
// attached.
REAGENT_OUT_OF_FRAME std::vector<tools::ToolCallRequest> prepareBatch(
    RunContext& run, std::vector<std::optional<TransformRequest>>& transforms) {
    std::vector<tools::ToolCallRequest> calls = std::move(std::get<RunTools>(run.next).calls);
    transforms = takeTransforms(*run.state, calls);
    attachRunStatus(calls, run.status);
    const auto callEvents = run.events->callEvents();
    if (!run.loop.sessionState().is_object()) {
        run.loop.sessionState() = nlohmann::json::object();
    }
    for (tools::ToolCallRequest& call : calls) {
        call.events = callEvents;
        call.session = &run.loop.sessionState();  // the loop outlives the batch
        call.ledger = &run.loop.ledger();
    }
    if (run.journal) {
        attachJournal(run, calls, std::get<RunTools>(run.next).tripIndex);
    }
    if (run.trace) {
        run.trace->toolCallsStarting(calls);
    }
    return calls;
}

REAGENT_OUT_OF_FRAME Task<std::vector<tools::ToolCallRecord>> startBatch(
    RunContext& run, std::vector<std::optional<TransformRequest>>& transforms) {
    const int tripIndex = std::get<RunTools>(run.next).tripIndex;
    return run.state->executor.execute(prepareBatch(run, transforms), tripIndex);
}

// The batch's records once the executor returned them; `waited`: the result stage has run already.
REAGENT_OUT_OF_FRAME void onBatchDone(RunContext& run, std::vector<tools::ToolCallRecord>& records,
                                      bool cancelled, bool waited) {
    if (!waited) {
        processResultsNow(*run.state, *run.events, records, run.warnings);
    }
    if (run.trace) {
        run.trace->toolCallsEnded(records);
    }
    if (!run.journalFailure.empty() && !cancelled) {
        // A record not journaled: the run stops here, and whoever holds it next runs that call again.
        advance(run, run.loop.onInternalError(run.journalFailure));
        return;
    }
    advance(run, cancelled ? run.loop.onCancelled(std::move(records))
                           : run.loop.onToolResults(std::move(records)));
}

// The compactions so far: the loop's, or the result's once the loop ended (its record moved there).
const std::vector<Compaction>& compactionsOf(const RunContext& run) {
    return run.result ? run.result->context.compactions : run.loop.context().compactions;
}

REAGENT_OUT_OF_FRAME Task<expected<std::int64_t, llm::ProviderError>> startCount(RunContext& run) {
    return run.state->config.provider->countTokens(run.loop.request());
}

REAGENT_OUT_OF_FRAME void onCounted(RunContext& run, std::int64_t tokens) {
    advance(run, run.loop.onCounted(tokens));
}

// `calls`, when given, gets what each summary call spent (for the journal).
REAGENT_OUT_OF_FRAME Task<CompactionOutcome> startCompaction(RunContext& run,
                                                             std::vector<llm::Usage>* calls) {
    const Compact& compact = std::get<Compact>(run.next);
    ReactLoop* loop = &run.loop;
    CompactionPlan plan{compact.reason,
                        compact.promptTokens,
                        compact.target,
                        loop->context().window,
                        [loop](const llm::ModelRequest& request) { return loop->budgetRefusal(request); },
                        loop->promptIndex()};
    return compactHistory(run.state, loop->messages(), std::move(plan),
                          [loop, calls](const llm::Usage& spent) {
                              loop->chargeSideCall(spent);
                              if (calls != nullptr) {
                                  calls->push_back(spent);
                              }
                          });
}

REAGENT_OUT_OF_FRAME void onCompacted(RunContext& run, CompactionOutcome& outcome) {
    advance(run,
            run.loop.onCompacted(std::move(outcome.messages), std::move(outcome.record), outcome.prompt));
    if (run.trace && !compactionsOf(run).empty()) {
        run.trace->compacted(compactionsOf(run).back());
    }
    if (run.events->listening() && !compactionsOf(run).empty()) {
        run.events->emit(ContextCompacted{compactionsOf(run).back()});
    }
}

// Each step is a coroutine of its own, so that a suspended run holds the frame of the step it is in only.
// Between steps the driver checks for cancellation, so that a cancelled run still ends with a result.

Task<void> modelStep(RunContext& run) {
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        onCancelled(run);
        co_return;
    }
    auto& call = *std::get<std::unique_ptr<CallModel>>(run.next);
    const int iteration = call.iteration;
    if (run.journal) {
        if (auto replayed = replayedReply(run, iteration)) {
            run.next = std::monostate{};
            onReply(run, iteration, *replayed, true);
            co_return;
        }
    }
    auto reply = co_await startModelCall(run, call);  // `call` is gone once the provider has the request
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        onCancelled(run, &reply);
        co_return;
    }
    if (run.journal) {
        const bool kept = co_await journalReply(run, iteration, reply);
        if (!kept) {
            run.loop.addUsage(reply ? reply->usage : reply.error().usage);
            advance(run, run.loop.onInternalError(run.journalFailure));
            co_return;
        }
    }
    onReply(run, iteration, reply);
}

Task<void> toolsStep(RunContext& run) {
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        onCancelled(run);
        co_return;
    }
    std::vector<std::optional<TransformRequest>> transforms;
    auto records = co_await startBatch(run, transforms);
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        onBatchDone(run, records, true, false);
        co_return;
    }
    const bool waiting = resultsNeedWaiting(*run.state, records, transforms);
    bool cancelled = false;
    if (waiting) {
        records = co_await processResults(run.state, run.events, std::move(records), std::move(transforms),
                                          run.warnings);
        cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
    }
    onBatchDone(run, records, cancelled, waiting);
}

Task<void> compactStep(RunContext& run) {
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        onCancelled(run);
        co_return;
    }
    const std::size_t index = compactionsOf(run).size();
    if (run.journal) {
        if (auto replayed = replayedCompaction(run, index)) {
            for (const llm::Usage& spent : replayed->second) {
                run.loop.chargeSideCall(spent);
            }
            onCompacted(run, replayed->first);
            co_return;
        }
    }
    if (std::get<Compact>(run.next).countFirst) {
        // The API's exact count decides whether the estimate's compaction is needed at all.
        auto counted = co_await startCount(run);
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            onCancelled(run);
            co_return;
        }
        if (counted) {
            onCounted(run, *counted);
            co_return;
        }
        run.loop.noteCountFailed(counted.error().describe());
    }
    std::vector<llm::Usage> calls;
    auto outcome = co_await startCompaction(run, run.journal ? &calls : nullptr);
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        onCancelled(run);
        co_return;
    }
    if (run.journal) {
        const bool kept = co_await journalCompaction(run, index, outcome, calls);
        if (!kept) {
            advance(run, run.loop.onInternalError(run.journalFailure));
            co_return;
        }
    }
    onCompacted(run, outcome);
}

Task<void> drive(RunContext& run) {
    for (;;) {
        // A timer ends a run at its deadline; a step that comes after it (its timer not run yet) is not
        // taken.
        if (const auto& deadline = run.loop.ledger().deadline;
            deadline && !run.loop.done() && std::chrono::steady_clock::now() >= *deadline) {
            onOutOfTime(run);
        }
        if (std::holds_alternative<std::unique_ptr<CallModel>>(run.next)) {
            co_await modelStep(run);
        } else if (std::holds_alternative<RunTools>(run.next)) {
            co_await toolsStep(run);
        } else if (std::holds_alternative<Compact>(run.next)) {
            co_await compactStep(run);
        } else {
            co_return;  // the loop ended
        }
    }
}

}  // namespace

void advance(RunContext& run, LoopAction action) {
    if (auto* call = std::get_if<CallModel>(&action)) {
        run.next = std::make_unique<CallModel>(std::move(*call));
    } else if (auto* batch = std::get_if<RunTools>(&action)) {
        run.next = std::move(*batch);
    } else if (auto* compact = std::get_if<Compact>(&action)) {
        run.next = *compact;
    } else if (auto* finish = std::get_if<Finish>(&action)) {
        run.result = std::make_unique<RunResult>(std::move(finish->result));
        if (run.loop.awaitingResults()) {
            run.result->state = run.loop.save();  // for Agent::resume
        }
        run.next = std::monostate{};
    } else {
        run.result = std::make_unique<RunResult>(std::move(std::get<Fail>(action).result));
        run.next = std::monostate{};
    }
}

namespace {

// How the drive ended when it did not end by itself: past the deadline, cancelled, or by an exception from a
// component that broke its contract. Every way yields a result holding what the loop had recorded.
REAGENT_OUT_OF_FRAME void onDriveFailed(RunContext& run, const EffectError& error) {
    if (error.code == EffectErrc::timeout) {
        // Past its deadline the run was cancelled where it stood, and is relabelled.
        if (!run.loop.done()) {
            advance(run, run.loop.onCancelled());
        }
        run.result->terminatedBy = TerminatedBy::budget_exceeded;
        run.result->errorMessage = outOfTime(run.loop.ledger());
        return;
    }
    if (error.code == EffectErrc::cancelled && run.loop.done()) {
        return;  // a cancelled drive that ended the loop wrote the result itself
    }
    const std::string message = "unexpected exception during the run: " + error.message;
    if (!run.loop.done()) {
        advance(run, error.code == EffectErrc::cancelled ? run.loop.onCancelled()
                                                         : run.loop.onInternalError(message));
    } else {
        // The loop had ended: its result stays, marked by what went wrong after.
        run.result->terminatedBy = TerminatedBy::internal_error;
        run.result->errorMessage = message;
    }
}

}  // namespace

Task<expected<void, EffectError>> driveToEnd(RunContext& run) {
    if (const auto deadline = run.loop.ledger().deadline) {
        return withTimeout(drive(run), *deadline - std::chrono::steady_clock::now());
    }
    return settle(drive(run));
}

RunResult& finishRun(RunContext& run, const expected<void, EffectError>& driven,
                     std::chrono::steady_clock::time_point started) {
    if (!driven) {
        onDriveFailed(run, driven.error());
    }
    RunResult& result = *run.result;
    result.warnings = std::move(run.warnings);
    result.duration =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
    if (run.trace) {
        run.trace->finished(result);
    }
    run.events->emit(RunFinished{result.terminatedBy, result.iterations});
    return result;
}

void setDeadline(RunLedger& ledger, std::chrono::steady_clock::time_point started) {
    ledger.started = started;
    if (ledger.budget.maxDuration) {
        ledger.deadline = started + *ledger.budget.maxDuration;
    }
    const RunLedger* caller = ledger.parent;
    if (caller != nullptr && caller->deadline && (!ledger.deadline || *caller->deadline < *ledger.deadline)) {
        ledger.deadline = caller->deadline;
        ledger.deadlineInherited = true;
    }
}

}  // namespace reagent::agent::detail
