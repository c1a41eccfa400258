#pragma once
// Private to reagent::mcp_remote: the HTTP headers a 2026-07-28 request carries beside its body
// (MCP-Protocol-Version, Mcp-Method, Mcp-Name), read from the frame itself so that they always mirror it.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reagent/mcp/transport.hpp"

namespace reagent::mcp::detail {

struct ModernHeaders {
    /// `params._meta["io.modelcontextprotocol/protocolVersion"]`.
    std::string version;
    std::string method;
    /// `params.name` of `tools/call` and `prompts/get`, `params.uri` of `resources/read`, encoded
    /// (`http::encodeHeaderValue`); empty for the other methods.
    std::string name;
    /// `Mcp-Param-<name>` of a tools/call: the arguments its tool marks with `x-mcp-header`, encoded; an
    /// argument that is absent or null has none.
    std::vector<std::pair<std::string, std::string>> params;
};

/// The headers of `message` when it is a request with the 2026 envelope; nothing for anything else (a
/// request of the handshake era, a notification, a response).
/// `paramHeaders` (may be null) names the arguments each tool mirrors.
[[nodiscard]] std::optional<ModernHeaders> modernHeaders(const nlohmann::json& message,
                                                         const ParamHeaders* paramHeaders);

}  // namespace reagent::mcp::detail
