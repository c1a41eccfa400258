#pragma once
/// \file
/// \brief `serveHttp`: an MCP server on the streamable HTTP transport (one endpoint, many sessions).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/mcp/mcp_error.hpp"
#include "reagent/mcp/server.hpp"

namespace reagent::mcp {

/// \brief How a POST that carries requests is answered.
enum class HttpReplyMode {
    /// `text/event-stream`: the request's progress, log lines and server requests, then its response;
    /// the stream ends after the last response. (What the TypeScript SDK does by default.)
    event_stream,
    /// `application/json`: one body with the response (an array for a batch). Messages related to the
    /// request that are not its response go to the session's GET stream instead.
    json,
};

/// \brief Where `serveHttp` listens, what it accepts, and the bounds it keeps.
struct HttpServeOptions {
    /// The address to bind. Default `127.0.0.1`. On a loopback address, DNS rebinding is refused (see
    /// `allowedHosts`).
    std::string address = "127.0.0.1";
    /// The TCP port; 0 picks a free one (learn it from `onListening`). Default 0.
    std::uint16_t port = 0;
    /// The endpoint's path (POST, GET and DELETE); other paths get 404. Default `/mcp`.
    std::string path = "/mcp";
    /// `Host` values (without the port) accepted besides `localhost`, `127.0.0.1` and `[::1]` when bound
    /// to a loopback address; when bound elsewhere and not empty, only these are accepted. Default none.
    std::vector<std::string> allowedHosts;
    /// `Origin` values (`scheme://host[:port]`) accepted besides local ones (`http(s)://localhost`,
    /// `127.0.0.1`, `[::1]`, any port). A request without `Origin` is not a browser's and is let through.
    /// Default none.
    std::vector<std::string> allowedOrigins;
    /// The bearer token every request must carry (`Authorization: Bearer <token>`, compared in constant
    /// time); a request without it, or with another, gets 401 with `WWW-Authenticate: Bearer`. Unset (the
    /// default): no authentication, for programs that authenticate their callers otherwise (any local user
    /// can otherwise call the tools). `reagent mcp serve --http` always sets one unless `--no-auth`.
    std::optional<std::string> bearerToken;
    /// A larger request body is refused with 413 and the connection closed. Default 4 MiB.
    std::size_t maxBodyBytes = 4U << 20U;
    /// Sessions open at once; one more `initialize` gets 503. Invariant: >= 1. Default 1024.
    std::size_t maxSessions = 1024;
    /// A session with no request and no open stream for this long is closed; its id then gets 404.
    /// Default 30 minutes.
    std::chrono::milliseconds sessionIdleTimeout = std::chrono::minutes(30);
    /// A keep-alive connection that sends no request for this long is closed. Default 60 s.
    std::chrono::milliseconds connectionIdleTimeout = std::chrono::seconds(60);
    /// Events kept per stream for resumption with `Last-Event-ID`. Default 256.
    std::size_t replayEvents = 256;
    /// The `retry:` (milliseconds) sent on every stream: how long a client waits before resuming.
    /// Default 1000 ms.
    std::chrono::milliseconds retry = std::chrono::seconds(1);
    /// How POSTs with requests are answered. Default `event_stream`.
    HttpReplyMode replyMode = HttpReplyMode::event_stream;
    /// Called once listening, with the bound port (useful with `port` 0). Must not throw.
    std::function<void(std::uint16_t port)> onListening;
};

/// \brief Serves `server` over streamable HTTP (MCP 2025-11-25, also 2025-06-18 and 2025-03-26 clients)
/// until the caller cancels; then stops accepting, closes every session (calls in flight are cancelled,
/// streams ended) and returns.
///
/// Each `initialize` POSTed without `Mcp-Session-Id` opens a session (a random 128-bit id) on the shared
/// `server`. A refused request gets a JSON-RPC error body saying why: 400 (malformed JSON, missing session
/// id, unsupported `MCP-Protocol-Version`), 401 (no or another bearer token, when `bearerToken` is set),
/// 403 (a `Host` or `Origin` of another site), 404 (unknown or ended session, other paths), 405 (other
/// methods), 406 (`Accept` lacking `application/json` and `text/event-stream`), 409 (a second GET stream),
/// 413 (body too large), 415 (a POST whose `Content-Type` is not `application/json`), 503 (too many
/// sessions). The rules on `Host`, `Origin`, the token and `Content-Type` are `reagent::http`'s
/// (`server_rules.hpp`), the A2A server's too.
///
/// \par Errors
/// `connect_failed` when the address cannot be bound; cancellation is the normal end.
///
/// \par Thread safety
/// Runs on the awaiting coroutine's executor, which must be a strand or a single-threaded `io_context`
/// (the `Server` is single-strand); tool handlers run there too.
[[nodiscard]] Task<expected<void, McpError>> serveHttp(Server server, HttpServeOptions options);

}  // namespace reagent::mcp
