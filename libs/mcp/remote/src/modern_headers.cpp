#include "modern_headers.hpp"

#include "reagent/http/encoded_header.hpp"

namespace reagent::mcp::detail {

std::optional<ModernHeaders> modernHeaders(const nlohmann::json& message) {
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
    return headers;
}

}  // namespace reagent::mcp::detail
