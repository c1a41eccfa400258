#include "reagent/providers/gemini_codec.hpp"

#include <map>
#include <utility>

#include "codec_common.hpp"
#include "json_access.hpp"
#include "reagent/providers/provider_http_error.hpp"

namespace reagent::providers::gemini {

namespace {

using detail::json;
using llm::Message;
using llm::Role;
using llm::StreamDelta;

constexpr std::string_view kProvider = "gemini";

std::string modelResource(const std::string& model) {
    if (model.rfind("models/", 0) == 0 || model.rfind("tunedModels/", 0) == 0) {
        return model;
    }
    return "models/" + model;
}

json modelTurn(const Message& message, const ToolNameMap& names) {
    json parts = json::array();
    if (!message.text.empty()) {
        parts.push_back({{"text", message.text}});
    }
    for (const llm::ToolCall& call : message.toolCalls) {
        json part = {
            {"functionCall",
             {{"name", names.toWire(call.name)}, {"args", detail::argumentsObject(call.arguments)}}}};
        if (!call.signature.empty()) {
            part["thoughtSignature"] = call.signature;
        }
        parts.push_back(std::move(part));
    }
    return parts;
}

json functionResponse(const Message& result, const std::string& name, const ToolNameMap& names) {
    const char* key = result.isError ? "error" : "result";
    return {{"functionResponse", {{"name", names.toWire(name)}, {"response", {{key, result.text}}}}}};
}

json encodeContents(const std::vector<Message>& messages, const ToolNameMap& names) {
    json contents = json::array();
    std::map<std::string, std::string, std::less<>> nameById;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const Message& message = messages[i];
        switch (message.role) {
            case Role::system:
                break;  // carried by systemInstruction
            case Role::user:
                contents.push_back({{"role", "user"}, {"parts", {{{"text", message.text}}}}});
                break;
            case Role::assistant: {
                for (const llm::ToolCall& call : message.toolCalls) {
                    nameById[call.id] = call.name;
                }
                json parts = modelTurn(message, names);
                if (!parts.empty()) {
                    contents.push_back({{"role", "model"}, {"parts", std::move(parts)}});
                }
                break;
            }
            case Role::tool: {
                // A parallel batch's responses go back together, in one turn, in call order.
                json parts = json::array();
                for (; i < messages.size() && messages[i].role == Role::tool; ++i) {
                    const Message& result = messages[i];
                    std::string name = result.toolName;
                    if (const auto found = nameById.find(result.toolCallId);
                        name.empty() && found != nameById.end()) {
                        name = found->second;
                    }
                    parts.push_back(functionResponse(result, name, names));
                }
                --i;
                contents.push_back({{"role", "user"}, {"parts", std::move(parts)}});
                break;
            }
        }
    }
    return contents;
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
std::optional<llm::ProviderError> consume(const json& response, ReplyAssembler& assembler,
                                          std::vector<StreamDelta>& out) {
    if (const json* error = detail::member(response, "error"); error != nullptr && !error->is_null()) {
        return streamError(kProvider, response);
    }
    if (auto model = detail::stringMember(response, "modelVersion"); model && !model->empty()) {
        assembler.setModel(std::move(*model));
    }
    if (const json* usage = detail::objectMember(response, "usageMetadata")) {
        if (const auto prompt = detail::integerMember(*usage, "promptTokenCount")) {
            assembler.usage().inputTokens = *prompt;
        }
        const auto candidates = detail::integerMember(*usage, "candidatesTokenCount");
        const auto thoughts = detail::integerMember(*usage, "thoughtsTokenCount");
        if (candidates || thoughts) {
            assembler.usage().outputTokens = candidates.value_or(0) + thoughts.value_or(0);
        }
    }
    const json* candidates = detail::arrayMember(response, "candidates");
    if (candidates == nullptr || candidates->empty()) {
        const json* feedback = detail::objectMember(response, "promptFeedback");
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
    const json& candidate = candidates->front();
    const json* content = detail::objectMember(candidate, "content");
    const json* parts = content != nullptr ? detail::arrayMember(*content, "parts") : nullptr;
    if (parts != nullptr) {
        for (const json& part : *parts) {
            if (const json* call = detail::objectMember(part, "functionCall")) {
                const json* args = detail::member(*call, "args");
                assembler.addCall(detail::stringOr(*call, "id"), detail::stringOr(*call, "name"),
                                  args != nullptr ? *args : json::object(),
                                  detail::stringOr(part, "thoughtSignature"), out);
            } else if (const json* thought = detail::member(part, "thought");
                       thought == nullptr || *thought != true) {
                assembler.appendText(detail::stringOr(part, "text"), out);
            }
        }
    }
    if (const auto reason = detail::stringMember(candidate, "finishReason");
        reason && *reason != "FINISH_REASON_UNSPECIFIED") {
        assembler.setStopReason(stopReason(*reason));
    }
    return std::nullopt;
}

}  // namespace

EncodedRequest encodeRequest(const llm::ModelRequest& request, const CodecOptions& options) {
    EncodedRequest encoded;
    encoded.path = "/v1beta/" + modelResource(options.model) +
                   (options.stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
    encoded.toolNames = ToolNameMap(request.tools, ToolNameRules::gemini);
    json& body = encoded.body;
    body = json::object();
    body["contents"] = encodeContents(request.messages, encoded.toolNames);
    if (std::string system = detail::systemPrompt(request); !system.empty()) {
        body["systemInstruction"] = {{"parts", {{{"text", std::move(system)}}}}};
    }
    if (!request.tools.empty()) {
        json declarations = json::array();
        for (const llm::ToolSpec& tool : request.tools) {
            json declaration = {{"name", encoded.toolNames.toWire(tool.name)}};
            if (!tool.description.empty()) {
                declaration["description"] = tool.description;
            }
            declaration[options.geminiJsonSchemaParameters ? "parametersJsonSchema" : "parameters"] =
                detail::toolSchema(tool);
            declarations.push_back(std::move(declaration));
        }
        body["tools"] = {{{"functionDeclarations", std::move(declarations)}}};
    }
    json config = json::object();
    if (request.temperature) {
        config["temperature"] = *request.temperature;
    }
    if (request.maxTokens) {
        config["maxOutputTokens"] = *request.maxTokens;
    }
    if (!config.empty()) {
        body["generationConfig"] = std::move(config);
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
    if (detail::arrayMember(*parsed, "candidates") == nullptr &&
        detail::member(*parsed, "error") == nullptr && detail::member(*parsed, "promptFeedback") == nullptr) {
        return fail(malformedResponse(kProvider, "the response has no candidates: " + detail::excerpt(body)));
    }
    ReplyAssembler assembler(std::string(kProvider), names);
    std::vector<StreamDelta> unused;
    if (auto error = consume(*parsed, assembler, unused)) {
        return fail(std::move(*error));
    }
    return assembler.finish();
}

StreamDecoder::StreamDecoder(ToolNameMap names) : assembler_(std::string(kProvider), std::move(names)) {}

expected<std::vector<StreamDelta>, llm::ProviderError> StreamDecoder::feed(const http::SseEvent& event) {
    if (failure_) {
        return fail(*failure_);
    }
    const auto parsed = detail::parse(event.data);
    if (!parsed || !parsed->is_object()) {
        failure_ =
            malformedResponse(kProvider, "stream data is not a JSON object: " + detail::excerpt(event.data));
        return fail(*failure_);
    }
    std::vector<StreamDelta> out;
    if (auto error = consume(*parsed, assembler_, out)) {
        failure_ = std::move(error);
        return fail(*failure_);
    }
    return out;
}

expected<llm::ModelReply, llm::ProviderError> StreamDecoder::finish() const {
    if (failure_) {
        return fail(*failure_);
    }
    if (!assembler_.stopReasonKnown()) {
        return fail(incompleteStream(kProvider, "no finishReason arrived"));
    }
    return assembler_.finish();
}

}  // namespace reagent::providers::gemini
