#pragma once
/// \file
/// \brief `Tool`: a definition plus the code that runs it.

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/tools/tool_context.hpp"
#include "reagent/tools/tool_definition.hpp"
#include "reagent/tools/tool_error.hpp"

namespace reagent::tools {

/// \brief A handler's outcome: the text the model will read, or a typed error.
using ToolResult = expected<std::string, ToolError>;

/// \brief Runs a call. Receives arguments already validated against the schema (defaults injected).
///
/// Exceptions are contained by the executor (they become `ToolErrc::exception`), but a handler should
/// return its failures as values. Must react to cancellation (any Asio wait does).
using ToolHandler = std::function<Task<ToolResult>(nlohmann::json args, ToolContext context)>;

/// \brief An optional `init` or `dispose` hook.
using ToolHook = std::function<Task<expected<void, ToolError>>()>;

/// \brief A tool: its definition and handler. Without a handler it is declaration-only.
struct Tool {
    ToolDefinition definition;
    ToolHandler handler;
    /// Runs once before the first call (for example to open a connection); a failure is retried on the
    /// next call.
    ToolHook init;
    /// Runs when the owner shuts down (`Agent::dispose`), if `init` ran.
    ToolHook dispose;

    /// \brief False for a declaration-only tool, which the caller executes.
    [[nodiscard]] bool executable() const noexcept { return static_cast<bool>(handler); }
};

}  // namespace reagent::tools
