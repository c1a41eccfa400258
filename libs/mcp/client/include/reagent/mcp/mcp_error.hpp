#pragma once
/// \file
/// \brief `McpError`: why an MCP exchange failed, and `RpcError`: the error object of JSON-RPC 2.0.

#include <boost/describe/enum.hpp>
#include <string>
#include <string_view>

#include "reagent/core/error.hpp"
#include "reagent/jsonrpc/message.hpp"

namespace reagent::mcp {

enum class McpErrc {
    /// A frame from the peer is not JSON, or not a JSON-RPC 2.0 message (the message says which rule it
    /// breaks: `jsonrpc` missing, an id that is neither a string nor an integer, ...).
    malformed_message,
    /// A frame is larger than the configured bound (`RpcLimits::maxMessageBytes`); it was not parsed.
    message_too_large,
    /// The peer answered with a JSON-RPC error object (see `RpcError`, kept in the call's result).
    remote_error,
    /// The server chose a protocol version this client does not speak.
    unsupported_version,
    /// A server's configuration is incomplete or contradictory (no command, a bad URL, an unknown
    /// transport); the message names the field.
    invalid_config,
    /// The transport could not be opened: the command could not be started, the URL could not be
    /// reached, the handshake (HTTP status, WebSocket upgrade, `initialize`) was refused.
    connect_failed,
    /// The transport ended: the server exited, closed its output or the connection, or the client was
    /// closed. Requests in flight fail with this code.
    connection_closed,
    /// The server sent something the transport cannot carry (a line or event over the size bound, an
    /// HTTP status or content type the protocol does not allow); the message says what.
    protocol_error,
    /// An HTTP session the server no longer knows (404 on a request that carried `Mcp-Session-Id`); the
    /// client initialises a new one.
    session_expired,
    /// A request got no response within its time limit; the server was sent `notifications/cancelled`.
    timeout,
    /// The caller cancelled the request; the server was sent `notifications/cancelled`.
    cancelled,
    /// The server requires authorization the client could not obtain: no OAuth settings (or no
    /// `OAuthSettings::authorize` hook where a person must approve), the authorization server refused or
    /// could not be discovered, the person denied, or the server still refused after
    /// `OAuthSettings::maxAuthorizationsPerRequest` authorizations. The message says which.
    unauthorized,
};
BOOST_DESCRIBE_ENUM(McpErrc, malformed_message, message_too_large, remote_error, unsupported_version,
                    invalid_config, connect_failed, connection_closed, protocol_error, session_expired,
                    timeout, cancelled, unauthorized)

/// \brief The code's name as shown in logs (`"malformed_message"`, ...).
[[nodiscard]] std::string_view toString(McpErrc code) noexcept;

/// \brief A failed MCP exchange: a code and a message a person can act on.
using McpError = reagent::Error<McpErrc>;

/// \brief The `error` member of a JSON-RPC 2.0 response, and the reserved codes: reagent::jsonrpc's.
using jsonrpc::kInternalError;
using jsonrpc::kInvalidParams;
using jsonrpc::kInvalidRequest;
using jsonrpc::kMethodNotFound;
using jsonrpc::kParseError;
using jsonrpc::RpcError;

}  // namespace reagent::mcp
