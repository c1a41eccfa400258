#include "reagent/providers/ollama_codec.hpp"

#include <utility>

#include "codec_common.hpp"
#include "json_access.hpp"
#include "reagent/providers/provider_http_error.hpp"

namespace reagent::providers::ollama {

namespace {

using detail::json;
using llm::Message;
using llm::Role;
using llm::StreamDelta;

constexpr std::string_view kProvider = "ollama";

json encodeMessage(const Message& message, const ToolNameMap& names) {
    switch (message.role) {
        case Role::system:
            return {{"role", "system"}, {"content", message.text}};
        case Role::user:
            return {{"role", "user"}, {"content", message.text}};
        case Role::tool:
            return {
                {"role", "tool"}, {"content", message.text}, {"tool_name", names.toWire(message.toolName)}};
        case Role::assistant:
            break;
    }
    json out = {{"role", "assistant"}, {"content", message.text}};
    if (!message.toolCalls.empty()) {
        json calls = json::array();
        for (const llm::ToolCall& call : message.toolCalls) {
            calls.push_back({{"function",
                              {{"name", names.toWire(call.name)},
                               {"arguments", detail::argumentsObject(call.arguments)}}}});
        }
        out["tool_calls"] = std::move(calls);
    }
    return out;
}

llm::StopReason stopReason(std::string_view reason) {
    if (reason == "stop") {
        return llm::StopReason::end_turn;
    }
    if (reason == "length") {
        return llm::StopReason::max_tokens;
    }
    return llm::StopReason::other;  // load, unload
}

// Reads one response object (a whole reply, or one line of a stream) into `assembler`; sets `done` on
// the last line.
std::optional<llm::ProviderError> consume(const json& chunk, ReplyAssembler& assembler,
                                          std::vector<StreamDelta>& out, bool& done) {
    if (const json* error = detail::member(chunk, "error"); error != nullptr && !error->is_null()) {
        return streamError(kProvider, chunk);
    }
    if (auto model = detail::stringMember(chunk, "model"); model && !model->empty()) {
        assembler.setModel(std::move(*model));
    }
    if (const json* message = detail::objectMember(chunk, "message")) {
        assembler.appendText(detail::stringOr(*message, "content"), out);
        if (const json* calls = detail::arrayMember(*message, "tool_calls")) {
            for (const json& call : *calls) {
                const json* function = detail::objectMember(call, "function");
                if (function == nullptr) {
                    continue;
                }
                const json* arguments = detail::member(*function, "arguments");
                std::string name = detail::stringOr(*function, "name");
                if (arguments != nullptr && arguments->is_string()) {
                    assembler.addCallText(detail::stringOr(call, "id"), std::move(name),
                                          arguments->get<std::string>(), out);
                } else {
                    assembler.addCall(detail::stringOr(call, "id"), std::move(name),
                                      arguments != nullptr ? *arguments : json::object(), {}, out);
                }
            }
        }
    }
    if (const json* flag = detail::member(chunk, "done"); flag != nullptr && *flag == true) {
        done = true;
        assembler.setStopReason(stopReason(detail::stringMember(chunk, "done_reason").value_or("stop")));
        if (const auto prompt = detail::integerMember(chunk, "prompt_eval_count")) {
            assembler.usage().inputTokens = *prompt;
        }
        if (const auto eval = detail::integerMember(chunk, "eval_count")) {
            assembler.usage().outputTokens = *eval;
        }
    }
    return std::nullopt;
}

}  // namespace

EncodedRequest encodeRequest(const llm::ModelRequest& request, const CodecOptions& options) {
    EncodedRequest encoded;
    encoded.path = "/api/chat";
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
    body["stream"] = options.stream;
    json modelOptions = json::object();
    if (request.temperature) {
        modelOptions["temperature"] = *request.temperature;
    }
    if (request.maxTokens) {
        modelOptions["num_predict"] = *request.maxTokens;
    }
    if (!modelOptions.empty()) {
        body["options"] = std::move(modelOptions);
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
    if (detail::objectMember(*parsed, "message") == nullptr && detail::member(*parsed, "error") == nullptr) {
        return fail(malformedResponse(kProvider, "the response has no message: " + detail::excerpt(body)));
    }
    ReplyAssembler assembler(std::string(kProvider), names);
    std::vector<StreamDelta> unused;
    bool done = false;
    if (auto error = consume(*parsed, assembler, unused, done)) {
        return fail(std::move(*error));
    }
    return assembler.finish();
}

StreamDecoder::StreamDecoder(ToolNameMap names) : assembler_(std::string(kProvider), std::move(names)) {}

expected<std::vector<StreamDelta>, llm::ProviderError> StreamDecoder::feedLine(std::string_view line) {
    if (failure_) {
        return fail(*failure_);
    }
    if (!line.empty() && line.back() == '\r') {
        line.remove_suffix(1);
    }
    std::vector<StreamDelta> out;
    if (line.find_first_not_of(" \t") == std::string_view::npos) {
        return out;
    }
    const auto parsed = detail::parse(line);
    if (!parsed || !parsed->is_object()) {
        failure_ = malformedResponse(kProvider, "stream line is not a JSON object: " + detail::excerpt(line));
        return fail(*failure_);
    }
    if (auto error = consume(*parsed, assembler_, out, done_)) {
        failure_ = std::move(error);
        return fail(*failure_);
    }
    return out;
}

expected<std::vector<StreamDelta>, llm::ProviderError> StreamDecoder::feed(std::string_view bytes) {
    std::vector<StreamDelta> out;
    std::size_t newline = bytes.find('\n');
    while (newline != std::string_view::npos) {
        pending_.append(bytes.substr(0, newline));
        const std::string line = std::exchange(pending_, std::string());
        auto deltas = feedLine(line);
        if (!deltas) {
            return deltas;
        }
        out.insert(out.end(), std::make_move_iterator(deltas->begin()),
                   std::make_move_iterator(deltas->end()));
        bytes.remove_prefix(newline + 1);
        newline = bytes.find('\n');
    }
    pending_.append(bytes);
    return out;
}

expected<llm::ModelReply, llm::ProviderError> StreamDecoder::finish() {
    if (!pending_.empty()) {
        const std::string line = std::exchange(pending_, std::string());
        if (auto last = feedLine(line); !last) {
            return fail(last.error());
        }
    }
    if (failure_) {
        return fail(*failure_);
    }
    if (!done_) {
        return fail(incompleteStream(kProvider, "no line with done: true arrived"));
    }
    return assembler_.finish();
}

}  // namespace reagent::providers::ollama
