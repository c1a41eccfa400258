#include "reagent/providers/openai_codec.hpp"

#include <utility>

#include "codec_common.hpp"
#include "json_access.hpp"
#include "reagent/providers/provider_http_error.hpp"

namespace reagent::providers::openai {

namespace {

using detail::json;
using llm::Message;
using llm::Role;
using llm::StreamDelta;

constexpr std::string_view kProvider = "openai";

llm::StopReason stopReason(std::string_view reason) {
    if (reason == "stop") {
        return llm::StopReason::end_turn;
    }
    if (reason == "tool_calls" || reason == "function_call") {
        return llm::StopReason::tool_use;
    }
    if (reason == "length") {
        return llm::StopReason::max_tokens;
    }
    return llm::StopReason::other;  // content_filter, and whatever comes next
}

void applyUsage(const json& usage, llm::Usage& out) {
    if (const auto prompt = detail::integerMember(usage, "prompt_tokens")) {
        out.inputTokens = *prompt;
    }
    if (const auto completion = detail::integerMember(usage, "completion_tokens")) {
        out.outputTokens = *completion;
    }
}

json encodeMessage(const Message& message, const ToolNameMap& names) {
    switch (message.role) {
        case Role::system:
            return {{"role", "system"}, {"content", message.text}};
        case Role::user:
            return {{"role", "user"}, {"content", message.text}};
        case Role::tool:
            return {{"role", "tool"}, {"tool_call_id", message.toolCallId}, {"content", message.text}};
        case Role::assistant:
            break;
    }
    json out = {{"role", "assistant"}};
    // content may be null only when the message calls tools.
    out["content"] = message.text.empty() && !message.toolCalls.empty() ? json(nullptr) : json(message.text);
    if (!message.toolCalls.empty()) {
        json calls = json::array();
        for (const llm::ToolCall& call : message.toolCalls) {
            const std::string arguments =
                detail::argumentsObject(call.arguments).dump(-1, ' ', false, json::error_handler_t::replace);
            calls.push_back({{"id", call.id},
                             {"type", "function"},
                             {"function", {{"name", names.toWire(call.name)}, {"arguments", arguments}}}});
        }
        out["tool_calls"] = std::move(calls);
    }
    return out;
}

// Some compatible servers send `arguments` as an object instead of a string.
std::string argumentsText(const json& function) {
    const json* arguments = detail::member(function, "arguments");
    if (arguments == nullptr || arguments->is_null()) {
        return {};
    }
    if (arguments->is_string()) {
        return arguments->get<std::string>();
    }
    return arguments->dump(-1, ' ', false, json::error_handler_t::replace);
}

// The choice the codec reads: index 0 (requests never ask for n > 1).
const json* firstChoice(const json& chunk) {
    const json* choices = detail::arrayMember(chunk, "choices");
    if (choices == nullptr) {
        return nullptr;
    }
    for (const json& choice : *choices) {
        if (choice.is_object() && detail::integerMember(choice, "index").value_or(0) == 0) {
            return &choice;
        }
    }
    return nullptr;
}

}  // namespace

EncodedRequest encodeRequest(const llm::ModelRequest& request, const CodecOptions& options) {
    EncodedRequest encoded;
    encoded.path = "/chat/completions";
    encoded.toolNames = ToolNameMap(request.tools, ToolNameRules::standard);
    json& body = encoded.body;
    body = json::object();
    body["model"] = options.model;
    json messages = json::array();
    for (const Message& message : request.messages) {
        messages.push_back(encodeMessage(message, encoded.toolNames));
    }
    body["messages"] = std::move(messages);
    if (!request.tools.empty()) {
        body["tools"] = detail::functionTools(request, encoded.toolNames);
    }
    if (request.temperature) {
        body["temperature"] = *request.temperature;
    }
    if (request.maxTokens) {
        body[options.openAiMaxCompletionTokens ? "max_completion_tokens" : "max_tokens"] = *request.maxTokens;
    }
    body["stream"] = options.stream;
    if (options.stream) {
        body["stream_options"] = {{"include_usage", true}};
    }
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
    if (detail::member(*parsed, "error") != nullptr && !detail::member(*parsed, "error")->is_null()) {
        return fail(streamError(kProvider, *parsed));
    }
    const json* choice = firstChoice(*parsed);
    const json* message = choice != nullptr ? detail::objectMember(*choice, "message") : nullptr;
    if (message == nullptr) {
        return fail(malformedResponse(kProvider,
                                      "the response has no choice with a message: " + detail::excerpt(body)));
    }
    ReplyAssembler assembler(std::string(kProvider), names);
    std::vector<StreamDelta> unused;
    assembler.appendText(detail::stringOr(*message, "content"), unused);
    assembler.appendText(detail::stringOr(*message, "refusal"), unused);
    if (const json* calls = detail::arrayMember(*message, "tool_calls")) {
        for (const json& call : *calls) {
            const json* function = detail::objectMember(call, "function");
            if (function == nullptr) {
                continue;  // not a function call (no other kind exists in Chat Completions today)
            }
            assembler.addCallText(detail::stringOr(call, "id"), detail::stringOr(*function, "name"),
                                  argumentsText(*function), unused);
        }
    }
    if (const auto reason = detail::stringMember(*choice, "finish_reason")) {
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
    if (event.data == "[DONE]") {
        done_ = true;
        return std::vector<StreamDelta>{};
    }
    const auto parsed = detail::parse(event.data);
    if (!parsed || !parsed->is_object()) {
        failure_ = malformedResponse(
            kProvider, "stream data is neither a JSON object nor [DONE]: " + detail::excerpt(event.data));
        return fail(*failure_);
    }
    const json& chunk = *parsed;
    if (const json* error = detail::member(chunk, "error"); error != nullptr && !error->is_null()) {
        failure_ = streamError(kProvider, chunk);
        return fail(*failure_);
    }
    std::vector<StreamDelta> out;
    if (auto model = detail::stringMember(chunk, "model"); model && !model->empty()) {
        assembler_.setModel(std::move(*model));
    }
    if (const json* usage = detail::objectMember(chunk, "usage")) {
        applyUsage(*usage, assembler_.usage());
    }
    const json* choice = firstChoice(chunk);
    if (choice == nullptr) {
        return out;  // the usage chunk
    }
    if (const json* delta = detail::objectMember(*choice, "delta")) {
        assembler_.appendText(detail::stringOr(*delta, "content"), out);
        assembler_.appendText(detail::stringOr(*delta, "refusal"), out);
        if (const json* calls = detail::arrayMember(*delta, "tool_calls")) {
            std::int64_t position = 0;
            for (const json& call : *calls) {
                const std::int64_t key = detail::integerMember(call, "index").value_or(position++);
                const json* function = detail::objectMember(call, "function");
                const std::string id = detail::stringOr(call, "id");
                const std::string name =
                    function != nullptr ? detail::stringOr(*function, "name") : std::string();
                if (assembler_.hasCall(key)) {
                    assembler_.completeCallHeader(key, id, name);
                } else {
                    assembler_.openCall(key, id, name, out);
                }
                if (function != nullptr) {
                    assembler_.appendArguments(key, detail::stringOr(*function, "arguments"), out);
                }
            }
        }
    }
    if (const auto reason = detail::stringMember(*choice, "finish_reason")) {
        assembler_.setStopReason(stopReason(*reason));
    }
    return out;
}

expected<llm::ModelReply, llm::ProviderError> StreamDecoder::finish() const {
    if (failure_) {
        return fail(*failure_);
    }
    if (!complete()) {
        return fail(incompleteStream(kProvider, "neither finish_reason nor [DONE] arrived"));
    }
    return assembler_.finish();
}

}  // namespace reagent::providers::openai
