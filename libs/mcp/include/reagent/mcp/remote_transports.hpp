#pragma once
/// \file
/// \brief The remote transports (streamable HTTP, legacy SSE, WebSocket), in `reagent::mcp_remote`.
///
/// They live apart from `reagent::mcp` so that a program whose MCP servers are all stdio links neither
/// HTTP nor TLS. `enableRemoteTransports()` plugs them into `makeTransport` (and so into
/// `Client::connect(config)` and `AgentBuilder::withMCP`); `<reagent/reagent.hpp>` calls it.

#include <memory>

#include "reagent/mcp/server_config.hpp"
#include "reagent/mcp/transport.hpp"

namespace reagent::mcp {

/// \brief Lets `makeTransport` make the transports of this header. Idempotent; returns true.
bool enableRemoteTransports() noexcept;

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

}  // namespace reagent::mcp
