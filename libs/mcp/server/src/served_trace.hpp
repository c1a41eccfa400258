#pragma once
// The server side of OpenTelemetry's MCP conventions (internal to reagent::mcp_server): a span
// `{mcp.method.name} {target}` (kind server) per request, continuing the context the client sent in
// `params._meta`, and the request's `mcp.server.operation.duration`. A session has one only when its
// server was given telemetry.

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "reagent/core/expected.hpp"
#include "reagent/core/trace_context.hpp"
#include "reagent/jsonrpc/message.hpp"
#include "reagent/telemetry/mcp_operation.hpp"

namespace reagent::mcp::detail {

class ServedTrace {
  public:
    /// `overHttp`: the session's frames come over HTTP (else stdio: `network.transport` `pipe`).
    ServedTrace(std::shared_ptr<telemetry::Telemetry> telemetry, bool overHttp);

    /// A request arrived; a second one with the id of a request being served is not traced.
    void begin(const jsonrpc::Request& request);
    /// The context of the request's span, for the work it starts (a tool call); null when none.
    [[nodiscard]] const SpanContext* context(const jsonrpc::RequestId& id) const;
    /// The request was answered (`outcome`; a result with `isError` is a tool's failure), under
    /// `protocolVersion`.
    void end(const jsonrpc::RequestId& id, const expected<nlohmann::json, jsonrpc::RpcError>& outcome,
             std::string_view protocolVersion);
    /// The request ends without an answer (cancelled by the client).
    void abandon(const jsonrpc::RequestId& id, std::string_view protocolVersion);

  private:
    struct Served {
        telemetry::McpOperation operation;
        SpanContext context;
    };

    std::shared_ptr<telemetry::Telemetry> telemetry_;
    bool overHttp_;
    std::map<jsonrpc::RequestId, Served> served_;
};

}  // namespace reagent::mcp::detail
