#include "codec_common.hpp"

#include <initializer_list>
#include <string_view>

#include "json_writer.hpp"
#include "reagent/providers/provider_http_error.hpp"

namespace reagent::providers::detail {

namespace {

// Room for the body of `request` in `body`, so that writing it does not reallocate as it grows.
void reserveBody(std::string& body, const llm::ModelRequest& request, const EncodedTools& tools) {
    // Text plus a generous allowance for keys, escapes and call arguments.
    std::size_t size = 256 + tools.json.size();
    for (const llm::Message& message : request.messages) {
        size += 64 + message.text.size() + message.toolCallId.size() + 160 * message.toolCalls.size();
    }
    body.reserve(size);
}

}  // namespace

EncodedRequest encodeBody(std::string path, const llm::ModelRequest& request, const CodecOptions& options,
                          const EncodedTools& tools, FieldWriter write) {
    EncodedRequest encoded;
    encoded.path = std::move(path);
    encoded.toolNames = tools.names;
    reserveBody(encoded.body, request, tools);
    JsonWriter out(encoded.body);
    out.beginObject();
    write(out, request, options, tools.names);
    if (!tools.json.empty()) {
        out.key("tools").raw(tools.json);
    }
    out.endObject();
    return encoded;
}

std::string systemPrompt(const llm::ModelRequest& request) {
    std::string prompt;
    for (const llm::Message& message : request.messages) {
        if (message.role != llm::Role::system || message.text.empty()) {
            continue;
        }
        if (!prompt.empty()) {
            prompt += "\n\n";
        }
        prompt += message.text;
    }
    return prompt;
}

const nlohmann::json& toolSchema(const llm::ToolSpec& tool) {
    static const nlohmann::json kEmptyObject = {{"type", "object"}, {"properties", nlohmann::json::object()}};
    return tool.inputSchema.is_object() && !tool.inputSchema.empty() ? tool.inputSchema : kEmptyObject;
}

namespace {

nlohmann::json onlyKeys(const nlohmann::json& object, std::initializer_list<std::string_view> keys) {
    nlohmann::json kept = nlohmann::json::object();
    for (const std::string_view key : keys) {
        if (const auto it = object.find(key); it != object.end()) {
            kept[std::string(key)] = *it;
        }
    }
    return kept;
}

}  // namespace

nlohmann::json ollamaSchema(const nlohmann::json& schema) {
    if (!schema.is_object()) {
        return schema;
    }
    nlohmann::json kept = onlyKeys(schema, {"$defs", "items", "properties", "required", "type"});
    if (const auto properties = kept.find("properties");
        properties != kept.end() && properties->is_object()) {
        for (auto& property : properties->items()) {
            if (property.value().is_object()) {
                property.value() = onlyKeys(property.value(), {"description", "enum", "items", "type"});
            }
        }
    }
    return kept;
}

EncodedTools functionTools(const llm::ToolList& tools, SchemaDialect dialect) {
    EncodedTools encoded;
    encoded.names = ToolNameMap(tools.specs(), ToolNameRules::standard);
    if (tools.empty()) {
        return encoded;
    }
    JsonWriter out(encoded.json);
    out.beginArray();
    for (const llm::ToolSpec& tool : tools) {
        out.beginObject().key("function").beginObject();
        if (!tool.description.empty()) {
            out.key("description").string(tool.description);
        }
        out.key("name").string(encoded.names.toWire(tool.name));
        if (dialect == SchemaDialect::ollama) {
            out.key("parameters").value(ollamaSchema(toolSchema(tool)));
        } else {
            out.key("parameters").value(toolSchema(tool));
        }
        out.endObject().key("type").string("function").endObject();
    }
    out.endArray();
    return encoded;
}

nlohmann::json argumentsObject(const nlohmann::json& arguments) {
    if (arguments.is_object()) {
        return arguments;
    }
    if (arguments.is_null()) {
        return nlohmann::json::object();
    }
    return {{"value", arguments}};
}

std::string argumentsJson(const nlohmann::json& arguments) {
    if (arguments.is_object()) {
        return dumpJson(arguments);
    }
    return dumpJson(argumentsObject(arguments));
}

void setBearer(http::HttpHeaders& headers, const std::string& key) {
    if (!key.empty()) {
        headers.set("Authorization", "Bearer " + key);
    }
}

expected<llm::ModelReply, llm::ProviderError> decodeReply(std::string_view provider, int status,
                                                          std::string_view body, const ToolNameMap& names,
                                                          const http::HttpHeaders& headers,
                                                          ReplyReader read) {
    if (status < 200 || status > 299) {
        return fail(httpError(provider, status, body, headers));
    }
    const ParsedJson parsed(body);
    if (!parsed || !parsed->is_object()) {
        return fail(malformedResponse(provider, "the response is not a JSON object: " + excerpt(body)));
    }
    ReplyAssembler assembler(std::string(provider), names);
    std::vector<llm::StreamDelta> unused;
    if (auto error = read(*parsed, body, assembler, unused)) {
        return fail(std::move(*error));
    }
    return assembler.finish();
}

EncodedRequest countRequest(EncodedRequest encoded, std::string path,
                            std::initializer_list<std::string_view> keep) {
    const nlohmann::json body = nlohmann::json::parse(encoded.body);  // our own encoding: always an object
    nlohmann::json kept = nlohmann::json::object();
    for (const std::string_view field : keep) {
        if (const auto it = body.find(field); it != body.end()) {
            kept[std::string(field)] = *it;
        }
    }
    encoded.body = kept.dump();
    encoded.path = std::move(path);
    return encoded;
}

EncodedRequest countRequest(EncodedRequest encoded, std::string path, std::string_view wrap,
                            std::string_view model) {
    nlohmann::json body = nlohmann::json::parse(encoded.body);
    body["model"] = model;
    encoded.body = nlohmann::json{{std::string(wrap), std::move(body)}}.dump();
    encoded.path = std::move(path);
    return encoded;
}

expected<std::int64_t, llm::ProviderError> decodeCount(std::string_view provider, int status,
                                                       std::string_view body,
                                                       const http::HttpHeaders& headers,
                                                       std::string_view field) {
    if (status < 200 || status > 299) {
        return fail(httpError(provider, status, body, headers));
    }
    const ParsedJson parsed(body);
    if (!parsed || !parsed->is_object()) {
        return fail(malformedResponse(provider, "the token count is not a JSON object: " + excerpt(body)));
    }
    const auto tokens = integerMember(*parsed, field);
    if (!tokens || *tokens < 0) {
        return fail(malformedResponse(provider,
                                      "the token count has no " + std::string(field) + ": " + excerpt(body)));
    }
    return *tokens;
}

}  // namespace reagent::providers::detail
