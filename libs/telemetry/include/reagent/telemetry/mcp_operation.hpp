#pragma once
/// \file
/// \brief `McpOperation`: one MCP request in OpenTelemetry's MCP semantic conventions, as its client and its
/// server both trace it: the span `{mcp.method.name} {target}` and its attributes, how the request ended,
/// and its point of `mcp.client.operation.duration` or `mcp.server.operation.duration`.

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "reagent/telemetry/instruments.hpp"
#include "reagent/telemetry/telemetry.hpp"

namespace reagent::telemetry {

/// \brief How an MCP request ended, in the conventions' terms; all empty when it succeeded.
struct McpOutcome {
    /// `error.type`: the JSON-RPC code as text, `tool_error` for a result with `isError`, `cancelled`, or the
    /// name of a client's own failure.
    std::string errorType;
    /// `rpc.response.status_code`: the JSON-RPC code as text, when the answer was a JSON-RPC error.
    std::string statusCode;
    /// The span's status message.
    std::string message;
};

/// \brief The span and the duration of one MCP request, from its start to its end.
class McpOperation {
  public:
    /// Starts the span (`SpanKind::client` or `server`) of request `method` with `params`, child of `parent`
    /// (null or invalid: a new trace), recording `mcp.method.name`, the tool or prompt it names, the resource
    /// it reads, `network.transport` (`pipe` or `tcp`) and, when not empty, `network.protocol.name`.
    McpOperation(Telemetry& telemetry, SpanKind kind, std::string method, const nlohmann::json& params,
                 const SpanContext* parent, std::string transport, std::string protocolName = {});

    /// The span, for what only one side knows (the request's id, the server's address).
    [[nodiscard]] Span& span() noexcept { return span_; }
    [[nodiscard]] const std::string& method() const noexcept { return method_; }

    /// Ends the span with `outcome` under `protocolVersion` (empty: unknown), and records the duration.
    void end(const McpOutcome& outcome, std::string_view protocolVersion);

  private:
    const Instruments* instruments_;
    SpanKind kind_;
    std::string method_;
    std::string toolName_;
    std::string promptName_;
    std::string transport_;
    std::chrono::steady_clock::time_point start_;
    Span span_;
};

}  // namespace reagent::telemetry
