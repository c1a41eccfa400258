#pragma once
/// \file
/// \brief `ToolContext`: what a handler knows about the call it serves.

#include <any>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/core/trace_context.hpp"
#include "reagent/tools/tool_error.hpp"

namespace reagent::tools {

/// \brief How far a running call has got: `progress` of `total` (when known), with an optional message.
struct ToolProgress {
    double progress = 0;
    std::optional<double> total;
    std::string message;
};

/// \brief Passes on an event of a run that a call started (a sub-agent's `agent::AgentEvent`, held in the
/// `std::any`) to whoever asked for the call, which shows it nested under the call.
using EventRelay = std::function<void(std::any event)>;

/// \brief What the run a call belongs to has spent and may spend, as the library that runs it keeps it
/// (an agent run's: `agent::detail::RunLedger`); opaque here. A run the call starts draws on it: an agent
/// or a workflow as a tool passes it on, and `agent::RunOptions::parent` takes it from a handler that runs
/// an agent itself.
class SpendingLedger {
  public:
    virtual ~SpendingLedger() = default;

  protected:
    SpendingLedger() = default;
    SpendingLedger(const SpendingLedger&) = default;
    SpendingLedger(SpendingLedger&&) = default;
    SpendingLedger& operator=(const SpendingLedger&) = default;
    SpendingLedger& operator=(SpendingLedger&&) = default;
};

/// \brief A request to whoever asked for a call (an MCP client: `sampling/createMessage`,
/// `elicitation/create`, `roots/list`): its result, or a `ToolError` (refused, timed out, cancelled).
using CallerRequest =
    std::function<Task<expected<nlohmann::json, ToolError>>(std::string method, nlohmann::json params)>;
/// \brief A notification to whoever asked for a call, tied to the call (e.g. `notifications/message`).
using CallerNotify = std::function<void(std::string method, nlohmann::json params)>;

/// \brief How a handler reaches the caller of one call, set by whoever asked for it (an MCP server sets
/// one per `tools/call`; an agent sets none). `ToolExecutor` copies it into the call's `ToolContext`.
///
/// \par Thread safety
/// The functions are called on the call's executor only.
struct CallChannel {
    /// Empty when the caller takes no requests.
    CallerRequest request{};
    /// Empty when the caller takes no notifications.
    CallerNotify notify{};
};

/// \brief Per-call context handed to a tool handler.
///
/// \par Lifetime
/// `artifacts`, `content` and `structured` point into the call's record and stay valid until the
/// handler's task completes.
struct ToolContext {
    /// The model's id for this call (unique within a run).
    std::string callId;
    /// The tool's registered name.
    std::string toolName;
    /// The index of the model turn that requested the call (0-based).
    int tripIndex = 0;
    /// Executor of the run; spawn helper work here.
    Executor executor;
    /// System-only data (citations, files, telemetry) that the model never sees; recorded with the call.
    nlohmann::json* artifacts = nullptr;
    /// Reports progress while the call runs (each report becomes a `ToolProgressed` event); empty when
    /// nobody listens, so check before calling, or use `reportProgress`.
    std::function<void(const ToolProgress&)> progress{};
    /// A snapshot of the run that asked for the call, as JSON: iteration and budget, tools used and
    /// pending, working-memory keys, tokens (see the `context-status` meta-tool). Empty when the call does
    /// not come from an agent run (an MCP client, the tools facade).
    std::function<nlohmann::json()> runStatus{};
    /// The session state of the run: a JSON object the run's tools share and
    /// the caller reads back (`RunResult::sessionState`); a `Conversation` keeps it from turn to turn. The
    /// run keeps the last failed call under `lastToolError`. Null when the call does not come from an agent
    /// run. Calls of one batch may run at once, on the run's executor: update it in one step.
    nlohmann::json* session = nullptr;
    /// Passes on the events of a run this call starts (a sub-agent's), shown nested under the call; empty
    /// when nobody listens.
    EventRelay relay{};
    /// The spending of the run that asked for the call, for a run the call starts to draw on (its budget
    /// then counts that run's spending, and that run stops where this one's budget would be passed). Null
    /// when the call does not come from an agent run. Valid until the handler's task completes.
    SpendingLedger* ledger = nullptr;
    /// The span of this call (`execute_tool {name}`), for what the call reaches: a sub-agent's run nests
    /// under it, an MCP or A2A request carries it. Null when the run is not traced. Valid until the
    /// handler's task completes.
    const SpanContext* trace = nullptr;
    /// In a durable run (docs/durable-runs.md): `{run id}/{step}`, the same each time the call is tried again
    /// after a crash, for a handler that makes its effect happen once (an idempotency key of the service it
    /// calls). Null when the run is not journaled. Valid until the handler's task completes.
    const std::string* idempotencyKey = nullptr;

    /// \brief Reports progress if anyone listens.
    void reportProgress(const ToolProgress& value) const {
        if (progress) {
            progress(value);
        }
    }

    // --- The caller's channel and rich results (set from `ToolCallRequest::channel`). An agent's loop
    // ignores all of these for now: the text result is what the model reads.
    /// A request to the caller (see `CallerRequest`); empty when the caller offers none.
    CallerRequest request{};
    /// A notification to the caller tied to this call; empty when the caller offers none.
    CallerNotify notify{};
    /// Extra MCP-shaped content blocks (`image`, `audio`, `resource`, `resource_link`) that accompany the
    /// text result; an MCP server sends the text block first (unless the text is empty), then these.
    std::vector<nlohmann::json>* content = nullptr;
    /// The call's `structuredContent` (a JSON object), or null for none.
    nlohmann::json* structured = nullptr;
};

}  // namespace reagent::tools
