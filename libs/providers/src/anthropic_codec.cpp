#include "reagent/providers/anthropic_codec.hpp"

#include <utility>

#include "codec_common.hpp"
#include "json_access.hpp"
#include "reagent/providers/provider_http_error.hpp"

namespace reagent::providers::anthropic {

namespace {

using detail::json;
using llm::Message;
using llm::Role;
using llm::StreamDelta;

constexpr std::string_view kProvider = "anthropic";

llm::StopReason stopReason(std::string_view reason) {
    if (reason == "end_turn") {
        return llm::StopReason::end_turn;
    }
    if (reason == "tool_use") {
        return llm::StopReason::tool_use;
    }
    if (reason == "max_tokens" || reason == "model_context_window_exceeded") {
        return llm::StopReason::max_tokens;
    }
    if (reason == "stop_sequence") {
        return llm::StopReason::stop_sequence;
    }
    return llm::StopReason::other;  // pause_turn, refusal, and whatever comes next
}

// Sets the counts `usage` carries. Input counts cache writes and reads too: they are input tokens spent.
void applyUsage(const json& usage, llm::Usage& out) {
    const auto input = detail::integerMember(usage, "input_tokens");
    const auto cacheWrite = detail::integerMember(usage, "cache_creation_input_tokens");
    const auto cacheRead = detail::integerMember(usage, "cache_read_input_tokens");
    if (input || cacheWrite || cacheRead) {
        out.inputTokens = input.value_or(0) + cacheWrite.value_or(0) + cacheRead.value_or(0);
    }
    if (const auto output = detail::integerMember(usage, "output_tokens")) {
        out.outputTokens = *output;  // cumulative in message_delta
    }
}

json assistantContent(const Message& message, const ToolNameMap& names) {
    if (message.toolCalls.empty()) {
        return message.text.empty() ? json() : json(message.text);
    }
    json blocks = json::array();
    if (!message.text.empty()) {
        blocks.push_back({{"type", "text"}, {"text", message.text}});
    }
    for (const llm::ToolCall& call : message.toolCalls) {
        blocks.push_back({{"type", "tool_use"},
                          {"id", call.id},
                          {"name", names.toWire(call.name)},
                          {"input", detail::argumentsObject(call.arguments)}});
    }
    return blocks;
}

json toolResult(const Message& message) {
    json block = {{"type", "tool_result"}, {"tool_use_id", message.toolCallId}, {"content", message.text}};
    if (message.isError) {
        block["is_error"] = true;
    }
    return block;
}

json encodeMessages(const std::vector<Message>& messages, const ToolNameMap& names) {
    json out = json::array();
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const Message& message = messages[i];
        switch (message.role) {
            case Role::system:
                break;  // carried by the top-level `system`
            case Role::user:
                if (!message.text.empty()) {
                    out.push_back({{"role", "user"}, {"content", message.text}});
                }
                break;
            case Role::assistant: {
                json content = assistantContent(message, names);
                if (!content.is_null()) {
                    out.push_back({{"role", "assistant"}, {"content", std::move(content)}});
                }
                break;
            }
            case Role::tool: {
                // Results of a parallel batch must all be in the one user message after the tool_use turn.
                json blocks = json::array();
                for (; i < messages.size() && messages[i].role == Role::tool; ++i) {
                    blocks.push_back(toolResult(messages[i]));
                }
                --i;
                out.push_back({{"role", "user"}, {"content", std::move(blocks)}});
                break;
            }
        }
    }
    return out;
}

}  // namespace

EncodedRequest encodeRequest(const llm::ModelRequest& request, const CodecOptions& options) {
    EncodedRequest encoded;
    encoded.path = "/v1/messages";
    encoded.toolNames = ToolNameMap(request.tools, ToolNameRules::standard);
    json& body = encoded.body;
    body = json::object();
    body["model"] = options.model;
    body["max_tokens"] = request.maxTokens.value_or(options.defaultMaxTokens);
    if (std::string system = detail::systemPrompt(request); !system.empty()) {
        body["system"] = std::move(system);
    }
    body["messages"] = encodeMessages(request.messages, encoded.toolNames);
    if (!request.tools.empty()) {
        json tools = json::array();
        for (const llm::ToolSpec& tool : request.tools) {
            json entry = {{"name", encoded.toolNames.toWire(tool.name)},
                          {"input_schema", detail::toolSchema(tool)}};
            if (!tool.description.empty()) {
                entry["description"] = tool.description;
            }
            tools.push_back(std::move(entry));
        }
        body["tools"] = std::move(tools);
    }
    if (request.temperature) {
        body["temperature"] = *request.temperature;
    }
    body["stream"] = options.stream;
    return encoded;
}

expected<llm::ModelReply, llm::ProviderError> decodeResponse(int httpStatus, std::string_view body,
                                                             const ToolNameMap& names,
                                                             const http::HttpHeaders& headers) {
    if (httpStatus < 200 || httpStatus > 299) {
        return fail(httpError(kProvider, httpStatus, body, headers));
    }
    const auto parsed = detail::parse(body);
    if (!parsed || !parsed->is_object()) {
        return fail(
            malformedResponse(kProvider, "the response is not a JSON object: " + detail::excerpt(body)));
    }
    if (detail::stringOr(*parsed, "type") == "error") {
        return fail(streamError(kProvider, *parsed));
    }
    const json* content = detail::arrayMember(*parsed, "content");
    if (content == nullptr) {
        return fail(
            malformedResponse(kProvider, "the response has no content array: " + detail::excerpt(body)));
    }
    ReplyAssembler assembler(std::string(kProvider), names);
    std::vector<StreamDelta> unused;
    for (const json& block : *content) {
        const std::string type = detail::stringOr(block, "type");
        if (type == "text") {
            assembler.appendText(detail::stringOr(block, "text"), unused);
        } else if (type == "tool_use") {
            const json* input = detail::member(block, "input");
            assembler.addCall(detail::stringOr(block, "id"), detail::stringOr(block, "name"),
                              input != nullptr ? *input : json::object(), {}, unused);
        }
    }
    if (const auto reason = detail::stringMember(*parsed, "stop_reason")) {
        assembler.setStopReason(stopReason(*reason));
    }
    if (const json* usage = detail::objectMember(*parsed, "usage")) {
        applyUsage(*usage, assembler.usage());
    }
    assembler.setModel(detail::stringOr(*parsed, "model"));
    return assembler.finish();
}

StreamDecoder::StreamDecoder(ToolNameMap names) : assembler_(std::string(kProvider), std::move(names)) {}

expected<std::vector<StreamDelta>, llm::ProviderError> StreamDecoder::feed(const http::SseEvent& event) {
    if (failure_) {
        return fail(*failure_);
    }
    const auto parsed = detail::parse(event.data);
    if (!parsed || !parsed->is_object()) {
        failure_ = malformedResponse(
            kProvider,
            "stream event '" + event.type + "' does not carry a JSON object: " + detail::excerpt(event.data));
        return fail(*failure_);
    }
    const json& data = *parsed;
    const std::string type = detail::stringMember(data, "type").value_or(event.type);
    const std::int64_t index = detail::integerMember(data, "index").value_or(-1);
    std::vector<StreamDelta> out;
    if (type == "message_start") {
        if (const json* message = detail::objectMember(data, "message")) {
            assembler_.setModel(detail::stringOr(*message, "model"));
            if (const json* usage = detail::objectMember(*message, "usage")) {
                applyUsage(*usage, assembler_.usage());
            }
        }
    } else if (type == "content_block_start") {
        const json* block = detail::objectMember(data, "content_block");
        const std::string blockType = block != nullptr ? detail::stringOr(*block, "type") : std::string();
        if (blockType == "text") {
            assembler_.appendText(detail::stringOr(*block, "text"), out);
        } else if (blockType == "tool_use") {
            assembler_.openCall(index, detail::stringOr(*block, "id"), detail::stringOr(*block, "name"), out);
        }
    } else if (type == "content_block_delta") {
        const json* delta = detail::objectMember(data, "delta");
        const std::string deltaType = delta != nullptr ? detail::stringOr(*delta, "type") : std::string();
        if (deltaType == "text_delta") {
            assembler_.appendText(detail::stringOr(*delta, "text"), out);
        } else if (deltaType == "input_json_delta" && assembler_.hasCall(index)) {
            // Only for tool_use blocks: server-tool blocks stream input_json_delta too, and are ignored.
            assembler_.appendArguments(index, detail::stringOr(*delta, "partial_json"), out);
        }
    } else if (type == "message_delta") {
        if (const json* delta = detail::objectMember(data, "delta")) {
            if (const auto reason = detail::stringMember(*delta, "stop_reason")) {
                assembler_.setStopReason(stopReason(*reason));
            }
        }
        if (const json* usage = detail::objectMember(data, "usage")) {
            applyUsage(*usage, assembler_.usage());
        }
    } else if (type == "error") {
        failure_ = streamError(kProvider, data);
        return fail(*failure_);
    }
    return out;
}

expected<llm::ModelReply, llm::ProviderError> StreamDecoder::finish() const {
    if (failure_) {
        return fail(*failure_);
    }
    if (!assembler_.stopReasonKnown()) {
        return fail(incompleteStream(kProvider, "no stop_reason arrived"));
    }
    return assembler_.finish();
}

}  // namespace reagent::providers::anthropic
