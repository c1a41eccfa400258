#include "call_trace.hpp"

#include <utility>
#include <vector>

#include "reagent/core/json_fields.hpp"
#include "reagent/http/url_parts.hpp"
#include "reagent/telemetry/trace_context.hpp"

namespace reagent::mcp::detail {

namespace {

using nlohmann::json;

std::string paramOr(const json& params, const char* key) {
    return params.is_object() ? stringOr(params, key) : std::string();
}

}  // namespace

CallTrace::CallTrace(std::shared_ptr<telemetry::Telemetry> telemetry, const ServerConfig& config,
                     std::string method, json& params, const SpanContext& parent)
    : telemetry_(std::move(telemetry)),
      method_(std::move(method)),
      transport_(config.transport == TransportKind::stdio ? "pipe" : "tcp"),
      start_(std::chrono::steady_clock::now()) {
    std::string target;
    if (method_ == "tools/call") {
        toolName_ = paramOr(params, "name");
        target = toolName_;
    } else if (method_ == "prompts/get") {
        promptName_ = paramOr(params, "name");
        target = promptName_;
    }
    span_ = telemetry_->tracer().startSpan(target.empty() ? method_ : method_ + " " + target,
                                           telemetry::SpanKind::client, &parent);
    // The MCP conventions carry the context in the request's `_meta`, on every transport.
    if (!params.is_object()) {
        params = json::object();
    }
    json& meta = params["_meta"];
    meta["traceparent"] = telemetry::formatTraceparent(span_.context());
    if (!span_.context().traceState.empty()) {
        meta["tracestate"] = span_.context().traceState;
    } else {
        meta.erase("tracestate");
    }
    if (!span_.recording()) {
        return;
    }
    span_.setAttribute("mcp.method.name", method_);
    if (!toolName_.empty()) {
        span_.setAttribute("gen_ai.tool.name", toolName_);
        span_.setAttribute("gen_ai.operation.name", std::string("execute_tool"));
    }
    if (!promptName_.empty()) {
        span_.setAttribute("gen_ai.prompt.name", promptName_);
    }
    if (method_.starts_with("resources/") && method_ != "resources/list" &&
        method_ != "resources/templates/list") {
        if (std::string uri = paramOr(params, "uri"); !uri.empty()) {
            span_.setAttribute("mcp.resource.uri", std::move(uri));
        }
    }
    span_.setAttribute("network.transport", transport_);
    if (config.transport != TransportKind::stdio) {
        span_.setAttribute("network.protocol.name",
                           std::string(config.transport == TransportKind::websocket ? "websocket" : "http"));
        if (auto parts = http::urlParts(config.url)) {
            span_.setAttribute("server.address", std::move(parts->host));
            span_.setAttribute("server.port", static_cast<std::int64_t>(parts->port));
        }
    }
}

void CallTrace::end(const expected<json, McpError>& outcome, const CallRecord& record,
                    std::string_view protocolVersion) {
    std::string errorType;
    std::string statusCode;
    std::string message;
    if (record.rpcErrorCode) {
        // The conventions: the JSON-RPC code, as a string, is both the error type and the status code.
        statusCode = std::to_string(*record.rpcErrorCode);
        errorType = statusCode;
        message = outcome ? std::string() : outcome.error().message;
    } else if (!outcome) {
        errorType = std::string(toString(outcome.error().code));
        message = outcome.error().message;
    } else if (method_ == "tools/call" && outcome->is_object() && outcome->value("isError", false)) {
        errorType = "tool_error";
        message = "the tool reported an error";
    }
    if (span_.recording()) {
        if (record.requestId >= 0) {
            span_.setAttribute("jsonrpc.request.id", std::to_string(record.requestId));
        }
        if (!protocolVersion.empty()) {
            span_.setAttribute("mcp.protocol.version", std::string(protocolVersion));
        }
        if (!errorType.empty()) {
            span_.setAttribute("error.type", errorType);
            span_.setStatus(telemetry::StatusCode::error, message);
        }
        if (!statusCode.empty()) {
            span_.setAttribute("rpc.response.status_code", statusCode);
        }
    }
    span_.end();
    if (const telemetry::Instruments* metrics = telemetry_->instruments()) {
        std::vector<telemetry::Attribute> attributes;
        attributes.reserve(8);
        attributes.push_back({"mcp.method.name", method_});
        if (!toolName_.empty()) {
            attributes.push_back({"gen_ai.tool.name", toolName_});
            attributes.push_back({"gen_ai.operation.name", std::string("execute_tool")});
        }
        if (!promptName_.empty()) {
            attributes.push_back({"gen_ai.prompt.name", promptName_});
        }
        if (!errorType.empty()) {
            attributes.push_back({"error.type", std::move(errorType)});
        }
        if (!statusCode.empty()) {
            attributes.push_back({"rpc.response.status_code", std::move(statusCode)});
        }
        if (!protocolVersion.empty()) {
            attributes.push_back({"mcp.protocol.version", std::string(protocolVersion)});
        }
        attributes.push_back({"network.transport", transport_});
        metrics->mcpClientDuration.record(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(),
            std::move(attributes));
    }
}

}  // namespace reagent::mcp::detail
