#pragma once
/// \file
/// \brief `ToolContext`: what a handler knows about the call it serves.

#include <nlohmann/json.hpp>
#include <string>

#include "reagent/core/task.hpp"

namespace reagent::tools {

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
};

}  // namespace reagent::tools
