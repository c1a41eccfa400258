#include <memory>
#include <optional>
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
#include "reagent/http/sse_parser.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/llm/stream_delta.hpp"
#include "reagent/providers/codec_options.hpp"
#include "reagent/providers/encoded_request.hpp"
#include "reagent/providers/provider_http_error.hpp"
#include "reagent/providers/reply_assembler.hpp"
#include "reagent/providers/wire_format.hpp"
#include "stream_error.hpp"

namespace reagent::providers::openai {

namespace {

using detail::Json;
using llm::Message;
using llm::Role;
using llm::StreamDelta;

constexpr std::string_view kProvider = "openai";

}  // namespace

// What the API takes as attachments (see `detail::refusal`).
constexpr detail::AttachmentSupport kAttachments{"openai", true, true, false};

namespace {

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

// Cached and reasoning tokens are parts of the prompt and completion counts, as in `llm::Usage`.
void applyUsage(const Json& usage, llm::Usage& out) {
    if (const auto prompt = detail::integerMember(usage, "prompt_tokens")) {
        out.inputTokens = *prompt;
    }
    if (const auto completion = detail::integerMember(usage, "completion_tokens")) {
        out.outputTokens = *completion;
    }
    if (const Json* details = detail::objectMember(usage, "prompt_tokens_details")) {
        out.cacheReadTokens = detail::integerMember(*details, "cached_tokens").value_or(0);
    }
    if (const Json* details = detail::objectMember(usage, "completion_tokens_details")) {
        out.reasoningTokens = detail::integerMember(*details, "reasoning_tokens").value_or(0);
    }
}

// A user message's content: its text, or parts when it carries attachments.
void writeUserContent(detail::JsonWriter& out, std::string_view text,
                      const std::vector<llm::Attachment>& attachments) {
    if (attachments.empty()) {
        out.string(text);
        return;
    }
    out.beginArray();
    if (!text.empty()) {
        out.beginObject().key("text").string(text).key("type").string("text").endObject();
    }
    for (const llm::Attachment& attachment : attachments) {
        detail::writeOpenAiPart(out, attachment);
    }
    out.endArray();
}

void writeMessage(detail::JsonWriter& out, const Message& message, const ToolNameMap& names) {
    out.beginObject();
    switch (message.role) {
        case Role::system:
            out.key("content").string(message.text).key("role").string("system");
            break;
        case Role::user:
            out.key("content");
            writeUserContent(out, message.text, message.attachments);
            out.key("role").string("user");
            break;
        case Role::tool:
            out.key("content").string(message.text).key("role").string("tool");
            out.key("tool_call_id").string(message.toolCallId);
            break;
        case Role::assistant:
            // content may be null only when the message calls tools.
            out.key("content");
            if (message.text.empty() && !message.toolCalls.empty()) {
                out.null();
            } else {
                out.string(message.text);
            }
            out.key("role").string("assistant");
            if (!message.toolCalls.empty()) {
                out.key("tool_calls").beginArray();
                for (const llm::ToolCall& call : message.toolCalls) {
                    out.beginObject().key("function").beginObject();
                    out.key("arguments").string(detail::argumentsJson(call.arguments));
                    out.key("name").string(names.toWire(call.name));
                    out.endObject().key("id").string(call.id).key("type").string("function").endObject();
                }
                out.endArray();
            }
            break;
    }
    out.endObject();
}

// Some compatible servers send `arguments` as an object instead of a string.
std::string argumentsText(const Json& function) {
    const Json* arguments = detail::member(function, "arguments");
    if (arguments == nullptr || arguments->is_null()) {
        return {};
    }
    if (arguments->is_string()) {
        return std::string(detail::text(*arguments));
    }
    return detail::serialize(*arguments);
}

// The choice the codec reads: index 0 (requests never ask for n > 1).
const Json* firstChoice(const Json& chunk) {
    const auto* choices = detail::arrayMember(chunk, "choices");
    if (choices == nullptr) {
        return nullptr;
    }
    for (const Json& choice : *choices) {
        if (choice.is_object() && detail::integerMember(choice, "index").value_or(0) == 0) {
            return &choice;
        }
    }
    return nullptr;
}

// A chat completion: the first choice's message (content, refusal, tool calls), finish reason, usage.
std::optional<llm::ProviderError> readReply(const Json& reply, std::string_view body,
                                            ReplyAssembler& assembler, std::vector<StreamDelta>& unused) {
    if (const Json* error = detail::member(reply, "error"); error != nullptr && !error->is_null()) {
        return detail::streamError(kProvider, reply);
    }
    const Json* choice = firstChoice(reply);
    const Json* message = choice != nullptr ? detail::objectMember(*choice, "message") : nullptr;
    if (message == nullptr) {
        return malformedResponse(kProvider,
                                 "the response has no choice with a message: " + detail::excerpt(body));
    }
    assembler.appendText(detail::viewOr(*message, "content"), unused);
    assembler.appendText(detail::viewOr(*message, "refusal"), unused);
    if (const auto* calls = detail::arrayMember(*message, "tool_calls")) {
        for (const Json& call : *calls) {
            const Json* function = detail::objectMember(call, "function");
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
    if (const Json* usage = detail::objectMember(reply, "usage")) {
        applyUsage(*usage, assembler.usage());
    }
    assembler.setModel(detail::stringOr(reply, "model"));
    assembler.setId(detail::stringOr(reply, "id"));
    return std::nullopt;
}

EncodedTools encodeTools(const llm::ToolList& tools, const CodecOptions&) {
    return detail::functionTools(tools, detail::SchemaDialect::json_schema);
}

// `response_format: {type: "json_schema", json_schema: {name, schema, strict}}`: strict (the decoder keeps
// to the schema exactly) when the schema meets strict mode's rules, else best effort.
void writeResponseFormat(detail::JsonWriter& out, const llm::OutputFormat& format) {
    const std::optional<nlohmann::json> strict = detail::openAiStrictSchema(format.schema);
    out.key("response_format").beginObject().key("json_schema").beginObject();
    out.key("name").string(detail::outputName(format));
    out.key("schema").value(strict ? *strict : detail::withoutRootMetadata(format.schema));
    out.key("strict").boolean(strict.has_value());
    out.endObject().key("type").string("json_schema").endObject();
}

// The members of a request body before `tools`.
void writeFields(detail::JsonWriter& out, const llm::ModelRequest& request, const CodecOptions& options,
                 const ToolNameMap& names) {
    if (request.maxTokens) {
        out.key(options.openAiMaxCompletionTokens ? "max_completion_tokens" : "max_tokens");
        out.integer(*request.maxTokens);
    }
    out.key("messages").beginArray();
    const std::vector<Message>& messages = request.messages;
    detail::forEachMessage(
        messages, [&](std::size_t i) { writeMessage(out, messages[i], names); },
        [&](std::size_t first, std::size_t last) {
            // A tool message holds text only: its attachments follow in a user message.
            out.beginObject().key("content");
            writeUserContent(out, detail::toolAttachmentsNote(messages, first, last),
                             detail::attachmentsIn(messages, first, last));
            out.key("role").string("user").endObject();
        });
    out.endArray();
    out.key("model").string(options.model);
    if (!options.promptCacheKey.empty()) {
        out.key("prompt_cache_key").string(options.promptCacheKey);
    }
    if (detail::sendsOutput(request, options)) {
        writeResponseFormat(out, *request.output);
    }
    out.key("stream").boolean(options.stream);
    if (options.stream) {
        out.key("stream_options").beginObject().key("include_usage").boolean(true).endObject();
    }
    if (request.temperature) {
        out.key("temperature").number(*request.temperature);
    }
}

EncodedRequest encodeRequest(const llm::ModelRequest& request, const CodecOptions& options,
                             const EncodedTools& tools) {
    return detail::encodeBody("/chat/completions", request, options, tools, writeFields);
}

// One event of a streamed response (`stream: true`), a chunk or `[DONE]`.
//
// Text arrives in `delta.content`; tool calls in `delta.tool_calls[]`, assembled by their `index`: the
// id and name come first, the `arguments` string in fragments across chunks. `finish_reason` arrives in
// the last chunk with a choice, usage in a final chunk with no choices, then `data: [DONE]`.
// A chunk carrying `error` fails the stream with it; data that is neither JSON nor `[DONE]` with
// `malformed_response`.
std::optional<llm::ProviderError> readFrame(std::string_view /*type*/, std::string_view text,
                                            ReplyAssembler& assembler, bool& done,
                                            std::vector<StreamDelta>& out) {
    if (text == "[DONE]") {
        done = true;
        return std::nullopt;
    }
    const detail::ParsedJson parsed(text);
    if (!parsed || !parsed->is_object()) {
        return malformedResponse(kProvider,
                                 "stream data is neither a JSON object nor [DONE]: " + detail::excerpt(text));
    }
    const Json& chunk = *parsed;
    if (const Json* error = detail::member(chunk, "error"); error != nullptr && !error->is_null()) {
        return detail::streamError(kProvider, chunk);
    }
    if (auto id = detail::stringMember(chunk, "id"); id && !id->empty()) {
        assembler.setId(std::move(*id));
    }
    if (auto model = detail::stringMember(chunk, "model"); model && !model->empty()) {
        assembler.setModel(std::move(*model));
    }
    if (const Json* usage = detail::objectMember(chunk, "usage")) {
        applyUsage(*usage, assembler.usage());
    }
    const Json* choice = firstChoice(chunk);
    if (choice == nullptr) {
        return std::nullopt;  // the usage chunk
    }
    if (const Json* delta = detail::objectMember(*choice, "delta")) {
        assembler.appendText(detail::viewOr(*delta, "content"), out);
        assembler.appendText(detail::viewOr(*delta, "refusal"), out);
        if (const auto* calls = detail::arrayMember(*delta, "tool_calls")) {
            std::int64_t position = 0;
            for (const Json& call : *calls) {
                const std::int64_t key = detail::integerMember(call, "index").value_or(position++);
                const Json* function = detail::objectMember(call, "function");
                const std::string id = detail::stringOr(call, "id");
                const std::string name =
                    function != nullptr ? detail::stringOr(*function, "name") : std::string();
                if (assembler.hasCall(key)) {
                    assembler.completeCallHeader(key, id, name);
                } else {
                    assembler.openCall(key, id, name, out);
                }
                if (function != nullptr) {
                    assembler.appendArguments(key, detail::viewOr(*function, "arguments"), out);
                }
            }
        }
    }
    if (const auto reason = detail::stringMember(*choice, "finish_reason")) {
        assembler.setStopReason(stopReason(*reason));
    }
    return std::nullopt;
}

constexpr detail::StreamRules kStream{kProvider, detail::Framing::sse, readFrame,
                                      "neither finish_reason nor [DONE] arrived"};

}  // namespace

}  // namespace reagent::providers::openai

namespace reagent::providers::wire {

const WireFormat& openai() {
    return detail::builtinFormat<openai::kStream, openai::readReply>(
        "https://api.openai.com/v1", "gpt-4.1", openai::encodeTools, openai::encodeRequest,
        detail::refuseWith<openai::kAttachments>, detail::setBearer);
}

}  // namespace reagent::providers::wire
