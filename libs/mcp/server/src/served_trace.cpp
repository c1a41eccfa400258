#include "served_trace.hpp"

#include <utility>

#include "reagent/core/json_fields.hpp"

namespace reagent::mcp::detail {

namespace {

using nlohmann::json;

// The context the client sent in `params._meta`; invalid (a new trace) when none or malformed, as W3C
// Trace Context asks.
SpanContext parentOf(const json& params) {
    if (!params.is_object()) {
        return {};
    }
    const auto meta = params.find("_meta");
    if (meta == params.end() || !meta->is_object()) {
        return {};
    }
    const std::string traceparent = stringOr(*meta, "traceparent");
    if (traceparent.empty()) {
        return {};
    }
    auto read = telemetry::parseTraceparent(traceparent, stringOr(*meta, "tracestate"));
    return read ? std::move(*read) : SpanContext{};
}

std::string paramOr(const json& params, const char* key) {
    return params.is_object() ? stringOr(params, key) : std::string();
}

}  // namespace

ServedTrace::ServedTrace(std::shared_ptr<telemetry::Telemetry> telemetry, bool overHttp)
    : telemetry_(std::move(telemetry)), overHttp_(overHttp) {}

void ServedTrace::begin(const jsonrpc::Request& request) {
    if (served_.contains(request.id)) {
        return;
    }
    Served served;
    served.method = request.method;
    served.start = std::chrono::steady_clock::now();
    std::string target;
    if (request.method == "tools/call") {
        served.toolName = paramOr(request.params, "name");
        target = served.toolName;
    } else if (request.method == "prompts/get") {
        served.promptName = paramOr(request.params, "name");
        target = served.promptName;
    }
    const SpanContext parent = parentOf(request.params);
    served.span =
        telemetry_->tracer().startSpan(target.empty() ? request.method : request.method + " " + target,
                                       telemetry::SpanKind::server, &parent);
    served.context = served.span.context();
    telemetry::Span& span = served.span;
    if (span.recording()) {
        span.setAttribute("mcp.method.name", request.method);
        span.setAttribute("jsonrpc.request.id", jsonrpc::toString(request.id));
        if (!served.toolName.empty()) {
            span.setAttribute("gen_ai.tool.name", served.toolName);
            span.setAttribute("gen_ai.operation.name", std::string("execute_tool"));
        }
        if (!served.promptName.empty()) {
            span.setAttribute("gen_ai.prompt.name", served.promptName);
        }
        if (request.method.starts_with("resources/") && request.method != "resources/list" &&
            request.method != "resources/templates/list") {
            if (std::string uri = paramOr(request.params, "uri"); !uri.empty()) {
                span.setAttribute("mcp.resource.uri", std::move(uri));
            }
        }
        span.setAttribute("network.transport", std::string(overHttp_ ? "tcp" : "pipe"));
        if (overHttp_) {
            span.setAttribute("network.protocol.name", std::string("http"));
        }
    }
    served_.emplace(request.id, std::move(served));
}

const SpanContext* ServedTrace::context(const jsonrpc::RequestId& id) const {
    const auto found = served_.find(id);
    return found == served_.end() || !found->second.context.valid() ? nullptr : &found->second.context;
}

void ServedTrace::end(const jsonrpc::RequestId& id, const expected<json, jsonrpc::RpcError>& outcome,
                      std::string_view protocolVersion) {
    const auto found = served_.find(id);
    if (found == served_.end()) {
        return;
    }
    if (!outcome) {
        // The conventions: the JSON-RPC code, as a string, is both the error type and the status code.
        const std::string code = std::to_string(outcome.error().code);
        finish(found->second, code, code, outcome.error().message, protocolVersion);
    } else if (outcome->is_object() && outcome->value("isError", false)) {
        finish(found->second, "tool_error", {}, "the tool reported an error", protocolVersion);
    } else {
        finish(found->second, {}, {}, {}, protocolVersion);
    }
    served_.erase(found);
}

void ServedTrace::abandon(const jsonrpc::RequestId& id, std::string_view protocolVersion) {
    const auto found = served_.find(id);
    if (found == served_.end()) {
        return;
    }
    finish(found->second, "cancelled", {}, "the client cancelled the request", protocolVersion);
    served_.erase(found);
}

void ServedTrace::finish(Served& served, std::string_view errorType, std::string_view statusCode,
                         const std::string& message, std::string_view protocolVersion) {
    telemetry::Span& span = served.span;
    if (span.recording()) {
        if (!protocolVersion.empty()) {
            span.setAttribute("mcp.protocol.version", std::string(protocolVersion));
        }
        if (!errorType.empty()) {
            span.setAttribute("error.type", std::string(errorType));
            span.setStatus(telemetry::StatusCode::error, message);
        }
        if (!statusCode.empty()) {
            span.setAttribute("rpc.response.status_code", std::string(statusCode));
        }
    }
    span.end();
    if (const telemetry::Instruments* metrics = telemetry_->instruments()) {
        std::vector<telemetry::Attribute> attributes;
        attributes.reserve(8);
        attributes.push_back({"mcp.method.name", served.method});
        if (!served.toolName.empty()) {
            attributes.push_back({"gen_ai.tool.name", served.toolName});
            attributes.push_back({"gen_ai.operation.name", std::string("execute_tool")});
        }
        if (!served.promptName.empty()) {
            attributes.push_back({"gen_ai.prompt.name", served.promptName});
        }
        if (!errorType.empty()) {
            attributes.push_back({"error.type", std::string(errorType)});
        }
        if (!statusCode.empty()) {
            attributes.push_back({"rpc.response.status_code", std::string(statusCode)});
        }
        if (!protocolVersion.empty()) {
            attributes.push_back({"mcp.protocol.version", std::string(protocolVersion)});
        }
        attributes.push_back({"network.transport", std::string(overHttp_ ? "tcp" : "pipe")});
        metrics->mcpServerDuration.record(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - served.start).count(),
            std::move(attributes));
    }
}

}  // namespace reagent::mcp::detail
