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

}  // namespace

ServedTrace::ServedTrace(std::shared_ptr<telemetry::Telemetry> telemetry, bool overHttp)
    : telemetry_(std::move(telemetry)), overHttp_(overHttp) {}

void ServedTrace::begin(const jsonrpc::Request& request) {
    if (served_.contains(request.id)) {
        return;
    }
    const SpanContext parent = parentOf(request.params);
    Served served{
        telemetry::McpOperation(*telemetry_, telemetry::SpanKind::server, request.method, request.params,
                                &parent, overHttp_ ? "tcp" : "pipe", overHttp_ ? "http" : ""),
        {}};
    served.context = served.operation.span().context();
    if (served.operation.span().recording()) {
        served.operation.span().setAttribute("jsonrpc.request.id", jsonrpc::toString(request.id));
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
    telemetry::McpOutcome ended;
    if (!outcome) {
        // The conventions: the JSON-RPC code, as a string, is both the error type and the status code.
        ended.errorType = std::to_string(outcome.error().code);
        ended.statusCode = ended.errorType;
        ended.message = outcome.error().message;
    } else if (outcome->is_object() && outcome->value("isError", false)) {
        ended.errorType = "tool_error";
        ended.message = "the tool reported an error";
    }
    found->second.operation.end(ended, protocolVersion);
    served_.erase(found);
}

void ServedTrace::abandon(const jsonrpc::RequestId& id, std::string_view protocolVersion) {
    const auto found = served_.find(id);
    if (found == served_.end()) {
        return;
    }
    found->second.operation.end({"cancelled", {}, "the client cancelled the request"}, protocolVersion);
    served_.erase(found);
}

}  // namespace reagent::mcp::detail
