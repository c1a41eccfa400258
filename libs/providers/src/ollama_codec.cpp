#include "reagent/providers/ollama_codec.hpp"

#include <utility>

#include "codec_common.hpp"
#include "json_access.hpp"
#include "json_writer.hpp"
#include "reagent/providers/provider_http_error.hpp"
#include "stream_error.hpp"

namespace reagent::providers::ollama {

namespace {

using detail::Json;
using llm::Message;
using llm::Role;
using llm::StreamDelta;

constexpr std::string_view kProvider = "ollama";

void writeMessage(detail::JsonWriter& out, const Message& message, const ToolNameMap& names) {
    out.beginObject().key("content").string(message.text);
    switch (message.role) {
        case Role::system:
            out.key("role").string("system");
            break;
        case Role::user:
            out.key("role").string("user");
            break;
        case Role::tool:
            out.key("role").string("tool").key("tool_name").string(names.toWire(message.toolName));
            break;
        case Role::assistant:
            out.key("role").string("assistant");
            if (!message.toolCalls.empty()) {
                out.key("tool_calls").beginArray();
                for (const llm::ToolCall& call : message.toolCalls) {
                    out.beginObject().key("function").beginObject();
                    out.key("arguments").raw(detail::argumentsJson(call.arguments));
                    out.key("name").string(names.toWire(call.name));
                    out.endObject().endObject();
                }
                out.endArray();
            }
            break;
    }
    out.endObject();
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
std::optional<llm::ProviderError> consume(const Json& chunk, ReplyAssembler& assembler,
                                          std::vector<StreamDelta>& out, bool& done) {
    if (const Json* error = detail::member(chunk, "error"); error != nullptr && !error->is_null()) {
        return detail::streamError(kProvider, chunk);
    }
    if (auto model = detail::stringMember(chunk, "model"); model && !model->empty()) {
        assembler.setModel(std::move(*model));
    }
    if (const Json* message = detail::objectMember(chunk, "message")) {
        assembler.appendText(detail::viewOr(*message, "content"), out);
        if (const auto* calls = detail::arrayMember(*message, "tool_calls")) {
            for (const Json& call : *calls) {
                const Json* function = detail::objectMember(call, "function");
                if (function == nullptr) {
                    continue;
                }
                const Json* arguments = detail::member(*function, "arguments");
                std::string name = detail::stringOr(*function, "name");
                if (arguments != nullptr && arguments->is_string()) {
                    assembler.addCallText(detail::stringOr(call, "id"), std::move(name),
                                          std::string(detail::text(*arguments)), out);
                } else {
                    assembler.addCall(
                        detail::stringOr(call, "id"), std::move(name),
                        arguments != nullptr ? detail::toNlohmann(*arguments) : nlohmann::json::object(), {},
                        out);
                }
            }
        }
    }
    if (detail::isTrue(chunk, "done")) {
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

EncodedTools encodeTools(const llm::ToolList& tools, const CodecOptions&) {
    return detail::functionTools(tools, detail::SchemaDialect::ollama);
}

EncodedRequest encodeRequest(const llm::ModelRequest& request, const CodecOptions& options) {
    return encodeRequest(request, options, encodeTools(request.tools, options));
}

EncodedRequest encodeRequest(const llm::ModelRequest& request, const CodecOptions& options,
                             const EncodedTools& tools) {
    EncodedRequest encoded;
    encoded.path = "/api/chat";
    encoded.toolNames = tools.names;
    // Keys in sorted order (see JsonWriter).
    detail::reserveBody(encoded.body, request, tools);
    detail::JsonWriter out(encoded.body);
    out.beginObject().key("messages").beginArray();
    for (const Message& message : request.messages) {
        writeMessage(out, message, tools.names);
    }
    out.endArray();
    out.key("model").string(options.model);
    if (request.maxTokens || request.temperature) {
        out.key("options").beginObject();
        if (request.maxTokens) {
            out.key("num_predict").integer(*request.maxTokens);
        }
        if (request.temperature) {
            out.key("temperature").number(*request.temperature);
        }
        out.endObject();
    }
    out.key("stream").boolean(options.stream);
    if (!tools.json.empty()) {
        out.key("tools").raw(tools.json);
    }
    out.endObject();
    return encoded;
}

expected<llm::ModelReply, llm::ProviderError> decodeResponse(int httpStatus, std::string_view body,
                                                             const ToolNameMap& names,
                                                             const http::HttpHeaders& headers) {
    if (httpStatus < 200 || httpStatus > 299) {
        return fail(httpError(kProvider, httpStatus, body, headers));
    }
    const detail::ParsedJson parsed(body);
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
    ++lines_;
    const detail::ParsedJson parsed(line);
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
