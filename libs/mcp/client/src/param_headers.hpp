#pragma once
// Private to reagent::mcp: reading a tool's `x-mcp-header` annotations (2026-07-28, SEP-2243). An annotated
// argument is mirrored in an `Mcp-Param-<name>` header; a tool whose annotations break the rules is
// dropped from a streamable-HTTP client's view, as the specification requires.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/mcp/transport.hpp"

namespace reagent::mcp::detail {

/// The arguments `inputSchema` marks, or why its annotations are invalid: a name that is empty or not an
/// RFC 9110 token, a name used twice (ignoring case), a property that is not a string, integer or boolean,
/// or an annotation that is not reached from the root through `properties` alone.
[[nodiscard]] expected<std::vector<ParamHeader>, std::string> paramHeadersOf(
    const nlohmann::json& inputSchema);

}  // namespace reagent::mcp::detail
