// A server's sampling/createMessage answered by a provider (the agent's own, as reagent::AgentBuilder
// wires it).

#include <algorithm>
#include <climits>
#include <cstdint>

#include "reagent/core/json_fields.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/mcp/tool_source.hpp"

namespace reagent::mcp {
namespace {

using nlohmann::json;

// The text of one sampling message's content: a block or (2025-11-25) an array of blocks.
std::string contentText(const json& content) {
    if (content.is_array()) {
        std::string text;
        for (const json& block : content) {
            const std::string piece = contentText(block);
            if (!piece.empty()) {
                text += (text.empty() ? "" : "\n") + piece;
            }
        }
        return text;
    }
    if (stringOr(content, "type") == "text") {
        if (auto text = requiredString(content, "text")) {
            return std::move(*text);
        }
    }
    return contentToText(json::array({content}));
}

// A free coroutine: its frame holds the provider, so a request in flight keeps it alive.
Task<expected<json, RpcError>> sampleWithProvider(std::shared_ptr<llm::Provider> provider, json params) {
    if (!provider) {
        co_return unexpected(RpcError{kInternalError, "the agent has no provider"});
    }
    const auto messages = requiredArray(params, "messages");
    if (!messages) {
        co_return unexpected(RpcError{kInvalidParams, "sampling/createMessage needs a messages array"});
    }
    llm::ModelRequest request;
    // The optional fields are read leniently: one of another type is left out, as if absent.
    if (const auto system = optionalString(params, "systemPrompt"); system && *system) {
        request.messages.push_back(llm::Message::system(**system));
    }
    for (const json& message : **messages) {
        const std::string role = stringOr(message, "role", "user");
        std::string text = contentText(message.is_object() ? message.value("content", json()) : json());
        request.messages.push_back(role == "assistant" ? llm::Message::assistant(std::move(text))
                                                       : llm::Message::user(std::move(text)));
    }
    if (const auto most = optionalInteger(params, "maxTokens"); most && *most) {
        request.maxTokens = static_cast<int>(std::clamp<std::int64_t>(**most, 0, INT_MAX));
    }
    if (params.contains("temperature") && params.at("temperature").is_number()) {
        request.temperature = params.at("temperature").get<double>();
    }
    auto reply = co_await provider->complete(std::move(request));
    if (!reply) {
        co_return unexpected(RpcError{kInternalError, "the model call failed: " + reply.error().message});
    }
    const std::string stop = reply->stopReason == llm::StopReason::max_tokens ? "maxTokens" : "endTurn";
    co_return json{{"role", "assistant"},
                   {"content", {{"type", "text"}, {"text", reply->text}}},
                   {"model", reply->model.empty() ? std::string(provider->name()) : reply->model},
                   {"stopReason", stop}};
}

Task<expected<json, RpcError>> decide(std::shared_ptr<llm::Provider> provider, SamplingPolicy allow,
                                      std::string server, json params) {
    const auto allowed = settleCall(allow, server, params);
    if (!allowed || !*allowed) {
        co_return unexpected(RpcError{-1, "the user declined the sampling request"});
    }
    co_return co_await sampleWithProvider(std::move(provider), std::move(params));
}

}  // namespace

RequestHandler samplingWith(std::shared_ptr<llm::Provider> provider, SamplingPolicy allow,
                            std::string server) {
    return [provider = std::move(provider), allow = std::move(allow), server = std::move(server)](
               json params) { return decide(provider, allow, server, std::move(params)); };
}

}  // namespace reagent::mcp
