#include "modern_headers.hpp"

#include "reagent/http/encoded_header.hpp"

namespace reagent::mcp::detail {

namespace {

// An argument as a header value: strings encoded when they must be, integers in decimal, booleans as
// true/false; nothing for other values (a schema's type the model did not follow).
std::optional<std::string> mirrored(const nlohmann::json& value) {
    if (value.is_string()) {
        return http::encodeHeaderValue(value.get_ref<const std::string&>());
    }
    if (value.is_boolean()) {
        return std::string(value.get<bool>() ? "true" : "false");
    }
    if (value.is_number_integer()) {
        return value.dump();
    }
    return std::nullopt;
}

void addParams(ModernHeaders& headers, const nlohmann::json& params, const ParamHeaders& marked) {
    const auto tool = marked.find(params.value("name", std::string()));
    const auto arguments = params.find("arguments");
    if (tool == marked.end() || arguments == params.end() || !arguments->is_object()) {
        return;
    }
    for (const ParamHeader& header : tool->second) {
        const nlohmann::json* value = &*arguments;
        for (const std::string& step : header.path) {
            const auto next = value->is_object() ? value->find(step) : value->end();
            value = next != value->end() ? &*next : nullptr;
            if (value == nullptr) {
                break;
            }
        }
        if (value != nullptr && !value->is_null()) {
            if (auto text = mirrored(*value)) {
                headers.params.emplace_back(header.name, std::move(*text));
            }
        }
    }
}

}  // namespace

std::optional<ModernHeaders> modernHeaders(const nlohmann::json& message, const ParamHeaders* paramHeaders) {
    if (!message.is_object() || !message.contains("id")) {
        return std::nullopt;
    }
    const auto method = message.find("method");
    const auto params = message.find("params");
    if (method == message.end() || !method->is_string() || params == message.end() || !params->is_object()) {
        return std::nullopt;
    }
    const auto meta = params->find("_meta");
    if (meta == params->end() || !meta->is_object()) {
        return std::nullopt;
    }
    const auto version = meta->find("io.modelcontextprotocol/protocolVersion");
    if (version == meta->end() || !version->is_string()) {
        return std::nullopt;
    }
    ModernHeaders headers;
    headers.version = version->get<std::string>();
    headers.method = method->get<std::string>();
    const char* nameKey = headers.method == "tools/call" || headers.method == "prompts/get" ? "name"
                          : headers.method == "resources/read"                              ? "uri"
                                                                                            : nullptr;
    if (nameKey != nullptr) {
        if (const auto name = params->find(nameKey); name != params->end() && name->is_string()) {
            headers.name = http::encodeHeaderValue(name->get_ref<const std::string&>());
        }
    }
    if (paramHeaders != nullptr && headers.method == "tools/call") {
        addParams(headers, *params, *paramHeaders);
    }
    return headers;
}

}  // namespace reagent::mcp::detail
