#include "reagent/providers/provider_config.hpp"

#include <cstdlib>

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
        case ProviderKind::anthropic: return {"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"};
        case ProviderKind::openai: return {"OPENAI_API_KEY", "OPENAI_BASE_URL"};
        case ProviderKind::gemini: return {"GEMINI_API_KEY", "GEMINI_BASE_URL"};
        case ProviderKind::ollama: return {"OLLAMA_API_KEY", "OLLAMA_HOST"};
    }
    return {"", ""};
}

}  // namespace

llm::ProviderError configurationError(std::string message) {
    llm::ProviderError error;
    error.code = llm::ProviderErrc::configuration;
    error.message = std::move(message);
    return error;
}

std::string_view toString(ProviderKind kind) noexcept {
    switch (kind) {
        case ProviderKind::anthropic: return "anthropic";
        case ProviderKind::openai: return "openai";
        case ProviderKind::gemini: return "gemini";
        case ProviderKind::ollama: return "ollama";
    }
    return "unknown";
}

std::optional<ProviderKind> parseProviderKind(std::string_view name) noexcept {
    for (auto kind : {ProviderKind::anthropic, ProviderKind::openai, ProviderKind::gemini, ProviderKind::ollama}) {
        if (toString(kind) == name) {
            return kind;
        }
    }
    return std::nullopt;
}

std::string_view defaultModel(ProviderKind kind) noexcept {
    switch (kind) {
        case ProviderKind::anthropic: return "claude-sonnet-4-5";
        case ProviderKind::openai: return "gpt-4.1";
        case ProviderKind::gemini: return "gemini-2.5-flash";
        case ProviderKind::ollama: return "qwen3";
    }
    return "";
}

std::string_view defaultBaseUrl(ProviderKind kind) noexcept {
    switch (kind) {
        case ProviderKind::anthropic: return "https://api.anthropic.com";
        case ProviderKind::openai: return "https://api.openai.com/v1";
        case ProviderKind::gemini: return "https://generativelanguage.googleapis.com/v1beta";
        case ProviderKind::ollama: return "http://127.0.0.1:11434";
    }
    return "";
}

// Follows the ollama CLI (envconfig.Host): a missing scheme is http with port 11434; an explicit http or
// https scheme defaults the port to 80 or 443; a path is kept.
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
    return scheme + "://" + host + ":" + port + path;
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
        if (config.apiKey.empty()) {
            return fail(configurationError(std::string(toString(kind)) + ": no API key: set the " + names.key +
                                           " environment variable"));
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
