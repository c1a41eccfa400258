#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "codec_common.hpp"
#include "json_access.hpp"
#include "json_writer.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/http/http_headers.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/llm/stream_delta.hpp"
#include "reagent/providers/codec_options.hpp"
#include "reagent/providers/encoded_request.hpp"
#include "reagent/providers/provider_http_error.hpp"
#include "reagent/providers/reply_assembler.hpp"
#include "reagent/providers/wire_format.hpp"
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

// A whole /api/chat response: as a stream line, but it must hold a message or an error.
std::optional<llm::ProviderError> readReply(const Json& reply, std::string_view body,
                                            ReplyAssembler& assembler, std::vector<StreamDelta>& unused) {
    if (detail::objectMember(reply, "message") == nullptr && detail::member(reply, "error") == nullptr) {
        return malformedResponse(kProvider, "the response has no message: " + detail::excerpt(body));
    }
    bool done = false;
    return consume(reply, assembler, unused, done);
}

EncodedTools encodeTools(const llm::ToolList& tools, const CodecOptions&) {
    return detail::functionTools(tools, detail::SchemaDialect::ollama);
}

EncodedRequest encodeRequest(const llm::ModelRequest& request, const CodecOptions& options,
                             const EncodedTools& tools) {
    EncodedRequest encoded;
    encoded.path = "/chat";
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
    return detail::decodeReply(kProvider, httpStatus, body, names, headers, readReply);
}

// Decodes a streamed response: newline-delimited JSON objects, the last one with `done: true`,
// `done_reason` and the counts. Tool calls arrive whole, in one line.
//
// \par Errors
// `feedLine`/`feed` fail with the stream's error for a line carrying `error`, or `malformed_response`
// for a line that is not JSON; after a failure every call returns that error. `finish` fails with
// `connection_failed` if no line had `done: true`.
class StreamDecoder final : public StreamDecoding {
  public:
    explicit StreamDecoder(ToolNameMap names);

    // Consumes raw body bytes, split anywhere; complete lines are decoded as `feedLine` does.
    expected<std::vector<llm::StreamDelta>, llm::ProviderError> feed(std::string_view bytes) override;
    // Bytes of the line in progress, not yet terminated (a caller bounds it).
    std::size_t pendingBytes() const noexcept override { return pending_.size(); }
    // Lines that were not blank, so far.
    std::size_t framesSeen() const noexcept override { return lines_; }
    // Decodes a last line left without a newline, then returns the assembled reply.
    expected<llm::ModelReply, llm::ProviderError> finish() override;

  private:
    // Consumes one line (without its newline; a trailing CR and blank lines are ignored).
    expected<std::vector<llm::StreamDelta>, llm::ProviderError> feedLine(std::string_view line);

    ReplyAssembler assembler_;
    std::string pending_;
    std::size_t lines_ = 0;
    bool done_ = false;
    std::optional<llm::ProviderError> failure_;
};

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

std::unique_ptr<StreamDecoding> streamDecoder(ToolNameMap names) {
    return std::make_unique<StreamDecoder>(std::move(names));
}

}  // namespace

}  // namespace reagent::providers::ollama

namespace reagent::providers::wire {

const WireFormat& ollama() {
    static const WireFormat format{.name = std::string(ollama::kProvider),
                                   .defaultBaseUrl = "http://127.0.0.1:11434/api",
                                   .defaultModel = "qwen3",
                                   .encodeTools = ollama::encodeTools,
                                   .encodeRequest = ollama::encodeRequest,
                                   .decodeReply = ollama::decodeResponse,
                                   .streamDecoder = ollama::streamDecoder,
                                   .authenticate = detail::setBearer};
    return format;
}

}  // namespace reagent::providers::wire
