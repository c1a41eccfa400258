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

namespace reagent::providers::anthropic {

namespace {

using detail::Json;
using llm::Message;
using llm::Role;
using llm::StreamDelta;

constexpr std::string_view kProvider = "anthropic";

}  // namespace

// What the API takes as attachments (see `detail::refusal`).
constexpr detail::AttachmentSupport kAttachments{"anthropic", true, true, true};

namespace {

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
void applyUsage(const Json& usage, llm::Usage& out) {
    const auto input = detail::integerMember(usage, "input_tokens");
    const auto cacheWrite = detail::integerMember(usage, "cache_creation_input_tokens");
    const auto cacheRead = detail::integerMember(usage, "cache_read_input_tokens");
    if (input || cacheWrite || cacheRead) {
        out.inputTokens = input.value_or(0) + cacheWrite.value_or(0) + cacheRead.value_or(0);
        out.cacheWriteTokens = cacheWrite.value_or(0);
        out.cacheReadTokens = cacheRead.value_or(0);
    }
    if (const auto output = detail::integerMember(usage, "output_tokens")) {
        out.outputTokens = *output;  // cumulative in message_delta
    }
}

// A cache breakpoint: the prefix up to and including this block is cached (`CodecOptions::promptCaching`).
void writeCacheMark(detail::JsonWriter& out) {
    out.key("cache_control").beginObject().key("type").string("ephemeral").endObject();
}

// A text block, marked as a cache breakpoint when `cached`.
void writeTextBlock(detail::JsonWriter& out, std::string_view text, bool cached) {
    out.beginObject();
    if (cached) {
        writeCacheMark(out);
    }
    out.key("text").string(text).key("type").string("text").endObject();
}

// Text where the API takes a string or blocks (`content`, `system`): the string, or one text block when it
// carries the cache mark.
void writeTextContent(detail::JsonWriter& out, std::string_view text, bool cached) {
    if (cached) {
        out.beginArray();
        writeTextBlock(out, text, true);
        out.endArray();
    } else {
        out.string(text);
    }
}

// A message of text alone.
void writeTextMessage(detail::JsonWriter& out, std::string_view text, std::string_view role, bool cached) {
    out.beginObject().key("content");
    writeTextContent(out, text, cached);
    out.key("role").string(role).endObject();
}

// An assistant turn: its text alone, or blocks of text and tool_use. Nothing for an empty message.
void writeAssistant(detail::JsonWriter& out, const Message& message, const ToolNameMap& names, bool cached) {
    if (message.toolCalls.empty()) {
        if (message.text.empty()) {
            return;
        }
        writeTextMessage(out, message.text, "assistant", cached);
        return;
    }
    out.beginObject().key("content").beginArray();
    if (!message.text.empty()) {
        writeTextBlock(out, message.text, false);
    }
    for (const llm::ToolCall& call : message.toolCalls) {
        out.beginObject();
        if (cached && &call == &message.toolCalls.back()) {
            writeCacheMark(out);
        }
        out.key("id").string(call.id);
        out.key("input").raw(detail::argumentsJson(call.arguments));
        out.key("name").string(names.toWire(call.name)).key("type").string("tool_use").endObject();
    }
    out.endArray().key("role").string("assistant").endObject();
}

void writeToolResult(detail::JsonWriter& out, const Message& message, bool cached) {
    out.beginObject();
    if (cached) {
        writeCacheMark(out);
    }
    out.key("content");
    if (message.attachments.empty()) {
        out.string(message.text);
    } else {
        // A result's images and documents travel in its own content, after its text.
        out.beginArray();
        if (!message.text.empty()) {
            out.beginObject().key("text").string(message.text).key("type").string("text").endObject();
        }
        for (const llm::Attachment& attachment : message.attachments) {
            detail::writeAnthropicBlock(out, attachment);
        }
        out.endArray();
    }
    if (message.isError) {
        out.key("is_error").boolean(true);
    }
    out.key("tool_use_id").string(message.toolCallId).key("type").string("tool_result").endObject();
}

// The index of the message that ends the conversation as sent (system messages go apart); none when empty.
std::optional<std::size_t> lastSent(const std::vector<Message>& messages) {
    for (std::size_t i = messages.size(); i-- > 0;) {
        const Message& message = messages[i];
        const bool empty = message.text.empty() && message.attachments.empty() && message.toolCalls.empty() &&
                           message.role != Role::tool;
        if (message.role != Role::system && !empty) {
            return i;
        }
    }
    return std::nullopt;
}

// `cacheTail`: the last message's last block is a cache breakpoint, so the next turn reads all of it.
void writeMessages(detail::JsonWriter& out, const std::vector<Message>& messages, const ToolNameMap& names,
                   bool cacheTail) {
    const std::optional<std::size_t> tail = cacheTail ? lastSent(messages) : std::nullopt;
    out.beginArray();
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const Message& message = messages[i];
        const bool cached = tail && *tail == i;
        switch (message.role) {
            case Role::system:
                break;  // carried by the top-level `system`
            case Role::user:
                if (!message.attachments.empty()) {
                    // Images and documents first, then the text about them, as the API's guide advises.
                    out.beginObject().key("content").beginArray();
                    for (const llm::Attachment& attachment : message.attachments) {
                        detail::writeAnthropicBlock(out, attachment);
                    }
                    if (!message.text.empty()) {
                        writeTextBlock(out, message.text, cached);
                    }
                    out.endArray().key("role").string("user").endObject();
                } else if (!message.text.empty()) {
                    writeTextMessage(out, message.text, "user", cached);
                }
                break;
            case Role::assistant:
                writeAssistant(out, message, names, cached);
                break;
            case Role::tool:
                // Results of a parallel batch must all be in the one user message after the tool_use turn.
                out.beginObject().key("content").beginArray();
                for (; i < messages.size() && messages[i].role == Role::tool; ++i) {
                    writeToolResult(out, messages[i], tail && *tail == i);  // the tail is the last result
                }
                --i;
                out.endArray().key("role").string("user").endObject();
                break;
        }
    }
    out.endArray();
}

// A Messages response: content blocks (text, tool_use), stop reason, usage, model.
std::optional<llm::ProviderError> readReply(const Json& reply, std::string_view body,
                                            ReplyAssembler& assembler, std::vector<StreamDelta>& unused) {
    if (detail::stringOr(reply, "type") == "error") {
        return detail::streamError(kProvider, reply);
    }
    const auto* content = detail::arrayMember(reply, "content");
    if (content == nullptr) {
        return malformedResponse(kProvider, "the response has no content array: " + detail::excerpt(body));
    }
    for (const Json& block : *content) {
        const std::string type = detail::stringOr(block, "type");
        if (type == "text") {
            assembler.appendText(detail::viewOr(block, "text"), unused);
        } else if (type == "tool_use") {
            const Json* input = detail::member(block, "input");
            assembler.addCall(detail::stringOr(block, "id"), detail::stringOr(block, "name"),
                              input != nullptr ? detail::toNlohmann(*input) : nlohmann::json::object(), {},
                              unused);
        }
    }
    if (const auto reason = detail::stringMember(reply, "stop_reason")) {
        assembler.setStopReason(stopReason(*reason));
    }
    if (const Json* usage = detail::objectMember(reply, "usage")) {
        applyUsage(*usage, assembler.usage());
    }
    assembler.setModel(detail::stringOr(reply, "model"));
    assembler.setId(detail::stringOr(reply, "id"));
    return std::nullopt;
}

EncodedTools encodeTools(const llm::ToolList& tools, const CodecOptions& options) {
    EncodedTools encoded;
    encoded.names = ToolNameMap(tools.specs(), ToolNameRules::standard);
    if (tools.empty()) {
        return encoded;
    }
    detail::JsonWriter out(encoded.json);
    out.beginArray();
    for (const llm::ToolSpec& tool : tools) {
        out.beginObject();
        if (options.promptCaching && &tool == &tools.specs().back()) {
            writeCacheMark(out);  // the tool declarations are the prompt's first part: cached as one
        }
        if (!tool.description.empty()) {
            out.key("description").string(tool.description);
        }
        out.key("input_schema").value(detail::toolSchema(tool));
        out.key("name").string(encoded.names.toWire(tool.name)).endObject();
    }
    out.endArray();
    return encoded;
}

// Claude models released before structured outputs (Sonnet 4.5), which answer 400 to `output_config`.
bool lacksStructuredOutputs(std::string_view model) noexcept {
    for (const std::string_view prefix : {"claude-3", "claude-2", "claude-instant", "claude-sonnet-4-0",
                                          "claude-sonnet-4-2025", "claude-opus-4-0", "claude-opus-4-2025"}) {
        if (model.rfind(prefix, 0) == 0) {
            return true;
        }
    }
    return false;
}

// The output schema goes as a tool the model must call (`NativeOutput::tool`, or a model above by default).
bool answersThroughTool(const llm::ModelRequest& request, const CodecOptions& options) noexcept {
    return detail::sendsOutput(request, options) &&
           (options.nativeOutput == NativeOutput::tool ||
            (options.nativeOutput == NativeOutput::automatic && lacksStructuredOutputs(options.model)));
}

// `tools` plus the answer tool, whose input is the answer (under `value` when the schema's root is not an
// object, since a tool's input must be one; the root's `$defs` then move up so its `$ref`s still resolve).
EncodedTools withAnswerTool(const llm::OutputFormat& format, const EncodedTools& tools) {
    std::string name = detail::outputName(format);
    while (tools.names.hasWireName(name)) {
        name += "_answer";
    }
    nlohmann::json schema = detail::withoutRootMetadata(format.schema);
    const bool wrapped = !schema.is_object() || schema.value("type", nlohmann::json()) != "object";
    std::string description = "Give your final answer: call this tool once, with the answer as its input";
    if (wrapped) {
        nlohmann::json root = {{"type", "object"}, {"required", {"value"}}, {"additionalProperties", false}};
        for (const char* defs : {"$defs", "definitions"}) {
            if (schema.is_object() && schema.contains(defs)) {
                root[defs] = std::move(schema[defs]);
                schema.erase(defs);
            }
        }
        root["properties"] = {{"value", std::move(schema)}};
        schema = std::move(root);
        description = "Give your final answer: call this tool once, with the answer in `value`";
    }
    description += ", when you have it.";
    const nlohmann::json tool = {
        {"description", description}, {"input_schema", std::move(schema)}, {"name", name}};
    EncodedTools out;
    out.names = tools.names.withAnswerTool({name, wrapped});
    const std::string text = tool.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (tools.json.empty()) {
        out.json = "[" + text + "]";
    } else {
        out.json.reserve(tools.json.size() + text.size() + 1);
        out.json.append(tools.json, 0, tools.json.size() - 1).append(",").append(text).append("]");
    }
    return out;
}

// The members of a request body before `tools`.
void writeFields(detail::JsonWriter& out, const llm::ModelRequest& request, const CodecOptions& options,
                 const ToolNameMap& names) {
    out.key("max_tokens").integer(request.maxTokens.value_or(options.defaultMaxTokens));
    out.key("messages");
    writeMessages(out, request.messages, names, options.promptCaching);
    out.key("model").string(options.model);
    const ToolNameMap::AnswerTool* answer = names.answerTool();
    if (answer == nullptr && detail::sendsOutput(request, options)) {
        // A schema the API cannot take (a recursive one) is left to the prompt and the run's validation.
        if (const auto schema = detail::anthropicSchema(request.output->schema)) {
            out.key("output_config").beginObject().key("format").beginObject();
            out.key("schema").value(*schema).key("type").string("json_schema");
            out.endObject().endObject();
        }
    }
    out.key("stream").boolean(options.stream);
    if (std::string system = detail::systemPrompt(request); !system.empty()) {
        out.key("system");
        writeTextContent(out, system, options.promptCaching);
    }
    if (request.temperature) {
        out.key("temperature").number(*request.temperature);
    }
    if (answer != nullptr) {
        // Alone, the answer tool is forced; beside the agent's tools, some tool call is, so tool turns go
        // on and the answer comes through its tool.
        out.key("tool_choice").beginObject();
        if (request.tools.empty()) {
            out.key("name").string(answer->wireName).key("type").string("tool");
        } else {
            out.key("type").string("any");
        }
        out.endObject();
    }
}

EncodedRequest encodeRequest(const llm::ModelRequest& request, const CodecOptions& options,
                             const EncodedTools& tools) {
    if (answersThroughTool(request, options)) {
        return detail::encodeBody("/messages", request, options, withAnswerTool(*request.output, tools),
                                  writeFields);
    }
    return detail::encodeBody("/messages", request, options, tools, writeFields);
}

// `POST /messages/count_tokens`: the fields of the request its parameters name (no max_tokens, stream or
// sampling options, which it refuses).
EncodedRequest encodeCount(const llm::ModelRequest& request, const CodecOptions& options,
                           const EncodedTools& tools) {
    CodecOptions whole = options;
    whole.stream = false;
    return detail::countRequest(encodeRequest(request, whole, tools), "/messages/count_tokens",
                                {"model", "messages", "system", "tools", "tool_choice", "output_config"});
}

expected<std::int64_t, llm::ProviderError> decodeCount(int status, std::string_view body,
                                                       const http::HttpHeaders& headers) {
    return detail::decodeCount(kProvider, status, body, headers, "input_tokens");
}

// One event of a streamed response (`stream: true`).
//
// Handles `message_start` (model, input usage), `content_block_start` (text, tool_use),
// `content_block_delta` (`text_delta`, `input_json_delta`), `message_delta` (stop reason, cumulative
// output usage), `message_stop`, `ping`, and `error`. Other events and block types (thinking, server
// tools) are ignored, as the API asks clients to tolerate new ones.
// An `error` event fails the stream with its own error (code from its type: `overloaded_error` is
// `server_error`, ...); data that is not JSON with `malformed_response`.
std::optional<llm::ProviderError> readFrame(std::string_view eventType, std::string_view text,
                                            ReplyAssembler& assembler, bool& /*done*/,
                                            std::vector<StreamDelta>& out) {
    const detail::ParsedJson parsed(text);
    if (!parsed || !parsed->is_object()) {
        return malformedResponse(kProvider, "stream event '" + std::string(eventType) +
                                                "' does not carry a JSON object: " + detail::excerpt(text));
    }
    const Json& data = *parsed;
    const std::string type = detail::stringMember(data, "type").value_or(std::string(eventType));
    const std::int64_t index = detail::integerMember(data, "index").value_or(-1);
    if (type == "message_start") {
        if (const Json* message = detail::objectMember(data, "message")) {
            assembler.setModel(detail::stringOr(*message, "model"));
            assembler.setId(detail::stringOr(*message, "id"));
            if (const Json* usage = detail::objectMember(*message, "usage")) {
                applyUsage(*usage, assembler.usage());
            }
        }
    } else if (type == "content_block_start") {
        const Json* block = detail::objectMember(data, "content_block");
        const std::string blockType = block != nullptr ? detail::stringOr(*block, "type") : std::string();
        if (blockType == "text") {
            assembler.appendText(detail::viewOr(*block, "text"), out);
        } else if (blockType == "tool_use") {
            assembler.openCall(index, detail::stringOr(*block, "id"), detail::stringOr(*block, "name"), out);
        }
    } else if (type == "content_block_delta") {
        const Json* delta = detail::objectMember(data, "delta");
        const std::string deltaType = delta != nullptr ? detail::stringOr(*delta, "type") : std::string();
        if (deltaType == "text_delta") {
            assembler.appendText(detail::viewOr(*delta, "text"), out);
        } else if (deltaType == "input_json_delta" && assembler.hasCall(index)) {
            // Only for tool_use blocks: server-tool blocks stream input_json_delta too, and are ignored.
            assembler.appendArguments(index, detail::viewOr(*delta, "partial_json"), out);
        }
    } else if (type == "message_delta") {
        if (const Json* delta = detail::objectMember(data, "delta")) {
            if (const auto reason = detail::stringMember(*delta, "stop_reason")) {
                assembler.setStopReason(stopReason(*reason));
            }
        }
        if (const Json* usage = detail::objectMember(data, "usage")) {
            applyUsage(*usage, assembler.usage());
        }
    } else if (type == "error") {
        return detail::streamError(kProvider, data);
    }
    return std::nullopt;
}

constexpr detail::StreamRules kStream{kProvider, detail::Framing::sse, readFrame, "no stop_reason arrived"};

void authenticate(http::HttpHeaders& headers, const std::string& apiKey) {
    headers.set("x-api-key", apiKey);
    headers.set("anthropic-version", "2023-06-01");
}

}  // namespace

}  // namespace reagent::providers::anthropic

namespace reagent::providers::wire {

const WireFormat& anthropic() {
    return detail::builtinFormat<anthropic::kStream, anthropic::readReply>(
        "https://api.anthropic.com/v1", "claude-sonnet-4-5", anthropic::encodeTools, anthropic::encodeRequest,
        detail::refuseWith<anthropic::kAttachments>, anthropic::authenticate, anthropic::encodeCount,
        anthropic::decodeCount);
}

}  // namespace reagent::providers::wire
