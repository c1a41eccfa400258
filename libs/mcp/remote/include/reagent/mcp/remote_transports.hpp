#pragma once
/// \file
/// \brief The remote transports (streamable HTTP, legacy SSE, WebSocket), in `reagent::mcp_remote`.
///
/// They live apart from `reagent::mcp` so that a program whose MCP servers are all stdio links neither
/// HTTP nor TLS. `makeAnyTransport` makes every kind; `connectAny` connects a client with it, and
/// `reagent::AgentBuilder::withMCP` passes it to the servers' tool sources.

#include <memory>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/mcp/client.hpp"
#include "reagent/mcp/mcp_error.hpp"
#include "reagent/mcp/server_config.hpp"
#include "reagent/mcp/transport.hpp"

namespace reagent::mcp {

/// \brief The transport `config.transport` names, not yet opened: stdio (`makeStdioTransport`) or one of
/// the remote transports below. The configuration is assumed valid (`validate`).
[[nodiscard]] std::unique_ptr<Transport> makeAnyTransport(const ServerConfig& config);

/// \brief `Client::connect` with `makeAnyTransport`: reaches a server over any transport. Errors as
/// `Client::connect`.
[[nodiscard]] Task<expected<std::shared_ptr<Client>, McpError>> connectAny(ServerConfig config,
                                                                           ClientOptions options);
/// \brief With default options (an overload: see `Client::connect`).
[[nodiscard]] Task<expected<std::shared_ptr<Client>, McpError>> connectAny(ServerConfig config);

/// \brief JSON-RPC frames as WebSocket text messages on `config.url` (`ws://`, or `wss://`: TLS with the
/// system's trusted certificates, SNI and host name verification), subprotocol `mcp`; `config.headers` go
/// on the upgrade request, `limits.maxMessageBytes` bounds each message.
///
/// \par Errors
/// `open`: `invalid_config` (not a `ws://` or `wss://` URL, a header that cannot be sent),
/// `connect_failed` (resolve, connect, the TLS handshake, the upgrade refused with its HTTP status, a server
/// that does not select `mcp`, `connectTimeout` passed). `receive`: `connection_closed` with the server's
/// close code and reason, `protocol_error` for a binary message or one over the size bound.
[[nodiscard]] std::unique_ptr<Transport> makeWebSocketTransport(const ServerConfig& config);

/// \brief Streamable HTTP (MCP 2025-03-26 and later): each frame is POSTed to `config.url`, replies come as
/// JSON or event streams, the server's own messages on a standalone GET stream; the session id and the
/// protocol version go on every request, streams cut short are resumed with `Last-Event-ID`, and `close`
/// sends DELETE.
///
/// \par Errors
/// `send`: `connect_failed` (server unreachable, or a refusal before the session exists, with the status
/// and the start of the body), `protocol_error` (a later refusal, an unexpected content type),
/// `session_expired` (404 on a request that carried the session id), `cancelled`. `receive` finishes with
/// `session_expired`, `protocol_error` (a message over `limits.maxMessageBytes`) or `connection_closed`
/// (the server went away, a reply that can no longer arrive, `close`). Header values never appear in
/// messages.
[[nodiscard]] std::unique_ptr<Transport> makeStreamableHttpTransport(const ServerConfig& config);

/// \brief The legacy HTTP+SSE transport (MCP 2024-11-05): `open` GETs `config.url` as an event stream
/// and waits (up to `connectTimeout`) for its `endpoint` event, a URL of the same origin; each frame is
/// POSTed there and the server's messages arrive as `message` events on the stream. `close` ends it.
///
/// \par Errors
/// `open`: `connect_failed` (unreachable, refused, no endpoint in time), `protocol_error` (an endpoint
/// of another origin). `send`: `protocol_error` or `session_expired` (404) with the status. `receive`
/// finishes with `connection_closed` when the stream ends, `protocol_error` for an oversized event.
[[nodiscard]] std::unique_ptr<Transport> makeSseTransport(const ServerConfig& config);

}  // namespace reagent::mcp
