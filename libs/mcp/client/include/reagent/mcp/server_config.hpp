#pragma once
/// \file
/// \brief `ServerConfig`: how to reach one MCP server, and the `mcpServers` JSON format that MCP hosts use.

#include <chrono>
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/mcp/mcp_error.hpp"
#include "reagent/mcp/oauth.hpp"
#include "reagent/mcp/rpc_session.hpp"

namespace reagent::mcp {

/// \brief How the client talks to the server.
enum class TransportKind {
    /// A subprocess speaking newline-delimited JSON on stdin and stdout.
    stdio,
    /// One HTTP endpoint: POST for messages, GET for the server's stream, DELETE to end (2025-03-26+).
    streamable_http,
    /// The legacy HTTP+SSE transport (2024-11-05): GET an event stream, POST to the endpoint it announces.
    sse,
    /// JSON-RPC messages as WebSocket text messages, subprotocol `mcp`.
    websocket,
};

/// \brief `"stdio"`, `"streamable-http"`, `"sse"`, `"websocket"`: the names configurations use.
[[nodiscard]] std::string_view toString(TransportKind kind) noexcept;

/// \brief Which era of MCP the client speaks to a server: the 2026-07-28 revision (no handshake: every
/// request carries its version and the client's capabilities) or the `initialize` handshake (2025-11-25
/// and earlier).
enum class ProtocolEra {
    /// Ask first: `server/discover`, answered by a 2026-07-28 server; any other answer (an error, no answer
    /// within `ServerConfig::discoverTimeout` on stdio, a stdio server that exits, an HTTP 4xx without a
    /// 2026 error) means the handshake. SSE and WebSocket servers always get the handshake.
    automatic,
    /// The `initialize` handshake only, as before 2026-07-28.
    legacy,
    /// 2026-07-28 only: a server that does not answer `server/discover` with it is an
    /// `unsupported_version` error. stdio and streamable-http only.
    modern,
};

/// \brief `"auto"`, `"legacy"`, `"modern"`: the names configurations use.
[[nodiscard]] std::string_view toString(ProtocolEra era) noexcept;

/// \brief One MCP server: its name, its transport and the reliability settings of its client.
struct ServerConfig {
    /// Prefix of its tools (`name/tool`); must be a valid tool-name segment (letters, digits, `_`, `-`, `.`).
    std::string name;
    TransportKind transport = TransportKind::stdio;

    /// stdio: the program, found on `PATH` when it has no slash.
    std::string command;
    std::vector<std::string> args;
    /// stdio: variables merged over the parent's environment (only what differs).
    std::map<std::string, std::string> env;
    /// stdio: working directory of the server; empty means the client's own.
    std::string cwd;

    /// streamable-http, sse, websocket: the endpoint (`http://`, `https://`, `ws://`, `wss://`).
    std::string url;
    /// HTTP transports and the WebSocket handshake: sent on every request (auth tokens, API keys). Values
    /// never appear in errors or logs.
    std::map<std::string, std::string> headers;
    /// streamable-http: OAuth 2.1 when the server answers 401 (or 403 `insufficient_scope`); unset: such
    /// an answer is an `unauthorized` error. See `OAuthSettings`.
    std::optional<OAuthSettings> oauth;

    /// Limit of one request (`tools/call` and the rest); on expiry the server is sent
    /// `notifications/cancelled`. Default 60 s, as the official SDKs.
    std::chrono::milliseconds requestTimeout{60'000};
    /// Limit of opening the transport and the `initialize` handshake. Default 30 s.
    std::chrono::milliseconds connectTimeout{30'000};
    /// Reconnections after the transport drops (a stdio server that exits is restarted, an expired HTTP
    /// session re-initialised) before the server is given up. Default 3.
    int maxReconnects = 3;
    /// First wait before a reconnection, doubled at each further one. Default 200 ms.
    std::chrono::milliseconds reconnectDelay{200};
    /// stdio: the last bytes of the server's stderr kept for errors and `Client::stderrTail`. Default 64 KiB.
    std::size_t stderrLogBytes = 64U << 10U;
    /// Frame size bound and the like.
    RpcLimits limits{};

    /// The era the client speaks (`ProtocolEra`). Default: ask the server.
    ProtocolEra era = ProtocolEra::automatic;
    /// stdio with `ProtocolEra::automatic`: how long to wait for the answer to `server/discover` before
    /// taking the server for one of the handshake era (a few ignore requests before `initialize`). Default
    /// 10 s, as a server started by `npx` may first be downloaded. Over HTTP the probe has the
    /// connection's limit: no answer there is an error.
    std::chrono::milliseconds discoverTimeout{10'000};
};

/// \brief Checks a configuration: a name, a command for stdio, an absolute URL of the right scheme for the
/// others, positive limits.
///
/// \par Errors
/// `invalid_config`, naming the server and the field.
[[nodiscard]] expected<void, McpError> validate(const ServerConfig& config);

/// \brief Reads the `mcpServers` object that MCP hosts use (the whole document or just that member):
/// `{"mcpServers": {"fs": {"command": "npx", "args": [...], "env": {...}, "cwd": "..."},
///                  "api": {"type": "streamable-http", "url": "https://...", "headers": {...}}}}`.
///
/// An entry with `command` is stdio; one with `url` is `streamable-http` unless `type` (or `transport`)
/// says `sse`, `websocket` (`ws://` and `wss://` URLs default to it) or `http`. Optional
/// `timeoutMs`, `connectTimeoutMs` and `maxReconnects` set the reliability fields, and `era` (`"auto"`,
/// `"legacy"`, `"modern"`) the protocol era. Servers come back in name order.
///
/// \par Errors
/// `invalid_config` naming the server and the member at fault (an unknown `type`, `args` not an array of
/// strings, neither `command` nor `url`, ...); each entry is also checked with `validate`.
[[nodiscard]] expected<std::vector<ServerConfig>, McpError> parseServers(const nlohmann::json& document);

}  // namespace reagent::mcp
