#pragma once
/// \file
/// \brief `ToolExecutor`: runs a batch of calls with validation, timeouts, approval and a parallel cap.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/tools/tool_call.hpp"
#include "reagent/tools/tool_event.hpp"
#include "reagent/tools/tool_registry.hpp"

namespace reagent::tools {

/// \brief Decides whether a call needing approval may run. Returning false refuses it.
using ApprovalHandler = std::function<Task<bool>(ToolCallRequest request, ToolDefinition definition)>;

/// \brief Execution rules: by default at most three calls at once, and side-effect tools alone.
struct ExecutionPolicy {
    /// Calls running at once within a batch. Invariant: >= 1. Default 3.
    std::size_t maxParallel = 3;
    /// Name prefixes that mark a tool as side-effecting, so it runs alone.
    std::vector<std::string> sideEffectPrefixes{"create_", "delete_", "send_",   "push_",
                                                "update_", "write_",  "remove_", "post_"};
    /// Calls that require approval are not decided here: each is answered `ToolErrc::approval_pending`
    /// (an agent's run then pauses for the caller's decision), unless `ToolCallRequest::preApproved`.
    bool deferApproval = false;
};

/// \brief Runs tool calls: unknown tool, invalid input, exception, timeout and refusal all become a
/// `ToolError` in the record; nothing throws and the batch always completes.
///
/// Order of a call: lookup → validation (defaults injected) → approval → `init` (first call) →
/// handler under the tool's timeout. A batch runs up to `maxParallel` calls at once; a side-effect
/// tool waits for the calls before it and runs alone. Records come back in call order.
///
/// \par Cancellation
/// Cancelling the awaiting coroutine reaches every handler in flight; calls not yet started are
/// recorded as `ToolErrc::cancelled`.
///
/// \par Lifetime and thread safety
/// Refers to `registry`, which must outlive it. Use from one strand.
class ToolExecutor {
  public:
    explicit ToolExecutor(const ToolRegistry& registry, ExecutionPolicy policy = {});

    void setApprovalHandler(ApprovalHandler handler);
    void setEventSink(ToolEventSink sink);

    /// \brief Runs a batch; one record per request, in request order.
    [[nodiscard]] Task<std::vector<ToolCallRecord>> execute(std::vector<ToolCallRequest> calls,
                                                            int tripIndex);

    /// \brief Runs one call.
    [[nodiscard]] Task<ToolCallRecord> executeOne(ToolCallRequest call, int tripIndex);

    /// \brief True when the tool must run alone (flagged, or named with a side-effect prefix).
    [[nodiscard]] bool isSideEffect(const ToolDefinition& definition) const;

    /// \brief Runs the `dispose` hook of every tool whose `init` ran, latest first, each under the tool's
    /// timeout. Never throws; failures are ignored.
    [[nodiscard]] Task<void> disposeAll();

    [[nodiscard]] const ExecutionPolicy& policy() const noexcept { return policy_; }

  private:
    // An `init` in progress, so that concurrent first calls of a tool wait for one run of it.
    struct InitGate;
    // One call in progress, and its steps.
    struct Call;

    // Runs one call into `record`, taking the request's arguments; both must stay put until the task is done.
    [[nodiscard]] Task<void> runCall(ToolCallRequest& request, int tripIndex, ToolCallRecord& record);
    // Where the segment starting at `first` ends: one side-effect call, or consecutive calls that may
    // overlap.
    [[nodiscard]] std::size_t segmentEnd(const std::vector<ToolCallRequest>& calls, std::size_t first) const;
    [[nodiscard]] Task<void> runSegment(const std::vector<ToolCallRequest>& calls, std::size_t first,
                                        std::size_t end, int tripIndex, std::vector<ToolCallRecord>& records);
    // Records the calls from `records.size()` on as cancelled before they started.
    void recordNotStarted(const std::vector<ToolCallRequest>& calls, int tripIndex,
                          std::vector<ToolCallRecord>& records) const;

    [[nodiscard]] Task<expected<void, ToolError>> ensureInitialised(
        std::shared_ptr<const RegisteredTool> tool);
    [[nodiscard]] bool runsAlone(const ToolCallRequest& call) const;
    // The record (and `ToolFailed` event) of a call that never ran.
    [[nodiscard]] ToolCallRecord notStarted(const ToolCallRequest& call, int tripIndex,
                                            ToolError error) const;
    // Where the call's events go: its own sink (`ToolCallRequest::events`), else the executor's; null
    // when nobody listens.
    [[nodiscard]] const ToolEventSink* sinkFor(const ToolCallRequest& call) const;

    const ToolRegistry* registry_;
    ExecutionPolicy policy_;
    ApprovalHandler approval_;
    ToolEventSink sink_;
    /// Tools whose `init` succeeded (or that have none and ran once): their `dispose` runs at the end.
    std::vector<std::shared_ptr<const RegisteredTool>> initialised_;
    std::vector<std::shared_ptr<InitGate>> initGates_;
};

}  // namespace reagent::tools
