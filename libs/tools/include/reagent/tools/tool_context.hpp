#pragma once
/// \file
/// \brief `ToolContext`: what a handler knows about the call it serves.

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "reagent/core/task.hpp"

namespace reagent::tools {

/// \brief How far a running call has got: `progress` of `total` (when known), with an optional message.
struct ToolProgress {
    double progress = 0;
    std::optional<double> total;
    std::string message;
};

/// \brief Per-call context handed to a tool handler.
///
/// \par Lifetime
/// `artifacts` points into the call's record and stays valid until the handler's task completes.
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

    /// \brief Reports progress if anyone listens.
    void reportProgress(const ToolProgress& value) const {
        if (progress) {
            progress(value);
        }
    }
};

}  // namespace reagent::tools
