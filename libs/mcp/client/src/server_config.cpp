#include "reagent/mcp/server_config.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace reagent::mcp {
namespace {

using nlohmann::json;

McpError invalid(std::string_view server, std::string what) {
    std::string message = "MCP server '";
    message += server;
    message += "': ";
    message += what;
    return {McpErrc::invalid_config, std::move(message)};
}

bool validNameCharacter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
}

bool startsWith(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

expected<std::string, McpError> stringMember(const json& entry, std::string_view server, const char* key) {
    const json& value = entry.at(key);
    if (!value.is_string()) {
        return unexpected(invalid(server, std::string("`") + key + "` must be a string"));
    }
    return value.get<std::string>();
}

expected<std::map<std::string, std::string>, McpError> stringMap(const json& entry, std::string_view server,
                                                                 const char* key) {
    const json& value = entry.at(key);
    if (!value.is_object()) {
        return unexpected(invalid(server, std::string("`") + key + "` must be an object of strings"));
    }
    std::map<std::string, std::string> out;
    for (const auto& [name, item] : value.items()) {
        if (!item.is_string()) {
            return unexpected(invalid(server, std::string("`") + key + "." + name + "` must be a string"));
        }
        out.emplace(name, item.get<std::string>());
    }
    return out;
}

expected<std::chrono::milliseconds, McpError> milliseconds(const json& entry, std::string_view server,
                                                           const char* key) {
    const json& value = entry.at(key);
    if (!value.is_number_integer() || value.get<long long>() <= 0) {
        return unexpected(
            invalid(server, std::string("`") + key + "` must be a positive integer (milliseconds)"));
    }
    return std::chrono::milliseconds(value.get<long long>());
}

expected<TransportKind, McpError> kindNamed(std::string_view server, std::string_view name) {
    if (name == "stdio") {
        return TransportKind::stdio;
    }
    if (name == "streamable-http" || name == "http" || name == "streamableHttp" ||
        name == "streamable_http") {
        return TransportKind::streamable_http;
    }
    if (name == "sse") {
        return TransportKind::sse;
    }
    if (name == "websocket" || name == "ws") {
        return TransportKind::websocket;
    }
    return unexpected(invalid(server, "unknown transport type '" + std::string(name) +
                                          "' (expected stdio, streamable-http, http, sse or websocket)"));
}

bool hasAuthorizationHeader(const ServerConfig& config) {
    for (const auto& [header, value] : config.headers) {
        if (header.size() == 13 && std::equal(header.begin(), header.end(), "authorization",
                                              [](char a, char b) { return (a | 0x20) == b; })) {
            return true;
        }
    }
    return false;
}

// `"oauth": false` (never), `true` (the defaults) or an object of settings. Absent: OAuth for a
// streamable-http server that sends no Authorization header of its own, as MCP hosts do.
expected<void, McpError> parseOAuth(const std::string& name, const json& entry, ServerConfig& config) {
    const auto member = entry.find("oauth");
    if (member == entry.end()) {
        if (config.transport == TransportKind::streamable_http && !hasAuthorizationHeader(config)) {
            config.oauth.emplace();
        }
        return {};
    }
    if (member->is_boolean()) {
        if (member->get<bool>()) {
            config.oauth.emplace();
        }
        return {};
    }
    if (!member->is_object()) {
        return unexpected(invalid(name, "`oauth` must be true, false or an object of settings"));
    }
    OAuthSettings settings;
    const std::pair<const char*, std::string*> fields[] = {{"clientId", &settings.clientId},
                                                           {"clientSecret", &settings.clientSecret},
                                                           {"clientMetadataUrl", &settings.clientMetadataUrl},
                                                           {"clientName", &settings.clientName},
                                                           {"redirectUri", &settings.redirectUri}};
    for (const auto& [key, field] : fields) {
        if (member->contains(key)) {
            auto value = stringMember(*member, name, key);
            if (!value) {
                return unexpected(invalid(name, "`oauth." + std::string(key) + "` must be a string"));
            }
            *field = std::move(*value);
        }
    }
    if (member->contains("scopes")) {
        const json& scopes = member->at("scopes");
        if (!scopes.is_array()) {
            return unexpected(invalid(name, "`oauth.scopes` must be an array of strings"));
        }
        for (const json& scope : scopes) {
            if (!scope.is_string() || scope.get<std::string>().empty()) {
                return unexpected(invalid(name, "`oauth.scopes` must be an array of non-empty strings"));
            }
            settings.scopes.push_back(scope.get<std::string>());
        }
    }
    if (member->contains("authorizationTimeoutMs")) {
        auto limit = milliseconds(*member, name, "authorizationTimeoutMs");
        if (!limit) {
            return unexpected(invalid(name, "`oauth.authorizationTimeoutMs` must be a positive integer"));
        }
        settings.authorizationTimeout = *limit;
    }
    config.oauth = std::move(settings);
    return {};
}

expected<ServerConfig, McpError> parseEntry(const std::string& name, const json& entry) {
    if (!entry.is_object()) {
        return unexpected(invalid(name, "the entry must be an object"));
    }
    ServerConfig config;
    config.name = name;
    const bool hasCommand = entry.contains("command");
    const bool hasUrl = entry.contains("url") || entry.contains("endpoint");
    if (hasCommand == hasUrl) {
        return unexpected(invalid(name, hasCommand
                                            ? "has both `command` (stdio) and `url`; keep one"
                                            : "needs `command` (stdio) or `url` (HTTP, SSE, WebSocket)"));
    }
    if (hasCommand) {
        auto command = stringMember(entry, name, "command");
        if (!command) {
            return unexpected(command.error());
        }
        config.command = std::move(*command);
        if (entry.contains("args")) {
            const json& args = entry.at("args");
            if (!args.is_array()) {
                return unexpected(invalid(name, "`args` must be an array of strings"));
            }
            for (const json& arg : args) {
                if (!arg.is_string()) {
                    return unexpected(invalid(name, "`args` must be an array of strings"));
                }
                config.args.push_back(arg.get<std::string>());
            }
        }
        if (entry.contains("env")) {
            auto env = stringMap(entry, name, "env");
            if (!env) {
                return unexpected(env.error());
            }
            config.env = std::move(*env);
        }
        if (entry.contains("cwd")) {
            auto cwd = stringMember(entry, name, "cwd");
            if (!cwd) {
                return unexpected(cwd.error());
            }
            config.cwd = std::move(*cwd);
        }
    } else {
        auto url = stringMember(entry, name, entry.contains("url") ? "url" : "endpoint");
        if (!url) {
            return unexpected(url.error());
        }
        config.url = std::move(*url);
        config.transport = startsWith(config.url, "ws://") || startsWith(config.url, "wss://")
                               ? TransportKind::websocket
                               : TransportKind::streamable_http;
        if (entry.contains("headers")) {
            auto headers = stringMap(entry, name, "headers");
            if (!headers) {
                return unexpected(headers.error());
            }
            config.headers = std::move(*headers);
        }
    }
    for (const char* key : {"type", "transport"}) {
        if (entry.contains(key)) {
            auto type = stringMember(entry, name, key);
            if (!type) {
                return unexpected(type.error());
            }
            auto kind = kindNamed(name, *type);
            if (!kind) {
                return unexpected(kind.error());
            }
            config.transport = *kind;
        }
    }
    if (entry.contains("timeoutMs")) {
        auto limit = milliseconds(entry, name, "timeoutMs");
        if (!limit) {
            return unexpected(limit.error());
        }
        config.requestTimeout = *limit;
    }
    if (entry.contains("connectTimeoutMs")) {
        auto limit = milliseconds(entry, name, "connectTimeoutMs");
        if (!limit) {
            return unexpected(limit.error());
        }
        config.connectTimeout = *limit;
    }
    if (entry.contains("era")) {
        auto era = stringMember(entry, name, "era");
        if (!era) {
            return unexpected(era.error());
        }
        if (*era == "auto") {
            config.era = ProtocolEra::automatic;
        } else if (*era == "legacy") {
            config.era = ProtocolEra::legacy;
        } else if (*era == "modern") {
            config.era = ProtocolEra::modern;
        } else {
            return unexpected(
                invalid(name, "`era` must be \"auto\", \"legacy\" or \"modern\", not \"" + *era + "\""));
        }
    }
    if (entry.contains("maxReconnects")) {
        const json& value = entry.at("maxReconnects");
        if (!value.is_number_integer() || value.get<long long>() < 0 || value.get<long long>() > 1000) {
            return unexpected(invalid(name, "`maxReconnects` must be an integer from 0 to 1000"));
        }
        config.maxReconnects = value.get<int>();
    }
    if (auto oauth = parseOAuth(name, entry, config); !oauth) {
        return unexpected(oauth.error());
    }
    if (auto valid = validate(config); !valid) {
        return unexpected(valid.error());
    }
    return config;
}

}  // namespace

std::string_view toString(ProtocolEra era) noexcept {
    switch (era) {
        case ProtocolEra::automatic:
            return "auto";
        case ProtocolEra::legacy:
            return "legacy";
        case ProtocolEra::modern:
            return "modern";
    }
    return "auto";
}

std::string_view toString(TransportKind kind) noexcept {
    switch (kind) {
        case TransportKind::stdio:
            return "stdio";
        case TransportKind::streamable_http:
            return "streamable-http";
        case TransportKind::sse:
            return "sse";
        case TransportKind::websocket:
            return "websocket";
    }
    return "unknown";
}

expected<void, McpError> validate(const ServerConfig& config) {
    if (config.name.empty()) {
        return unexpected(
            McpError{McpErrc::invalid_config, "an MCP server needs a name (the prefix of its tools)"});
    }
    for (char c : config.name) {
        if (!validNameCharacter(c)) {
            return unexpected(
                invalid(config.name, "the name may only hold letters, digits, '_', '-' and '.'"));
        }
    }
    if (config.name.size() > 64) {
        return unexpected(invalid(config.name, "the name is longer than 64 characters"));
    }
    if (config.transport == TransportKind::stdio) {
        if (config.command.empty()) {
            return unexpected(invalid(config.name, "a stdio server needs a `command`"));
        }
    } else {
        const bool web = startsWith(config.url, "http://") || startsWith(config.url, "https://");
        const bool socket = startsWith(config.url, "ws://") || startsWith(config.url, "wss://");
        if (config.url.empty()) {
            return unexpected(invalid(
                config.name, "a " + std::string(toString(config.transport)) + " server needs a `url`"));
        }
        if (config.transport == TransportKind::websocket ? !socket : !web) {
            return unexpected(invalid(
                config.name, "the `url` of a " + std::string(toString(config.transport)) +
                                 " server must start with " +
                                 (config.transport == TransportKind::websocket ? "ws:// or wss://"
                                                                               : "http:// or https://")));
        }
    }
    if (config.requestTimeout.count() <= 0 || config.connectTimeout.count() <= 0) {
        return unexpected(invalid(config.name, "the time limits must be positive"));
    }
    if (config.maxReconnects < 0 || config.reconnectDelay.count() < 0) {
        return unexpected(invalid(config.name, "`maxReconnects` and `reconnectDelay` must not be negative"));
    }
    if (config.era == ProtocolEra::modern && config.transport != TransportKind::stdio &&
        config.transport != TransportKind::streamable_http) {
        return unexpected(invalid(config.name,
                                  "MCP 2026-07-28 (`era` modern) runs over stdio and "
                                  "streamable-http only, not " +
                                      std::string(toString(config.transport))));
    }
    if (config.discoverTimeout.count() <= 0) {
        return unexpected(invalid(config.name, "`discoverTimeout` must be positive"));
    }
    if (config.limits.maxMessageBytes == 0) {
        return unexpected(invalid(config.name, "`limits.maxMessageBytes` must be positive"));
    }
    if (config.oauth) {
        if (config.transport != TransportKind::streamable_http) {
            return unexpected(invalid(config.name, "OAuth is supported on streamable-http servers only"));
        }
        const OAuthSettings& oauth = *config.oauth;
        if (!oauth.clientMetadataUrl.empty() && !startsWith(oauth.clientMetadataUrl, "https://")) {
            return unexpected(invalid(config.name, "`oauth.clientMetadataUrl` must be an https:// URL"));
        }
        if (!startsWith(oauth.redirectUri, "http://") && !startsWith(oauth.redirectUri, "https://")) {
            return unexpected(invalid(config.name, "`oauth.redirectUri` must be an http:// or https:// URL"));
        }
        if (!oauth.clientSecret.empty() && oauth.clientId.empty()) {
            return unexpected(invalid(config.name, "`oauth.clientSecret` is set without `oauth.clientId`"));
        }
        if (oauth.authorizationTimeout.count() <= 0 || oauth.maxAuthorizationsPerRequest < 1 ||
            !oauth.store) {
            return unexpected(
                invalid(config.name,
                        "OAuth needs a positive authorization timeout, at least one authorization "
                        "per request and a store"));
        }
    }
    return {};
}

expected<std::vector<ServerConfig>, McpError> parseServers(const nlohmann::json& document) {
    const json* servers = &document;
    if (document.is_object() && document.contains("mcpServers")) {
        servers = &document.at("mcpServers");
    }
    if (!servers->is_object()) {
        return unexpected(
            McpError{McpErrc::invalid_config,
                     "the MCP configuration must be an object: {\"mcpServers\": {\"name\": {...}}}"});
    }
    std::vector<ServerConfig> configs;
    for (const auto& [name, entry] : servers->items()) {
        auto config = parseEntry(name, entry);
        if (!config) {
            return unexpected(config.error());
        }
        configs.push_back(std::move(*config));
    }
    return configs;
}

}  // namespace reagent::mcp
