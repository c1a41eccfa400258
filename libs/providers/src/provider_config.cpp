#include "reagent/providers/provider_config.hpp"

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>
#include <charconv>
#include <cstdlib>

#include "reagent/core/enum_name.hpp"
#include "reagent/http/redacted_url.hpp"

namespace reagent::providers {

namespace {

std::string environment(const char* name) {
    const char* value = std::getenv(name);
    return value == nullptr ? std::string() : std::string(value);
}

std::string trimmed(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) {
        return {};
    }
    const auto last = text.find_last_not_of(" \t\r\n");
    return std::string(text.substr(first, last - first + 1));
}

struct EnvNames {
    const char* key;
    const char* baseUrl;
};

EnvNames envNames(ProviderKind kind) noexcept {
    switch (kind) {
        case ProviderKind::anthropic:
            return {"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"};
        case ProviderKind::openai:
            return {"OPENAI_API_KEY", "OPENAI_BASE_URL"};
        case ProviderKind::gemini:
            return {"GEMINI_API_KEY", "GEMINI_BASE_URL"};
        case ProviderKind::ollama:
            return {"OLLAMA_API_KEY", "OLLAMA_HOST"};
    }
    return {"", ""};
}

// Why `url` cannot be a base URL, or nothing when it can.
std::optional<std::string> baseUrlProblem(std::string_view url) {
    const auto parsed = boost::urls::parse_uri(url);
    if (!parsed) {
        return "is not an absolute URL (" + parsed.error().message() + ")";
    }
    const boost::urls::url_view& view = *parsed;
    if (view.scheme_id() != boost::urls::scheme::http && view.scheme_id() != boost::urls::scheme::https) {
        return std::string("is not an http:// or https:// URL");
    }
    if (!view.has_authority() || view.host_address().empty()) {
        return std::string("has no host");
    }
    if (view.has_port()) {
        const std::string_view port = view.port();
        unsigned number = 0;
        const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), number);
        if (port.empty() || ec != std::errc() || end != port.data() + port.size() || number == 0 ||
            number > 65535) {
            return std::string("has a port that is not a number from 1 to 65535");
        }
    }
    if (view.has_fragment()) {
        return std::string("has a fragment ('#...'), which an API URL cannot use");
    }
    return std::nullopt;
}

const char* keyVariable(ProviderKind kind) noexcept {
    return envNames(kind).key;
}

}  // namespace

expected<void, llm::ProviderError> validateConfig(const ProviderConfig& config) {
    const std::string kindName(toString(config.kind));
    if (config.apiKey.empty() && config.kind != ProviderKind::ollama) {
        return fail(configurationError(kindName + ": no API key: set ProviderConfig::apiKey or the " +
                                       keyVariable(config.kind) + " environment variable"));
    }
    if (config.baseUrl.empty()) {
        return {};
    }
    return validateBaseUrl(kindName, config.baseUrl);
}

expected<void, llm::ProviderError> validateBaseUrl(std::string_view provider, std::string_view url) {
    if (auto problem = baseUrlProblem(url)) {
        return fail(configurationError(std::string(provider) + ": the base URL '" + http::redactedUrl(url) +
                                       "' " + *problem));
    }
    return {};
}

std::string joinUrl(std::string_view base, std::string_view path) {
    const auto baseQuery = base.find('?');
    std::string_view basePath = base.substr(0, baseQuery);
    while (!basePath.empty() && basePath.back() == '/') {
        basePath.remove_suffix(1);
    }
    const auto pathQuery = path.find('?');
    std::string out(basePath);
    out += path.substr(0, pathQuery);
    std::string query;
    if (baseQuery != std::string_view::npos && baseQuery + 1 < base.size()) {
        query = base.substr(baseQuery + 1);
    }
    if (pathQuery != std::string_view::npos && pathQuery + 1 < path.size()) {
        if (!query.empty()) {
            query += '&';
        }
        query += path.substr(pathQuery + 1);
    }
    if (!query.empty()) {
        out += '?';
        out += query;
    }
    return out;
}

llm::ProviderError configurationError(std::string message) {
    llm::ProviderError error;
    error.code = llm::ProviderErrc::configuration;
    error.message = std::move(message);
    return error;
}

std::string_view toString(ProviderKind kind) noexcept {
    return enumName(kind);
}

std::optional<ProviderKind> parseProviderKind(std::string_view name) noexcept {
    for (auto kind :
         {ProviderKind::anthropic, ProviderKind::openai, ProviderKind::gemini, ProviderKind::ollama}) {
        if (toString(kind) == name) {
            return kind;
        }
    }
    return std::nullopt;
}

// Follows the ollama CLI (envconfig.Host): a missing scheme is http with port 11434; an explicit http or
// https scheme defaults the port to 80 or 443; a path is kept. The API is below the host, at /api.
std::string ollamaBaseUrl(std::string_view hostValue) {
    std::string value = trimmed(hostValue);
    std::string scheme = "http";
    std::string defaultPort = "11434";
    std::string rest = value;
    if (const auto sep = value.find("://"); sep != std::string::npos) {
        scheme = value.substr(0, sep);
        rest = value.substr(sep + 3);
        if (scheme == "http") {
            defaultPort = "80";
        } else if (scheme == "https") {
            defaultPort = "443";
        }
    }
    std::string path;
    if (const auto slash = rest.find('/'); slash != std::string::npos) {
        path = rest.substr(slash);
        rest = rest.substr(0, slash);
    }
    std::string host = rest;
    std::string port;
    if (!rest.empty() && rest.front() == '[') {
        const auto close = rest.find(']');
        if (close != std::string::npos && close + 1 < rest.size() && rest[close + 1] == ':') {
            host = rest.substr(0, close + 1);
            port = rest.substr(close + 2);
        }
    } else if (const auto colon = rest.rfind(':'); colon != std::string::npos && rest.find(':') == colon) {
        host = rest.substr(0, colon);
        port = rest.substr(colon + 1);
    }
    if (host.empty()) {
        host = "127.0.0.1";
    }
    if (port.empty()) {
        port = defaultPort;
    }
    while (!path.empty() && path.back() == '/') {
        path.pop_back();
    }
    return scheme + "://" + host + ":" + port + path + "/api";
}

expected<ProviderConfig, llm::ProviderError> configFromEnvironment(ProviderKind kind) {
    ProviderConfig config;
    config.kind = kind;
    const EnvNames names = envNames(kind);
    config.apiKey = trimmed(environment(names.key));
    if (kind == ProviderKind::ollama) {
        config.baseUrl = ollamaBaseUrl(environment(names.baseUrl));
    } else {
        config.baseUrl = trimmed(environment(names.baseUrl));
        if (kind == ProviderKind::anthropic && !config.baseUrl.empty()) {
            // The SDKs' ANTHROPIC_BASE_URL is the host, without the version.
            config.baseUrl = joinUrl(config.baseUrl, "/v1");
        }
        if (config.apiKey.empty()) {
            return fail(configurationError(std::string(toString(kind)) + ": no API key: set the " +
                                           names.key + " environment variable"));
        }
    }
    return config;
}

std::optional<ProviderConfig> detectProvider() {
    for (auto kind : {ProviderKind::anthropic, ProviderKind::openai, ProviderKind::gemini}) {
        if (auto config = configFromEnvironment(kind)) {
            return std::move(*config);
        }
    }
    if (!trimmed(environment("OLLAMA_HOST")).empty()) {
        return configFromEnvironment(ProviderKind::ollama).value();
    }
    return std::nullopt;
}

}  // namespace reagent::providers
