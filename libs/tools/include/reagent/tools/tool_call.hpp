#pragma once
/// \file
/// \brief `ToolCallRequest` and `ToolCallRecord`: a call as asked for and as it happened.

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/tools/tool_context.hpp"
#include "reagent/tools/tool_definition.hpp"
#include "reagent/tools/tool_error.hpp"

namespace reagent::tools {

/// \brief Where one run's call events go (defined in `tool_event.hpp`).
struct CallEvents;
struct CallJournal;

/// \brief A call the model asked for. The arguments are untrusted model output.
struct ToolCallRequest {
    std::string id;
    std::string name;
    nlohmann::json arguments = nlohmann::json::object();
    /// Set when the model's arguments were not valid JSON (`llm::ToolCall::invalidArguments`): the call
    /// is answered with an `invalid_arguments` error saying this, and its handler does not run.
    std::optional<std::string> argumentsProblem{};
    /// A snapshot of the run that asked for the call, handed to the handler as `ToolContext::runStatus`
    /// (the agent sets it; `context-status` reads it). Empty outside an agent run.
    std::function<nlohmann::json()> runStatus{};
    /// How the handler reaches whoever asked for the call (an MCP server sets one per `tools/call`);
    /// null for none (an agent's calls). Copied into `ToolContext::request` and `notify`.
    std::shared_ptr<const CallChannel> channel{};
    /// The events of this call (and what its handler relays), for whoever asked for it: an agent sets one
    /// per run, so that concurrent runs sharing an executor each see their own calls. When set, the
    /// executor sends the call's events there instead of to its own sink.
    std::shared_ptr<const CallEvents> events{};
    /// The session state the call may read and write (`ToolContext::session`); null outside an agent run.
    nlohmann::json* session = nullptr;
    /// The spending of the run that asked for the call (`ToolContext::ledger`); null outside an agent run.
    SpendingLedger* ledger = nullptr;
    /// The span the call runs in (`ToolContext::trace`); null when the run is not traced.
    const SpanContext* trace = nullptr;
    /// The caller already approved this call (a paused run resumed with its approval): a tool that
    /// requires approval runs without asking again.
    bool preApproved = false;
    /// The durable run's journal of this call (`CallJournal`), when the run is journaled; null otherwise.
    std::shared_ptr<const CallJournal> journal{};
};

/// \brief What happened to one call: input, output or error, and timing.
struct ToolCallRecord {
    std::string id;
    /// Index of the model turn that asked for the call (0-based).
    int tripIndex = 0;
    std::string name;
    /// The arguments as validated (defaults injected); the raw arguments when validation failed.
    nlohmann::json input;
    /// The output the model reads, or the error fed back to it. For an oversized result this is the
    /// compressed preview (the full text is in the agent's working memory under `memoryKey`); for a call
    /// with a `_transform`, the transform's output.
    expected<std::string, ToolError> outcome;
    /// The working-memory key holding the full result (`_tool_result_N`), or empty when nothing was stored.
    std::string memoryKey;
    /// The `_transform` jq expression the call carried (removed from the arguments before validation).
    std::optional<std::string> transform;
    std::chrono::system_clock::time_point startedAt;
    std::chrono::system_clock::time_point endedAt;
    std::chrono::microseconds duration{0};
    ToolMode mode = ToolMode::feedback;
    /// Whatever the handler put in `ToolContext::artifacts`; never shown to the model.
    nlohmann::json artifacts = nlohmann::json::object();
    /// Whatever the handler put in `ToolContext::content` (MCP content blocks beside the text).
    std::vector<nlohmann::json> content{};
    /// Whatever the handler put in `ToolContext::structured` (null: none).
    nlohmann::json structured = nullptr;

    [[nodiscard]] bool succeeded() const noexcept { return outcome.has_value(); }
};

/// \brief What a journaled (durable) run tells the executor of one call: the call's record from an earlier
/// attempt of the run, or how to journal it once it has run; and the key the handler may use to make its
/// effect happen once (see docs/durable-runs.md).
struct CallJournal {
    /// The record an earlier attempt journaled: the executor returns it and runs nothing (no approval, no
    /// handler).
    std::optional<ToolCallRecord> recorded{};
    /// Called with the call's record once its handler has ended, before the call's slot in the batch is
    /// given to another; not for a call that never reached its handler (refused, cancelled before it ran).
    std::function<Task<void>(const ToolCallRecord&)> record{};
    /// For a tool that is not idempotent (`ToolDefinition::idempotent`): journals that the call's handler
    /// starts, before it starts; false: the journal refused it, and the handler does not run.
    std::function<Task<bool>()> begin{};
    /// An earlier attempt of the run started the call's handler and stopped before the call completed: a
    /// tool that is not idempotent asks for approval before it runs again.
    bool interrupted = false;
    /// `{run id}/{step}`, the same in every attempt of the run: `ToolContext::idempotencyKey`.
    std::string idempotencyKey;
};

}  // namespace reagent::tools
