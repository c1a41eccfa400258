#pragma once
// Private to libs/agent: what happens to tool results between the executor and the model — `_transform`
// jq expressions, compression of oversized results into working memory, and the episodic log.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent_state.hpp"
#include "reagent/agent/agent.hpp"
#include "reagent/core/task.hpp"
#include "reagent/tools/tool_call.hpp"

namespace reagent::agent {

/// A call's `_transform` argument, taken out before validation.
struct TransformRequest {
    std::string expression;
    /// Set when `_transform` was present but not a non-empty string.
    std::string problem;
};

/// Removes `_transform` from each call's arguments (when transforms are enabled): one entry per call, or none
/// at all when no call has one.
[[nodiscard]] std::vector<std::optional<TransformRequest>> takeTransforms(
    const Agent::State& state, std::vector<tools::ToolCallRequest>& calls);

/// Logs each record as an episode (with `withMemory`), then replaces oversized or transformed outputs by
/// what the model should read, setting `memoryKey` and `transform`. Records of meta-tools, silent tools
/// and failed calls keep their outcome. Never throws for a tool's content.
///
/// Logging never blocks the thread on another connection's lock: each write tries once, and while the
/// file is locked it is retried after an asynchronous sleep for up to the store's busy timeout.
/// Cancellation ends the wait at once: the remaining episodes are tried once more without waiting, the
/// transforms are skipped, and the records come back (compressed) for the cancelled result. Each episode
/// not logged appends a sentence to `warnings` (for `RunResult::warnings`) and emits a `MemoryWarning`.
[[nodiscard]] Task<std::vector<tools::ToolCallRecord>> processResults(
    std::shared_ptr<Agent::State> state, std::shared_ptr<const RunEvents> events,
    std::vector<tools::ToolCallRecord> records, std::vector<std::optional<TransformRequest>> transforms,
    std::vector<std::string>& warnings);

/// Whether `processResults` would wait for anything (episodes to log, transforms to run). When it would
/// not, `processResultsNow` does the same work without a coroutine.
[[nodiscard]] bool resultsNeedWaiting(const Agent::State& state,
                                      const std::vector<tools::ToolCallRecord>& records,
                                      const std::vector<std::optional<TransformRequest>>& transforms);

/// The synchronous part of `processResults` (no transforms, episodes tried once without waiting for a
/// lock), for a batch that was cancelled.
void processResultsNow(Agent::State& state, const RunEvents& events,
                       std::vector<tools::ToolCallRecord>& records, std::vector<std::string>& warnings);

}  // namespace reagent::agent
