#pragma once
// The tools half of the server's protocol as pure functions: listing pages and call results.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

#include "reagent/core/expected.hpp"
#include "reagent/mcp/mcp_error.hpp"
#include "reagent/tools/tool.hpp"
#include "reagent/tools/tool_executor.hpp"
#include "reagent/tools/tool_registry.hpp"

namespace reagent::mcp::detail {

/// A tool as `tools/list` shows it: name, description, inputSchema and the hints its definition gives
/// (a side-effect tool is not read-only; a high or medium risk one is destructive).
[[nodiscard]] nlohmann::json listedTool(const tools::ToolDefinition& definition, bool sideEffect);

/// Where a listing page starts: 0 without `params.cursor`, else the index a cursor `<prefix><n>` this
/// server gave names (n <= count); -32602 for any other cursor.
[[nodiscard]] expected<std::size_t, RpcError> pageStart(const nlohmann::json& params, std::string_view prefix,
                                                        std::size_t count);

/// The `tools/list` result for `params` (`cursor`: where the page starts; opaque to the client);
/// -32602 for a cursor this server did not give.
[[nodiscard]] expected<nlohmann::json, RpcError> toolsPage(const tools::ToolRegistry& registry,
                                                           const tools::ToolExecutor& executor,
                                                           const nlohmann::json& params,
                                                           std::size_t pageSize);

/// The `tools/call` result of a call's outcome: its text, or `isError` with `"<code>: <message>"`; text
/// over `maxBytes` is cut at a UTF-8 boundary with a line saying how much was left out.
[[nodiscard]] nlohmann::json callResult(const tools::ToolResult& outcome, std::size_t maxBytes);

/// `callResult` of a finished call, with the content blocks its handler added after the text block (the
/// text block is left out when it is empty and blocks follow) and its `structuredContent`.
[[nodiscard]] nlohmann::json callResult(const tools::ToolCallRecord& record, std::size_t maxBytes);

}  // namespace reagent::mcp::detail
