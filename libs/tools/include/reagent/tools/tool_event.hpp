#pragma once
/// \file
/// \brief Tool events: calling, called, failed.

#include <any>
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "reagent/tools/tool_call.hpp"
#include "reagent/tools/tool_context.hpp"
#include "reagent/tools/tool_error.hpp"

namespace reagent::tools {

/// \brief A validated call is about to run.
struct ToolCalling {
    std::string callId;
    std::string tool;
    nlohmann::json input;
    int tripIndex = 0;
    /// The tool's `action` text for people, empty when it has none (or it threw).
    std::string action;
};

/// \brief A call finished successfully; the full record.
struct ToolCalled {
    ToolCallRecord record;
};

/// \brief A call failed (invalid input, unknown tool, timeout, refusal, handler error...).
struct ToolFailed {
    std::string callId;
    std::string tool;
    nlohmann::json input;
    ToolError error;
    int tripIndex = 0;
    /// Time from the call's start to its failure (zero for calls refused before they started).
    std::chrono::microseconds duration{0};
};

/// \brief A running call reported progress (`ToolContext::reportProgress`, or an MCP server's
/// `notifications/progress`).
struct ToolProgressed {
    std::string callId;
    std::string tool;
    int tripIndex = 0;
    ToolProgress progress;
};

using ToolEvent = std::variant<ToolCalling, ToolCalled, ToolFailed, ToolProgressed>;

/// \brief Receives tool events on the run's executor. Must not throw (exceptions are swallowed).
using ToolEventSink = std::function<void(const ToolEvent&)>;

/// \brief Where the events of a run's calls go (`ToolCallRequest::events`).
struct CallEvents {
    /// The calls' tool events; empty: none are built.
    ToolEventSink sink{};
    /// Events of runs the calls start (a sub-agent's), relayed through `ToolContext::relay` with the
    /// identity of the call that relays them; empty: none.
    std::function<void(const std::string& callId, const std::string& tool, int tripIndex, std::any event)>
        relay{};
};

}  // namespace reagent::tools
