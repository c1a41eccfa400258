#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attachment_parts.hpp"
#include "builtin_format.hpp"
#include "codec_common.hpp"
#include "frame_decoding.hpp"
#include "json_access.hpp"
#include "json_writer.hpp"
#include "output_schema.hpp"
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

}  // namespace

// What the API takes as attachments (see `detail::refusal`).
constexpr detail::AttachmentSupport kAttachments{"ollama", false, false, false};

namespace {

// `images`: the base64 of each image (the API takes images only, by value).
void writeImages(detail::JsonWriter& out, const std::vector<llm::Attachment>& attachments) {
    out.key("images").beginArray();
    for (const llm::Attachment& attachment : attachments) {
        out.string(detail::base64Of(attachment));
    }
    out.endArray();
}

void writeMessage(detail::JsonWriter& out, const Message& message, const ToolNameMap& names) {
    out.beginObject().key("content").string(message.text);
    if (message.role == Role::user && !message.attachments.empty()) {
        writeImages(out, message.attachments);
    }
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

// The members of a request body before `tools`.
void writeFields(detail::JsonWriter& out, const llm::ModelRequest& request, const CodecOptions& options,
                 const ToolNameMap& names) {
    if (detail::sendsOutput(request, options)) {
        out.key("format").value(detail::withoutRootMetadata(request.output->schema));
    }
    out.key("messages").beginArray();
    const std::vector<Message>& messages = request.messages;
    detail::forEachMessage(
        messages, [&](std::size_t i) { writeMessage(out, messages[i], names); },
        [&](std::size_t first, std::size_t last) {
            // A tool message's images follow it in a user message.
            out.beginObject().key("content").string(detail::toolAttachmentsNote(messages, first, last));
            writeImages(out, detail::attachmentsIn(messages, first, last));
            out.key("role").string("user").endObject();
        });
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
}

EncodedRequest encodeRequest(const llm::ModelRequest& request, const CodecOptions& options,
                             const EncodedTools& tools) {
    return detail::encodeBody("/chat", request, options, tools, writeFields);
}

// One line of a streamed response: newline-delimited JSON objects, the last one with `done: true`,
// `done_reason` and the counts. Tool calls arrive whole, in one line. A line carrying `error` fails the
// stream with it; one that is not JSON with `malformed_response`.
std::optional<llm::ProviderError> readFrame(std::string_view /*type*/, std::string_view line,
                                            ReplyAssembler& assembler, bool& done,
                                            std::vector<StreamDelta>& out) {
    const detail::ParsedJson parsed(line);
    if (!parsed || !parsed->is_object()) {
        return malformedResponse(kProvider, "stream line is not a JSON object: " + detail::excerpt(line));
    }
    return consume(*parsed, assembler, out, done);
}

constexpr detail::StreamRules kStream{kProvider, detail::Framing::ndjson, readFrame,
                                      "no line with done: true arrived"};

}  // namespace

}  // namespace reagent::providers::ollama

namespace reagent::providers::wire {

const WireFormat& ollama() {
    return detail::builtinFormat<ollama::kStream, ollama::readReply>(
        "http://127.0.0.1:11434/api", "qwen3", ollama::encodeTools, ollama::encodeRequest,
        detail::refuseWith<ollama::kAttachments>, detail::setBearer);
}

}  // namespace reagent::providers::wire
