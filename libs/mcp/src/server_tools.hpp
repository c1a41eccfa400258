#pragma once
// The tools half of the server's protocol as pure functions: listing pages and call results.

#include <cstddef>
#include <nlohmann/json.hpp>

#include "reagent/core/expected.hpp"
#include "reagent/mcp/mcp_error.hpp"
#include "reagent/tools/tool.hpp"
#include "reagent/tools/tool_executor.hpp"
#include "reagent/tools/tool_registry.hpp"

namespace reagent::mcp::detail {

/// A tool as `tools/list` shows it: name, description, inputSchema and the hints its definition gives
/// (a side-effect tool is not read-only; a high or medium risk one is destructive).
[[nodiscard]] nlohmann::json listedTool(const tools::ToolDefinition& definition, bool sideEffect);

/// The `tools/list` result for `params` (`cursor`: where the page starts; opaque to the client);
/// -32602 for a cursor this server did not give.
[[nodiscard]] expected<nlohmann::json, RpcError> toolsPage(const tools::ToolRegistry& registry,
                                                           const tools::ToolExecutor& executor,
                                                           const nlohmann::json& params,
                                                           std::size_t pageSize);

/// The `tools/call` result of a call's outcome: its text, or `isError` with `"<code>: <message>"`; text
/// over `maxBytes` is cut at a UTF-8 boundary with a line saying how much was left out.
[[nodiscard]] nlohmann::json callResult(const tools::ToolResult& outcome, std::size_t maxBytes);

}  // namespace reagent::mcp::detail
