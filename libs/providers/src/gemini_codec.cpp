#include <map>
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

namespace reagent::providers::gemini {

namespace {

using detail::Json;
using llm::Message;
using llm::Role;
using llm::StreamDelta;

constexpr std::string_view kProvider = "gemini";

}  // namespace

// What the API takes as attachments (see `detail::refusal`).
constexpr detail::AttachmentSupport kAttachments{"gemini", true, true, true};

namespace {

std::string modelResource(const std::string& model) {
    if (model.rfind("models/", 0) == 0 || model.rfind("tunedModels/", 0) == 0) {
        return model;
    }
    return "models/" + model;
}

// A model turn: a text part and functionCall parts. Nothing for an empty message.
void writeModelTurn(detail::JsonWriter& out, const Message& message, const ToolNameMap& names) {
    if (message.text.empty() && message.toolCalls.empty()) {
        return;
    }
    out.beginObject().key("parts").beginArray();
    if (!message.text.empty()) {
        out.beginObject().key("text").string(message.text).endObject();
    }
    for (const llm::ToolCall& call : message.toolCalls) {
        out.beginObject().key("functionCall").beginObject();
        out.key("args").raw(detail::argumentsJson(call.arguments));
        out.key("name").string(names.toWire(call.name)).endObject();
        if (!call.signature.empty()) {
            out.key("thoughtSignature").string(call.signature);
        }
        out.endObject();
    }
    out.endArray().key("role").string("model").endObject();
}

void writeFunctionResponse(detail::JsonWriter& out, const Message& result, const std::string& name,
                           const ToolNameMap& names) {
    out.beginObject().key("functionResponse").beginObject();
    out.key("name").string(names.toWire(name));
    out.key("response").beginObject().key(result.isError ? "error" : "result").string(result.text);
    out.endObject();
    out.endObject().endObject();
}

void writeContents(detail::JsonWriter& out, const std::vector<Message>& messages, const ToolNameMap& names) {
    out.beginArray();
    std::map<std::string, std::string, std::less<>> nameById;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const Message& message = messages[i];
        switch (message.role) {
            case Role::system:
                break;  // carried by systemInstruction
            case Role::user:
                out.beginObject().key("parts").beginArray();
                for (const llm::Attachment& attachment : message.attachments) {
                    detail::writeGeminiPart(out, attachment);
                }
                if (!message.text.empty() || message.attachments.empty()) {
                    out.beginObject().key("text").string(message.text).endObject();
                }
                out.endArray().key("role").string("user").endObject();
                break;
            case Role::assistant:
                for (const llm::ToolCall& call : message.toolCalls) {
                    nameById[call.id] = call.name;
                }
                writeModelTurn(out, message, names);
                break;
            case Role::tool:
                // A parallel batch's responses go back together, in one turn, in call order; their images
                // and documents follow them as parts of the same turn.
                out.beginObject().key("parts").beginArray();
                const std::size_t first = i;
                for (; i < messages.size() && messages[i].role == Role::tool; ++i) {
                    const Message& result = messages[i];
                    std::string name = result.toolName;
                    if (const auto found = nameById.find(result.toolCallId);
                        name.empty() && found != nameById.end()) {
                        name = found->second;
                    }
                    writeFunctionResponse(out, result, name, names);
                }
                for (std::size_t k = first; k < i; ++k) {
                    for (const llm::Attachment& attachment : messages[k].attachments) {
                        detail::writeGeminiPart(out, attachment);
                    }
                }
                --i;
                out.endArray().key("role").string("user").endObject();
                break;
        }
    }
    out.endArray();
}

llm::StopReason stopReason(std::string_view reason) {
    if (reason == "STOP") {
        return llm::StopReason::end_turn;
    }
    if (reason == "MAX_TOKENS") {
        return llm::StopReason::max_tokens;
    }
    return llm::StopReason::other;
}

// Reads one GenerateContentResponse (a whole reply, or the next chunk of a stream) into `assembler`.
std::optional<llm::ProviderError> consume(const Json& response, ReplyAssembler& assembler,
                                          std::vector<StreamDelta>& out) {
    if (const Json* error = detail::member(response, "error"); error != nullptr && !error->is_null()) {
        return detail::streamError(kProvider, response);
    }
    if (auto id = detail::stringMember(response, "responseId"); id && !id->empty()) {
        assembler.setId(std::move(*id));
    }
    if (auto model = detail::stringMember(response, "modelVersion"); model && !model->empty()) {
        assembler.setModel(std::move(*model));
    }
    if (const Json* usage = detail::objectMember(response, "usageMetadata")) {
        if (const auto prompt = detail::integerMember(*usage, "promptTokenCount")) {
            assembler.usage().inputTokens = *prompt;
        }
        const auto candidates = detail::integerMember(*usage, "candidatesTokenCount");
        const auto thoughts = detail::integerMember(*usage, "thoughtsTokenCount");
        if (candidates || thoughts) {
            assembler.usage().outputTokens = candidates.value_or(0) + thoughts.value_or(0);
            assembler.usage().reasoningTokens = thoughts.value_or(0);
        }
        // Part of the prompt count, as in `llm::Usage`.
        if (const auto cached = detail::integerMember(*usage, "cachedContentTokenCount")) {
            assembler.usage().cacheReadTokens = *cached;
        }
    }
    const auto* candidates = detail::arrayMember(response, "candidates");
    if (candidates == nullptr || candidates->empty()) {
        const Json* feedback = detail::objectMember(response, "promptFeedback");
        if (const auto reason =
                feedback != nullptr ? detail::stringMember(*feedback, "blockReason") : std::nullopt) {
            llm::ProviderError error;
            error.code = llm::ProviderErrc::invalid_request;
            error.providerType = *reason;
            error.message =
                "gemini: the prompt was blocked (" + *reason + "); rephrase it or change safety settings";
            return error;
        }
        return std::nullopt;  // a chunk with usage only
    }
    const Json& candidate = candidates->front();
    const Json* content = detail::objectMember(candidate, "content");
    const auto* parts = content != nullptr ? detail::arrayMember(*content, "parts") : nullptr;
    if (parts != nullptr) {
        for (const Json& part : *parts) {
            if (const Json* call = detail::objectMember(part, "functionCall")) {
                const Json* args = detail::member(*call, "args");
                assembler.addCall(detail::stringOr(*call, "id"), detail::stringOr(*call, "name"),
                                  args != nullptr ? detail::toNlohmann(*args) : nlohmann::json::object(),
                                  detail::stringOr(part, "thoughtSignature"), out);
            } else if (!detail::isTrue(part, "thought")) {
                assembler.appendText(detail::viewOr(part, "text"), out);
            }
        }
    }
    if (const auto reason = detail::stringMember(candidate, "finishReason");
        reason && *reason != "FINISH_REASON_UNSPECIFIED") {
        assembler.setStopReason(stopReason(*reason));
    }
    return std::nullopt;
}

// A whole GenerateContentResponse: as a stream chunk, but it must hold candidates, an error or feedback.
std::optional<llm::ProviderError> readReply(const Json& reply, std::string_view body,
                                            ReplyAssembler& assembler, std::vector<StreamDelta>& unused) {
    if (detail::arrayMember(reply, "candidates") == nullptr && detail::member(reply, "error") == nullptr &&
        detail::member(reply, "promptFeedback") == nullptr) {
        return malformedResponse(kProvider, "the response has no candidates: " + detail::excerpt(body));
    }
    return consume(reply, assembler, unused);
}

EncodedTools encodeTools(const llm::ToolList& tools, const CodecOptions& options) {
    EncodedTools encoded;
    encoded.names = ToolNameMap(tools.specs(), ToolNameRules::gemini);
    if (tools.empty()) {
        return encoded;
    }
    detail::JsonWriter out(encoded.json);
    out.beginArray().beginObject().key("functionDeclarations").beginArray();
    for (const llm::ToolSpec& tool : tools) {
        out.beginObject();
        if (!tool.description.empty()) {
            out.key("description").string(tool.description);
        }
        out.key("name").string(encoded.names.toWire(tool.name));
        out.key(options.geminiJsonSchemaParameters ? "parametersJsonSchema" : "parameters")
            .value(detail::toolSchema(tool));
        out.endObject();
    }
    out.endArray().endObject().endArray();
    return encoded;
}

// The members of a request body before `tools`.
// Gemini models before Gemini 3 refuse a response schema beside function declarations ("Function calling
// with a response mime type: 'application/json' is unsupported").
bool sendsOutput(const llm::ModelRequest& request, const CodecOptions& options) {
    if (!detail::sendsOutput(request, options)) {
        return false;
    }
    if (options.nativeOutput == NativeOutput::always || options.nativeOutput == NativeOutput::tool ||
        request.tools.empty()) {
        return true;
    }
    std::string_view model = options.model;
    if (const auto slash = model.rfind('/'); slash != std::string_view::npos) {
        model.remove_prefix(slash + 1);
    }
    return model.rfind("gemini-1", 0) != 0 && model.rfind("gemini-2", 0) != 0;
}

void writeFields(detail::JsonWriter& out, const llm::ModelRequest& request, const CodecOptions& options,
                 const ToolNameMap& names) {
    out.key("contents");
    writeContents(out, request.messages, names);
    const bool output = sendsOutput(request, options);
    if (request.maxTokens || request.temperature || output) {
        out.key("generationConfig").beginObject();
        if (request.maxTokens) {
            out.key("maxOutputTokens").integer(*request.maxTokens);
        }
        if (output) {
            out.key("responseJsonSchema").value(detail::withoutRootMetadata(request.output->schema));
            out.key("responseMimeType").string("application/json");
        }
        if (request.temperature) {
            out.key("temperature").number(*request.temperature);
        }
        out.endObject();
    }
    if (std::string system = detail::systemPrompt(request); !system.empty()) {
        out.key("systemInstruction").beginObject().key("parts").beginArray().beginObject();
        out.key("text").string(system).endObject().endArray().endObject();
    }
}

EncodedRequest encodeRequest(const llm::ModelRequest& request, const CodecOptions& options,
                             const EncodedTools& tools) {
    std::string path = "/" + modelResource(options.model) +
                       (options.stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
    return detail::encodeBody(std::move(path), request, options, tools, writeFields);
}

// `POST /models/{model}:countTokens` with the whole generateContent request (so the system instruction and
// the tools are counted too), which must name its model.
EncodedRequest encodeCount(const llm::ModelRequest& request, const CodecOptions& options,
                           const EncodedTools& tools) {
    CodecOptions whole = options;
    whole.stream = false;
    const std::string model = modelResource(options.model);
    return detail::countRequest(encodeRequest(request, whole, tools), "/" + model + ":countTokens",
                                "generateContentRequest", model);
}

expected<std::int64_t, llm::ProviderError> decodeCount(int status, std::string_view body,
                                                       const http::HttpHeaders& headers) {
    return detail::decodeCount(kProvider, status, body, headers, "totalTokens");
}

// One event of `streamGenerateContent?alt=sse`: its data is a whole `GenerateContentResponse` carrying
// the next parts; the last one has the `finishReason` and the final usage. Errors as for a whole reply.
std::optional<llm::ProviderError> readFrame(std::string_view /*type*/, std::string_view text,
                                            ReplyAssembler& assembler, bool& /*done*/,
                                            std::vector<StreamDelta>& out) {
    const detail::ParsedJson parsed(text);
    if (!parsed || !parsed->is_object()) {
        return malformedResponse(kProvider, "stream data is not a JSON object: " + detail::excerpt(text));
    }
    return consume(*parsed, assembler, out);
}

constexpr detail::StreamRules kStream{kProvider, detail::Framing::sse, readFrame, "no finishReason arrived"};

void authenticate(http::HttpHeaders& headers, const std::string& apiKey) {
    headers.set("x-goog-api-key", apiKey);
}

}  // namespace

}  // namespace reagent::providers::gemini

namespace reagent::providers::wire {

const WireFormat& gemini() {
    return detail::builtinFormat<gemini::kStream, gemini::readReply>(
        "https://generativelanguage.googleapis.com/v1beta", "gemini-2.5-flash", gemini::encodeTools,
        gemini::encodeRequest, detail::refuseWith<gemini::kAttachments>, gemini::authenticate,
        gemini::encodeCount, gemini::decodeCount);
}

}  // namespace reagent::providers::wire
