#pragma once
/// \file
/// \brief `RunResult`: what one `Agent::run` produced.

#include <boost/describe/enum.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/agent/agent_error.hpp"
#include "reagent/agent/compaction_record.hpp"
#include "reagent/agent/run_budget.hpp"
#include "reagent/core/boxed.hpp"
#include "reagent/llm/message.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/tools/tool_call.hpp"

namespace reagent::agent {

/// \brief Why the loop stopped: the one record of a run's outcome. The first four are successes; each of the
/// others has the `AgentErrc` of the same name (`errorCode`).
enum class TerminatedBy {
    /// The model called the `final-answer` meta-tool.
    final_answer,
    /// The model called the `task-complete` meta-tool; its summary is the output.
    task_complete,
    /// The model replied without tool calls; its text is the output.
    end_turn,
    /// Every call of the last batch was to a silent tool.
    silent_tools,
    /// The iteration limit was reached.
    max_iterations,
    /// The model called a declaration-only tool, which the caller executes.
    external_tool_calls,
    /// The model call failed.
    provider_error,
    /// The run was cancelled.
    cancelled,
    /// An unexpected exception ended the run (see `AgentErrc::internal_error`).
    internal_error,
    /// Calls that require approval wait for the caller's decision (`AgentBuilder::withDeferredApproval`):
    /// see `pendingApprovals`, and resume with `Agent::resumeWith` and `ResumeInput::decisions`.
    approval_required,
    /// The answer did not match the output schema (`AgentBuilder::withOutputSchema`), still after the
    /// re-asks `LoopOptions::maxOutputRetries` allows; `errorMessage` names the first violations.
    output_invalid,
    /// A limit of the run's budget (`RunBudget`) would have been passed; `errorMessage` names it, the
    /// limit and what was used.
    budget_exceeded,
    /// The next request would not fit the model's context window (`AgentBuilder::withContextWindow`, or
    /// the model's published window); it was not sent. `errorMessage` gives its size and the window.
    context_overflow,
};
BOOST_DESCRIBE_ENUM(TerminatedBy, final_answer, task_complete, end_turn, silent_tools, max_iterations,
                    external_tool_calls, provider_error, cancelled, internal_error, approval_required,
                    output_invalid, budget_exceeded, context_overflow)

[[nodiscard]] std::string_view toString(TerminatedBy reason) noexcept;
/// \brief True for the reasons that end a run with an answer: `final_answer`, `task_complete`, `end_turn`,
/// `silent_tools`.
[[nodiscard]] bool isSuccess(TerminatedBy reason) noexcept;
/// \brief The error code of a run that stopped for `reason`; nothing for a success.
[[nodiscard]] std::optional<AgentErrc> errorCode(TerminatedBy reason) noexcept;

/// \brief What a run's model calls cost (`llm::PriceTable`).
struct RunCost {
    /// The sum over the calls whose model has a price, in `currency`.
    double amount = 0;
    std::string currency = "USD";
    /// Calls whose model has no price in the table (their tokens are in `usage`, not in `amount`).
    int unpricedCalls = 0;

    friend bool operator==(const RunCost&, const RunCost&) = default;
};

/// \brief How full the model's context window was (`RunResult::context`).
struct ContextUse {
    /// The window the run kept to (`AgentBuilder::withContextWindow`, else the model's published one,
    /// `llm::publishedContextWindow`); none when neither is known, and nothing was checked.
    std::optional<std::int64_t> window;
    /// The last request's prompt in tokens: the API's count when it reported one, else the estimate.
    std::int64_t promptTokens = 0;
    /// Each compaction of the run's history, in order (`AgentBuilder::withCompaction`).
    std::vector<Compaction> compactions;
    /// The API's own count: its first `countedMessages` messages (`RunResult::messages`, the system
    /// prompt included) took `countedTokens`, with the tools. Zero when no reply reported a count. A run
    /// that continues these messages starts counting from it (`RunOptions::counted`).
    std::size_t countedMessages = 0;
    std::int64_t countedTokens = 0;

    friend bool operator==(const ContextUse&, const ContextUse&) = default;
};

/// \brief A model call that moved to the next provider of a `llm::FallbackProvider` chain.
struct ModelFallback {
    /// The model call (0-based).
    int iteration = 0;
    /// "name:model" of the provider that failed, and of the one that took the call.
    std::string from;
    std::string to;
    /// Why: the failure's `describe()`.
    std::string reason;

    friend bool operator==(const ModelFallback&, const ModelFallback&) = default;
};

/// \brief The structured deliverable of the `final-answer` meta-tool.
struct FinalAnswer {
    std::string output;
    /// "text", "markdown", "json", ... as the model declared. Default "text".
    std::string format = "text";
    std::string summary;
    /// The model's confidence in [0, 1], when given.
    std::optional<double> confidence;
};

/// \brief A checkpoint a tool call recorded before changing the workspace (`file-write`, `file-edit`,
/// `shell-execute`): restore the files with `Agent::rollback(id)`, and the conversation with
/// `RunResult::messagesBefore(id)`.
struct CheckpointMark {
    /// The checkpoint's id (as `ExecutionAdapter::rollback` takes it).
    std::string id;
    /// The call that recorded it.
    std::string toolCallId;
    std::string toolName;
    int tripIndex = 0;
    /// Index in `RunResult::messages` of the assistant message that asked for the call: the messages
    /// before it are the conversation as it stood before the change.
    std::size_t messageIndex = 0;
};

/// \brief The result of a declaration-only call, executed by the caller, for `ReactLoop::resume`,
/// `Agent::resume` and `ResumeInput::results`: the text the model reads, or an error (fed back to it as the
/// call's error).
struct ExternalResult {
    /// The call's id (`RunResult::pendingToolCalls[i].id`).
    std::string callId;
    expected<std::string, tools::ToolError> outcome;
};

/// \brief The caller's decision on a call that waits for approval (`RunResult::pendingApprovals`), for
/// `Agent::resumeWith` (`ResumeInput::decisions`): an approved call runs when the run resumes; a refused one
/// is answered `ToolErrc::approval_denied` with `reason`, which the model reads.
struct ApprovalDecision {
    /// The call's id (`RunResult::pendingApprovals[i].id`).
    std::string callId;
    bool approved = false;
    /// Why it was refused (shown to the model); optional.
    std::string reason{};
};

/// \brief The last call of a run that failed; the run's session state holds
/// the same under `lastToolError` (`{toolId, error, args}`) for the tools to read.
struct LastToolError {
    std::string tool;
    tools::ToolError error;
    /// The arguments of the failed call.
    nlohmann::json arguments;
};

/// \brief What one run produced. How it ended is stored once, in `terminatedBy`; `success()` and `error()`
/// are derived from it, so they cannot disagree.
struct RunResult {
    /// The answer (final-answer output, or the last assistant text).
    std::string output;
    /// With an output schema (`AgentBuilder::withOutputSchema`, `withOutput<T>`): the answer as the JSON
    /// value that validated against it (defaults filled in). Null otherwise, and when the run failed.
    nlohmann::json structuredOutput;
    /// Answers that did not match the output schema and went back to the model (each re-ask is one more
    /// model call, counted in `iterations` and `usage`).
    int outputRetries = 0;
    /// Why the run ended. Default `internal_error`: a result no run filled in is not a success.
    TerminatedBy terminatedBy = TerminatedBy::internal_error;
    /// For a run that did not succeed: what went wrong, a sentence a person can act on (`error()` carries
    /// it). Ignored when `success()`.
    std::string errorMessage;
    /// Model calls made.
    int iterations = 0;
    /// Every tool call, in order.
    std::vector<tools::ToolCallRecord> toolCalls;
    /// Tokens summed over the run's model calls, failed ones included (a stream cut mid-way).
    llm::Usage usage;
    /// What the run's model calls cost, with a price table (`AgentBuilder::withPrices`); none without one.
    /// `Boxed`, used as an optional.
    Boxed<RunCost> cost;
    /// What the runs this run's tool calls started spent (agents and workflows as tools, any run given
    /// `RunOptions::parent`), all levels down; counted against this run's budget. Not in `usage` and
    /// `cost`, which are this run's own model calls.
    Spending subRuns;
    /// How full the context window was at the last request.
    ContextUse context;
    /// Each move of a model call to the next provider of a fallback chain, in order; empty without one.
    std::vector<ModelFallback> fallbacks;
    /// Set when the run ended through `final-answer`. (`Boxed`, used as an optional: kept on the heap,
    /// because every run that waits holds room for a few results.)
    Boxed<FinalAnswer> finalAnswer;
    /// Calls to declaration-only tools, left for the caller (with `external_tool_calls`).
    std::vector<tools::ToolCallRequest> pendingToolCalls;
    /// The whole conversation of the run, system prompt included.
    std::vector<llm::Message> messages;
    /// Problems that did not stop the run, one sentence each, in the order they happened; empty when
    /// there were none. Today: each tool result that could not be logged to episodic memory
    /// (`withMemory`), naming the call, the file and the reason (file read-only or corrupt, disk full,
    /// locked by another connection for longer than the busy timeout, run cancelled while waiting for
    /// the lock). The same text is emitted as a `MemoryWarning` event when it happens.
    std::vector<std::string> warnings;
    /// For a run that paused (`external_tool_calls`, `approval_required`): its whole state
    /// (`ReactLoop::save`), to hand to `Agent::resume` with the calls' results, or to `Agent::resumeWith`
    /// with the results and the approval decisions, here or in another process. Null otherwise.
    nlohmann::json state;
    /// The checkpoints recorded by the run's tool calls, in order.
    std::vector<CheckpointMark> checkpoints;
    /// Calls waiting for the caller's approval (with `approval_required`), their arguments validated.
    std::vector<tools::ToolCallRequest> pendingApprovals;
    /// The session state as the run left it (`ToolContext::session`): a JSON object, the one the run was
    /// given (`RunOptions::sessionState`) as its tools changed it.
    nlohmann::json sessionState;
    /// The run's last failed call, if any (calls left unrun after `final-answer` do not count). `Boxed`,
    /// used as an optional.
    Boxed<LastToolError> lastToolError;
    /// The artifacts bag: what the run's tools put in `ToolContext::artifacts`, merged per iteration
    /// (index: the trip index; empty objects for turns without any; empty when no call put anything in its
    /// bag) in call order, then across
    /// iterations in order. Merging: objects merge key by key, arrays are concatenated, anything else is
    /// replaced by the later value. Never shown to the model; the per-call bags stay on `toolCalls`.
    std::vector<nlohmann::json> iterationArtifacts;
    /// Every iteration's artifacts merged, as above; null when no call put anything in its bag.
    nlohmann::json artifacts;
    std::chrono::microseconds duration{0};

    /// \brief True when the run ended with an answer (`isSuccess(terminatedBy)`).
    [[nodiscard]] bool success() const noexcept { return isSuccess(terminatedBy); }
    /// \brief Why the run did not succeed: the code of `terminatedBy` (`errorCode`) with `errorMessage`;
    /// nothing when `success()`.
    [[nodiscard]] std::optional<AgentError> error() const;
    /// \brief The conversation as it stood before the model asked for the call that recorded checkpoint
    /// `checkpointId` (to continue from there after `Agent::rollback`); nothing for an unknown id.
    [[nodiscard]] std::optional<std::vector<llm::Message>> messagesBefore(
        std::string_view checkpointId) const;
};

}  // namespace reagent::agent
