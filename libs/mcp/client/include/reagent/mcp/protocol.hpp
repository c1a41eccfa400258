#pragma once
/// \file
/// \brief The data model of the Model Context Protocol that both ends share: implementations, tools and
/// their annotations, call results, progress, log lines, roots, what `initialize` tells, and the
/// content helpers. Apart from `client.hpp` so that the server does not include the client.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace reagent::mcp {

/// \brief A program's name and version, as `initialize` exchanges them.
struct Implementation {
    std::string name;
    std::string version;
    /// Optional display name.
    std::string title;
};

/// \brief The server's hints about a tool; absent hints are unknown, not false.
struct ToolAnnotations {
    std::string title;
    std::optional<bool> readOnlyHint;
    std::optional<bool> destructiveHint;
    std::optional<bool> idempotentHint;
    std::optional<bool> openWorldHint;

    /// \brief True when a call may be sent again after a reconnection: read-only or idempotent.
    [[nodiscard]] bool safeToRetry() const noexcept {
        return readOnlyHint.value_or(false) || idempotentHint.value_or(false);
    }
};

/// \brief A tool as the server lists it.
struct ToolInfo {
    std::string name;
    std::string title;
    std::string description;
    /// The whole JSON Schema of the arguments, as sent (nested objects, enums, `$defs` kept).
    nlohmann::json inputSchema = nlohmann::json::object();
    /// The schema of `structuredContent`, or null.
    nlohmann::json outputSchema = nullptr;
    ToolAnnotations annotations;
};

/// \brief The outcome of `tools/call`.
struct CallResult {
    /// The content turned into text for a model: text blocks joined by blank lines; images, audio and
    /// resources described in one line each (type, MIME type, size, URI), never their base64.
    std::string text;
    /// The `content` array as sent.
    nlohmann::json content = nlohmann::json::array();
    /// `structuredContent`, or null.
    nlohmann::json structuredContent = nullptr;
    /// The server reported a tool error (`isError: true`); `text` says what went wrong.
    bool isError = false;
};

/// \brief `notifications/progress` for one call.
struct Progress {
    double progress = 0;
    std::optional<double> total;
    std::string message;
};

/// \brief `notifications/message`: a log line from the server.
struct LogMessage {
    /// `debug`, `info`, `notice`, `warning`, `error`, `critical`, `alert` or `emergency`.
    std::string level;
    /// Optional name of the server's logger.
    std::string logger;
    /// Anything JSON; usually a string.
    nlohmann::json data;
};

/// \brief A directory or file the client offers the server (`roots/list`).
struct Root {
    /// A `file://` URI.
    std::string uri;
    std::string name;
};

/// \brief What `initialize` told about the server.
struct ServerInfo {
    Implementation implementation;
    /// The version both sides speak (one of `kSupportedProtocolVersions`).
    std::string protocolVersion;
    nlohmann::json capabilities = nlohmann::json::object();
    std::string instructions;
};

/// \brief The content array as clean text for a model (see `CallResult::text`).
[[nodiscard]] std::string contentToText(const nlohmann::json& content);

/// \brief An elicitation result completed with the requested schema's defaults: for `action: accept`,
/// each property of `requestedSchema` that has a `default` and is missing from `content` gets it.
[[nodiscard]] nlohmann::json fillElicitationDefaults(const nlohmann::json& requestedSchema,
                                                     nlohmann::json result);

}  // namespace reagent::mcp
