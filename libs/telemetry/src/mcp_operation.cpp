#include "reagent/telemetry/mcp_operation.hpp"

#include <utility>
#include <vector>

#include "reagent/core/json_fields.hpp"

namespace reagent::telemetry {

namespace {

std::string paramOr(const nlohmann::json& params, const char* key) {
    return params.is_object() ? stringOr(params, key) : std::string();
}

}  // namespace

McpOperation::McpOperation(Telemetry& telemetry, SpanKind kind, std::string method,
                           const nlohmann::json& params, const SpanContext* parent, std::string transport,
                           std::string protocolName)
    : instruments_(telemetry.instruments()),
      kind_(kind),
      method_(std::move(method)),
      transport_(std::move(transport)),
      start_(std::chrono::steady_clock::now()) {
    std::string target;
    if (method_ == "tools/call") {
        toolName_ = paramOr(params, "name");
        target = toolName_;
    } else if (method_ == "prompts/get") {
        promptName_ = paramOr(params, "name");
        target = promptName_;
    }
    span_ = telemetry.tracer().startSpan(target.empty() ? method_ : method_ + " " + target, kind, parent);
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
    if (!protocolName.empty()) {
        span_.setAttribute("network.protocol.name", std::move(protocolName));
    }
}

void McpOperation::end(const McpOutcome& outcome, std::string_view protocolVersion) {
    if (span_.recording()) {
        if (!protocolVersion.empty()) {
            span_.setAttribute("mcp.protocol.version", std::string(protocolVersion));
        }
        if (!outcome.errorType.empty()) {
            span_.setAttribute("error.type", outcome.errorType);
            span_.setStatus(StatusCode::error, outcome.message);
        }
        if (!outcome.statusCode.empty()) {
            span_.setAttribute("rpc.response.status_code", outcome.statusCode);
        }
    }
    span_.end();
    if (instruments_ == nullptr) {
        return;
    }
    std::vector<Attribute> attributes;
    attributes.reserve(8);
    attributes.push_back({"mcp.method.name", method_});
    if (!toolName_.empty()) {
        attributes.push_back({"gen_ai.tool.name", toolName_});
        attributes.push_back({"gen_ai.operation.name", std::string("execute_tool")});
    }
    if (!promptName_.empty()) {
        attributes.push_back({"gen_ai.prompt.name", promptName_});
    }
    if (!outcome.errorType.empty()) {
        attributes.push_back({"error.type", outcome.errorType});
    }
    if (!outcome.statusCode.empty()) {
        attributes.push_back({"rpc.response.status_code", outcome.statusCode});
    }
    if (!protocolVersion.empty()) {
        attributes.push_back({"mcp.protocol.version", std::string(protocolVersion)});
    }
    attributes.push_back({"network.transport", transport_});
    Histogram& duration =
        kind_ == SpanKind::client ? instruments_->mcpClientDuration : instruments_->mcpServerDuration;
    duration.record(std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(),
                    std::move(attributes));
}

}  // namespace reagent::telemetry
