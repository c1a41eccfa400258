#include "result_stage.hpp"

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <utility>

#include "agent_state.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/parallel.hpp"
#include "reagent/core/timeout.hpp"
#include "reagent/memory/result_compressor.hpp"
#include "reagent/transform/jq_transform.hpp"
#include "tool_attachments.hpp"

namespace reagent::agent {

namespace {

constexpr const char* kTransformArgument = "_transform";

bool isMetaTool(const std::string& name) {
    return name == kFinalAnswerTool || name == kRecallTool || name == kFindTool;  // find bounds its own
}

// Whether the stage may change what the model reads for this record.
bool condensable(const tools::ToolCallRecord& record) {
    return record.succeeded() && record.mode == tools::ToolMode::feedback && !isMetaTool(record.name);
}

// One episode to log and how a warning about it names the call.
struct PendingEpisode {
    memory::Episode episode;
    std::string call;
};

// Whether the agent logs its tool results as episodes (`withMemory`, `logToolResults`).
bool logsToolResults(const Agent::State& state) {
    return state.episodic && state.config.memory && state.config.memory->logToolResults;
}

// Whether a call's record becomes an episode when the agent logs its tool results: the meta-tools' do not.
bool loggedAsEpisode(const tools::ToolCallRecord& record) {
    return !isMetaTool(record.name);
}

std::vector<PendingEpisode> episodesOf(const Agent::State& state,
                                       const std::vector<tools::ToolCallRecord>& records) {
    std::vector<PendingEpisode> pending;
    if (!logsToolResults(state)) {
        return pending;
    }
    for (const tools::ToolCallRecord& record : records) {
        if (!loggedAsEpisode(record)) {
            continue;
        }
        PendingEpisode item;
        item.episode.action = record.succeeded() ? "tool_call" : "tool_error";
        item.episode.tool = record.name;
        item.episode.input = record.input.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        item.episode.result = record.succeeded() ? *record.outcome : record.outcome.error().describe();
        item.episode.timestamp = record.endedAt;
        if (record.succeeded() && !record.content.empty()) {
            std::string notes;  // what could not be kept is in the result the model read already
            item.episode.attachments = detail::attachmentsOf(record.content, notes);
        }
        item.call = "tool call " + record.id + " (" + record.name + ")";
        pending.push_back(std::move(item));
    }
    return pending;
}

void warn(const RunEvents& events, std::vector<std::string>& warnings, const PendingEpisode& item,
          const std::string& why) {
    std::string message = item.call + " was not logged to episodic memory: " + why;
    events.emit(MemoryWarning{message});
    warnings.push_back(std::move(message));
}

// Tries each of `pending[from..]` once, never waiting for a lock; `context` explains a busy file.
void logWithoutWaiting(const Agent::State& state, const RunEvents& events,
                       const std::vector<PendingEpisode>& pending, std::size_t from,
                       std::vector<std::string>& warnings, const std::string& context) {
    for (std::size_t i = from; i < pending.size(); ++i) {
        auto recorded = state.episodic->record(pending[i].episode, std::chrono::milliseconds(0));
        if (!recorded) {
            const bool busy = recorded.error().code == memory::MemoryErrc::busy;
            warn(events, warnings, pending[i],
                 recorded.error().describe() + (busy ? context : std::string()));
        }
    }
}

// Logs the episodes, sleeping asynchronously (never blocking the io thread) while another connection
// holds the file's lock, up to the store's busy timeout per episode. Cancellation ends the sleep; what
// is left is then tried once without waiting.
Task<void> logEpisodes(std::shared_ptr<Agent::State> state, std::shared_ptr<const RunEvents> events,
                       std::vector<PendingEpisode> pending, std::vector<std::string>& warnings) {
    namespace asio = boost::asio;
    using std::chrono::steady_clock;
    asio::steady_timer timer(co_await asio::this_coro::executor);
    for (std::size_t i = 0; i < pending.size(); ++i) {
        const auto deadline = steady_clock::now() + memory::EpisodicStore::kBusyTimeout;
        auto recorded = state->episodic->record(pending[i].episode, std::chrono::milliseconds(0));
        for (int attempt = 0; !recorded && recorded.error().code == memory::MemoryErrc::busy; ++attempt) {
            const auto left = deadline - steady_clock::now();
            if (left <= steady_clock::duration::zero()) {
                break;
            }
            if (isCancelled(co_await asio::this_coro::cancellation_state)) {
                logWithoutWaiting(*state, *events, pending, i, warnings,
                                  " (the run was cancelled while it waited)");
                co_return;
            }
            const std::chrono::milliseconds step(attempt < 5 ? 1 << attempt : 50);
            timer.expires_after(std::min<steady_clock::duration>(step, left));
            auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
            if (ec) {
                logWithoutWaiting(*state, *events, pending, i, warnings,
                                  " (the run was cancelled while it waited)");
                co_return;
            }
            recorded = state->episodic->record(pending[i].episode, std::chrono::milliseconds(0));
        }
        if (!recorded) {
            const bool busy = recorded.error().code == memory::MemoryErrc::busy;
            warn(*events, warnings, pending[i],
                 recorded.error().describe() + (busy ? " (still locked after the busy timeout)" : ""));
        }
    }
}

// Puts `shown` in place of the record's output, telling subscribers what was condensed.
void replaceOutput(const RunEvents& events, tools::ToolCallRecord& record, memory::CompressedResult shown,
                   std::size_t originalChars, std::string transformError) {
    ToolResultCompressed event;
    event.callId = record.id;
    event.tool = record.name;
    event.key = shown.key;
    event.originalChars = originalChars;
    event.shownChars = memory::characterCount(shown.preview);
    event.transform = record.transform.value_or(std::string());
    event.transformError = std::move(transformError);
    record.memoryKey = std::move(shown.key);
    record.outcome = std::move(shown.preview);
    events.emit(event);
}

// Compresses an oversized output into working memory; within budget it is left alone.
void compressRecord(Agent::State& state, const RunEvents& events, tools::ToolCallRecord& record) {
    if (!memory::exceedsBudget(*record.outcome, state.config.toolSettings.resultCompression)) {
        return;
    }
    const std::size_t originalChars = memory::characterCount(*record.outcome);
    auto shown = memory::compressAndStore(state.workingMemory, record.name, std::move(*record.outcome),
                                          state.config.toolSettings.resultCompression);
    replaceOutput(events, record, std::move(shown), originalChars, {});
}

// Where a recalled value already lives, so that a failed transform does not store it a second time.
std::string recalledKey(const tools::ToolCallRecord& record) {
    if (const auto episode = record.input.find("episode"); episode != record.input.end()) {
        return "episode " + episode->dump();
    }
    return record.input.value("key", std::string());
}

// The standard preview (or the output itself, when short) followed by why the transform failed.
void fallBack(Agent::State& state, const RunEvents& events, tools::ToolCallRecord& record,
              const std::string& error) {
    const std::size_t originalChars = memory::characterCount(*record.outcome);
    auto shown = record.name == kRecallTool
                     ? memory::compress(record.name, *record.outcome, recalledKey(record),
                                        state.config.toolSettings.resultCompression)
                     : memory::compressAndStore(state.workingMemory, record.name, std::move(*record.outcome),
                                                state.config.toolSettings.resultCompression);
    shown.preview += "\n[transform failed: " + error + " — showing the " +
                     (shown.compressed ? "standard preview" : "whole result") + " instead]";
    replaceOutput(events, record, std::move(shown), originalChars, error);
}

// A transform's output is what the model reads; when itself oversized, it is compressed like any result.
void useTransformed(Agent::State& state, const RunEvents& events, tools::ToolCallRecord& record,
                    std::string transformed) {
    const std::size_t originalChars = memory::characterCount(*record.outcome);
    auto shown = memory::compressAndStore(state.workingMemory, record.name, std::move(transformed),
                                          state.config.toolSettings.resultCompression);
    replaceOutput(events, record, std::move(shown), originalChars, {});
}

}  // namespace

std::vector<std::optional<TransformRequest>> takeTransforms(const Agent::State& state,
                                                            std::vector<tools::ToolCallRequest>& calls) {
    // Sized on the first `_transform`: most batches have none.
    std::vector<std::optional<TransformRequest>> transforms;
    if (!state.config.toolSettings.resultCompression.codeTransform) {
        return transforms;
    }
    for (std::size_t i = 0; i < calls.size(); ++i) {
        nlohmann::json& arguments = calls[i].arguments;
        if (!arguments.is_object() || calls[i].name == kFinalAnswerTool) {
            continue;
        }
        const auto it = arguments.find(kTransformArgument);
        if (it == arguments.end()) {
            continue;
        }
        TransformRequest request;
        if (it->is_string() && !it->get_ref<const std::string&>().empty()) {
            request.expression = it->get<std::string>();
        } else {
            request.expression = it->dump();
            request.problem = "_transform must be a non-empty string holding a jq expression";
        }
        arguments.erase(it);
        if (transforms.empty()) {
            transforms.resize(calls.size());
        }
        transforms[i] = std::move(request);
    }
    return transforms;
}

namespace {

// One `_transform` to evaluate; `outcome` stays empty when the stage's deadline or a cancellation
// stopped it before it finished.
struct PendingTransform {
    std::size_t record = 0;
    std::string expression;
    std::string input;
    std::optional<expected<std::string, transform::TransformError>> outcome;
};

Task<bool> evaluate(PendingTransform* pending, transform::JqLimits limits) {
    pending->outcome = co_await transform::applyJq(pending->expression, std::move(pending->input), limits);
    co_return true;
}

// Evaluates every pending transform, as many at once as tool calls may run, all within the stage's
// deadline: a reply with a hundred transforms costs at most that deadline, not a hundred jq timeouts.
// Returns why the stage stopped early, or an empty string when every transform finished.
Task<std::string> evaluateAll(std::vector<PendingTransform>& pending, const ToolSettings& settings) {
    std::vector<PendingTransform*> items;
    items.reserve(pending.size());
    for (PendingTransform& item : pending) {
        items.push_back(&item);
    }
    const transform::JqLimits limits = settings.transformLimits;
    auto evaluateOne = [limits](PendingTransform*& item) { return evaluate(item, limits); };
    auto mapped = parallelMap(std::move(items), settings.execution.maxParallel, evaluateOne);
    auto bounded = withTimeout(std::move(mapped), settings.transformStageTimeout);
    auto finished = co_await std::move(bounded);
    if (finished) {
        co_return std::string();
    }
    if (finished.error().code == EffectErrc::timeout) {
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(settings.transformStageTimeout);
        co_return "timeout: the transforms of this reply ran out of time (" + std::to_string(ms.count()) +
            " ms for all of them together) before this one finished";
    }
    co_return "cancelled: " + finished.error().message;
}

}  // namespace

Task<std::vector<tools::ToolCallRecord>> processResults(
    std::shared_ptr<Agent::State> state, std::shared_ptr<const RunEvents> events,
    std::vector<tools::ToolCallRecord> records, std::vector<std::optional<TransformRequest>> transforms,
    std::vector<std::string>& warnings) {
    auto episodes = episodesOf(*state, records);
    if (!episodes.empty()) {
        co_await logEpisodes(state, events, std::move(episodes), warnings);
        if (isCancelled(co_await boost::asio::this_coro::cancellation_state)) {
            // The run ends now: what the model would read next no longer matters beyond compression.
            for (tools::ToolCallRecord& record : records) {
                if (condensable(record)) {
                    compressRecord(*state, *events, record);
                }
            }
            co_return records;
        }
    }
    std::vector<PendingTransform> pending;
    for (std::size_t i = 0; i < records.size(); ++i) {
        tools::ToolCallRecord& record = records[i];
        const bool transformed = i < transforms.size() && transforms[i].has_value();
        if (transformed) {
            record.transform = transforms[i]->expression;
        }
        const bool recalled = record.name == kRecallTool && record.succeeded();
        if (!condensable(record) && !(transformed && recalled)) {
            continue;
        }
        if (!transformed) {
            compressRecord(*state, *events, record);
            continue;
        }
        if (!transforms[i]->problem.empty()) {
            fallBack(*state, *events, record, "invalid_expression: " + transforms[i]->problem);
            continue;
        }
        pending.push_back(PendingTransform{i, transforms[i]->expression, *record.outcome, std::nullopt});
    }
    if (pending.empty()) {
        co_return records;
    }
    const std::string stopped = co_await evaluateAll(pending, state->config.toolSettings);
    for (PendingTransform& item : pending) {
        tools::ToolCallRecord& record = records[item.record];
        // A transform the stage stopped either never started or ended as cancelled: say why.
        const bool stoppedEarly =
            !item.outcome || (!stopped.empty() && !*item.outcome &&
                              item.outcome->error().code == transform::TransformErrc::cancelled);
        if (stoppedEarly) {
            fallBack(*state, *events, record, stopped.empty() ? std::string("cancelled") : stopped);
        } else if (*item.outcome) {
            useTransformed(*state, *events, record, std::move(**item.outcome));
        } else {
            fallBack(*state, *events, record, item.outcome->error().describe());
        }
    }
    co_return records;
}

bool resultsNeedWaiting(const Agent::State& state, const std::vector<tools::ToolCallRecord>& records,
                        const std::vector<std::optional<TransformRequest>>& transforms) {
    // As `episodesOf` would find some, without building them.
    const bool logging = logsToolResults(state);
    const auto transformed = [](const std::optional<TransformRequest>& request) {
        return request.has_value();
    };
    return (logging && std::any_of(records.begin(), records.end(), loggedAsEpisode)) ||
           std::any_of(transforms.begin(), transforms.end(), transformed);
}

void processResultsNow(Agent::State& state, const RunEvents& events,
                       std::vector<tools::ToolCallRecord>& records, std::vector<std::string>& warnings) {
    if (state.episodic) {
        logWithoutWaiting(state, events, episodesOf(state, records), 0, warnings, " (the run was cancelled)");
    }
    for (tools::ToolCallRecord& record : records) {
        if (condensable(record)) {
            compressRecord(state, events, record);
        }
    }
}

}  // namespace reagent::agent
