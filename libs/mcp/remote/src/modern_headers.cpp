#include "modern_headers.hpp"

#include "reagent/http/base64_url.hpp"

namespace reagent::mcp::detail {

namespace {

constexpr std::string_view kEncodedPrefix = "=?base64?";
constexpr std::string_view kEncodedSuffix = "?=";

bool plain(std::string_view value) {
    if (value.empty()) {
        return true;
    }
    if (value.front() == ' ' || value.front() == '\t' || value.back() == ' ' || value.back() == '\t') {
        return false;
    }
    if (value.starts_with(kEncodedPrefix) && value.ends_with(kEncodedSuffix)) {
        return false;  // it would be read as encoded
    }
    for (const char c : value) {
        const auto byte = static_cast<unsigned char>(c);
        if ((byte < 0x20 && byte != '\t') || byte > 0x7E) {
            return false;
        }
    }
    return true;
}

}  // namespace

std::string headerValue(std::string_view value) {
    if (plain(value)) {
        return std::string(value);
    }
    std::string out(kEncodedPrefix);
    out += http::base64(value);
    out += kEncodedSuffix;
    return out;
}

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
            headers.name = headerValue(name->get_ref<const std::string&>());
        }
    }
    return headers;
}

}  // namespace reagent::mcp::detail
