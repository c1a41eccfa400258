#include "reagent/mcp/tool_channel.hpp"

#include <utility>

#include "input_rounds.hpp"

namespace reagent::mcp {

using nlohmann::json;
using tools::ToolErrc;
using tools::ToolError;

namespace {

ToolError noChannel(const std::string& method) {
    return ToolError{ToolErrc::failed,
                     "this call has no way back to an MCP client (it was not made through "
                     "an MCP server's tools/call), so " +
                         method + " cannot be sent"};
}

ToolError malformed(const std::string& method, const std::string& what) {
    return ToolError{ToolErrc::failed, "the client's answer to " + method + " is malformed: " + what};
}

json samplingParams(SamplingRequest request) {
    json messages = json::array();
    for (auto& message : request.messages) {
        messages.push_back(json{{"role", std::move(message.role)}, {"content", std::move(message.content)}});
    }
    json params = {{"messages", std::move(messages)}, {"maxTokens", request.maxTokens}};
    if (!request.systemPrompt.empty()) {
        params["systemPrompt"] = std::move(request.systemPrompt);
    }
    if (request.temperature) {
        params["temperature"] = *request.temperature;
    }
    if (!request.stopSequences.empty()) {
        params["stopSequences"] = std::move(request.stopSequences);
    }
    if (!request.modelPreferences.is_null()) {
        params["modelPreferences"] = std::move(request.modelPreferences);
    }
    if (!request.key.empty()) {
        params[detail::kInputKeyField] = std::move(request.key);
    }
    return params;
}

// The coroutines take the channel's function by value: the caller's context may not outlive a suspension.
Task<expected<SamplingResult, ToolError>> sampleWith(tools::CallerRequest request, json params) {
    const std::string method = "sampling/createMessage";
    auto asked = request(method, std::move(params));
    auto answer = co_await std::move(asked);
    if (!answer) {
        co_return fail(std::move(answer.error()));
    }
    const json& result = *answer;
    if (!result.is_object() || !result.contains("content") || !result["content"].is_object()) {
        co_return fail(malformed(method, "no content object"));
    }
    SamplingResult out;
    out.role = result.value("role", std::string("assistant"));
    out.content = result["content"];
    out.model = result.value("model", std::string());
    out.stopReason = result.value("stopReason", std::string());
    co_return out;
}

Task<expected<ElicitResult, ToolError>> elicitWith(tools::CallerRequest request, json params) {
    const std::string method = "elicitation/create";
    auto asked = request(method, std::move(params));
    auto answer = co_await std::move(asked);
    if (!answer) {
        co_return fail(std::move(answer.error()));
    }
    const json& result = *answer;
    if (!result.is_object() || !result.contains("action") || !result["action"].is_string()) {
        co_return fail(malformed(method, "no action (accept, decline or cancel)"));
    }
    ElicitResult out;
    out.action = result["action"].get<std::string>();
    if (const auto content = result.find("content"); content != result.end()) {
        out.content = *content;
    }
    co_return out;
}

Task<expected<std::vector<Root>, ToolError>> rootsWith(tools::CallerRequest request, json params) {
    const std::string method = "roots/list";
    auto asked = request(method, std::move(params));
    auto answer = co_await std::move(asked);
    if (!answer) {
        co_return fail(std::move(answer.error()));
    }
    const json& result = *answer;
    if (!result.is_object() || !result.contains("roots") || !result["roots"].is_array()) {
        co_return fail(malformed(method, "no roots array"));
    }
    std::vector<Root> roots;
    for (const auto& root : result["roots"]) {
        if (!root.is_object() || !root.contains("uri") || !root["uri"].is_string()) {
            co_return fail(malformed(method, "a root without a uri"));
        }
        roots.push_back(Root{root["uri"].get<std::string>(), root.value("name", std::string())});
    }
    co_return roots;
}

template <class T>
Task<expected<T, ToolError>> refuse(ToolError error) {
    co_return fail(std::move(error));
}

}  // namespace

Task<expected<SamplingResult, ToolError>> sample(const tools::ToolContext& context, SamplingRequest request) {
    if (!context.request) {
        return refuse<SamplingResult>(noChannel("sampling/createMessage"));
    }
    return sampleWith(context.request, samplingParams(std::move(request)));
}

Task<expected<ElicitResult, ToolError>> elicit(const tools::ToolContext& context, ElicitRequest request) {
    if (!context.request) {
        return refuse<ElicitResult>(noChannel("elicitation/create"));
    }
    json params = {{"message", std::move(request.message)},
                   {"requestedSchema", std::move(request.requestedSchema)}};
    if (!request.key.empty()) {
        params[detail::kInputKeyField] = std::move(request.key);
    }
    return elicitWith(context.request, std::move(params));
}

Task<expected<std::vector<Root>, ToolError>> listRoots(const tools::ToolContext& context, std::string key) {
    if (!context.request) {
        return refuse<std::vector<Root>>(noChannel("roots/list"));
    }
    json params = json::object();
    if (!key.empty()) {
        params[detail::kInputKeyField] = std::move(key);
    }
    return rootsWith(context.request, std::move(params));
}

void logToClient(const tools::ToolContext& context, LogLevel level, json data, std::string logger) {
    if (!context.notify) {
        return;
    }
    json params = {{"level", toString(level)}};
    if (!logger.empty()) {
        params["logger"] = std::move(logger);
    }
    params["data"] = std::move(data);
    context.notify("notifications/message", std::move(params));
}

}  // namespace reagent::mcp
