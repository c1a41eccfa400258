#pragma once
// The client side of OpenTelemetry's MCP conventions (internal to reagent::mcp): a span
// `{mcp.method.name} {target}` (kind client) per request, its context sent in `params._meta`, and the
// request's `mcp.client.operation.duration`. Only for a client given telemetry (`ClientOptions::telemetry`):
// the agent's MCP tool source gives its clients none, since its `execute_tool` span is already the client
// span, and the conventions ask for one only.

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "reagent/core/expected.hpp"
#include "reagent/core/trace_context.hpp"
#include "reagent/mcp/mcp_error.hpp"
#include "reagent/mcp/server_config.hpp"
#include "reagent/telemetry/mcp_operation.hpp"

namespace reagent::mcp::detail {

/// What the exchange of one traced request tells its span, beside the call's outcome.
struct CallRecord {
    /// The id of the last request sent for the call (a 2026 call may take several rounds); -1 if none.
    std::int64_t requestId = -1;
    /// The code of the JSON-RPC error the server answered, when it did.
    std::optional<int> rpcErrorCode;
};

class CallTrace {
  public:
    /// Starts the span of `method` to the server of `config`, child of `parent` (not valid: a new trace),
    /// and puts its context in `params._meta` (made an object when it was none).
    CallTrace(std::shared_ptr<telemetry::Telemetry> telemetry, const ServerConfig& config, std::string method,
              nlohmann::json& params, const SpanContext& parent);
    CallTrace(const CallTrace&) = delete;
    CallTrace& operator=(const CallTrace&) = delete;

    /// The call ended with `outcome` (a `tools/call` result with `isError` is a tool's failure), under
    /// `protocolVersion`.
    void end(const expected<nlohmann::json, McpError>& outcome, const CallRecord& record,
             std::string_view protocolVersion);

  private:
    std::shared_ptr<telemetry::Telemetry> telemetry_;  // kept alive for the operation
    telemetry::McpOperation operation_;
};

}  // namespace reagent::mcp::detail
