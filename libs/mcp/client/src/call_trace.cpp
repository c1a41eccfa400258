#include "call_trace.hpp"

#include <utility>

#include "reagent/http/url_parts.hpp"
#include "reagent/telemetry/trace_context.hpp"

namespace reagent::mcp::detail {

namespace {

using nlohmann::json;

std::string_view protocolOf(TransportKind transport) {
    switch (transport) {
        case TransportKind::stdio:
            return {};
        case TransportKind::websocket:
            return "websocket";
        default:
            return "http";
    }
}

}  // namespace

CallTrace::CallTrace(std::shared_ptr<telemetry::Telemetry> telemetry, const ServerConfig& config,
                     std::string method, json& params, const SpanContext& parent)
    : telemetry_(std::move(telemetry)),
      operation_(*telemetry_, telemetry::SpanKind::client, std::move(method), params, &parent,
                 config.transport == TransportKind::stdio ? "pipe" : "tcp",
                 std::string(protocolOf(config.transport))) {
    telemetry::Span& span = operation_.span();
    // The MCP conventions carry the context in the request's `_meta`, on every transport.
    if (!params.is_object()) {
        params = json::object();
    }
    json& meta = params["_meta"];
    meta["traceparent"] = telemetry::formatTraceparent(span.context());
    if (!span.context().traceState.empty()) {
        meta["tracestate"] = span.context().traceState;
    } else {
        meta.erase("tracestate");
    }
    if (span.recording() && config.transport != TransportKind::stdio) {
        if (auto parts = http::urlParts(config.url)) {
            span.setAttribute("server.address", std::move(parts->host));
            span.setAttribute("server.port", static_cast<std::int64_t>(parts->port));
        }
    }
}

void CallTrace::end(const expected<json, McpError>& outcome, const CallRecord& record,
                    std::string_view protocolVersion) {
    telemetry::McpOutcome ended;
    if (record.rpcErrorCode) {
        // The conventions: the JSON-RPC code, as a string, is both the error type and the status code.
        ended.statusCode = std::to_string(*record.rpcErrorCode);
        ended.errorType = ended.statusCode;
        ended.message = outcome ? std::string() : outcome.error().message;
    } else if (!outcome) {
        ended.errorType = std::string(toString(outcome.error().code));
        ended.message = outcome.error().message;
    } else if (operation_.method() == "tools/call" && outcome->is_object() &&
               outcome->value("isError", false)) {
        ended.errorType = "tool_error";
        ended.message = "the tool reported an error";
    }
    if (record.requestId >= 0 && operation_.span().recording()) {
        operation_.span().setAttribute("jsonrpc.request.id", std::to_string(record.requestId));
    }
    operation_.end(ended, protocolVersion);
}

}  // namespace reagent::mcp::detail
