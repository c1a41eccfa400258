#pragma once
/// \file
/// \brief `McpError`: why an MCP exchange failed, and `RpcError`: the error object of JSON-RPC 2.0.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "reagent/core/error.hpp"

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
};

/// \brief The code's name as shown in logs (`"malformed_message"`, ...).
[[nodiscard]] std::string_view toString(McpErrc code) noexcept;

/// \brief A failed MCP exchange: a code and a message a person can act on.
using McpError = reagent::Error<McpErrc>;

/// \brief The `error` member of a JSON-RPC 2.0 response.
struct RpcError {
    /// JSON-RPC's reserved codes (`kParseError`, ...) or the application's own.
    int code = 0;
    std::string message;
    /// Optional `data`; null when absent.
    nlohmann::json data = nullptr;

    /// \brief `"<message> (JSON-RPC <code>)"`.
    [[nodiscard]] std::string describe() const;
};

/// JSON-RPC 2.0's reserved error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

}  // namespace reagent::mcp
