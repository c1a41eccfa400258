#pragma once
/// \file
/// \brief JSON-RPC 2.0 messages as values, and the pure functions that read and write them (no I/O).

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/mcp/mcp_error.hpp"

namespace reagent::mcp {

/// \brief A request id: JSON-RPC allows a string or a number (MCP forbids null); integers are kept exact.
using RequestId = std::variant<std::int64_t, std::string>;

/// \brief `"7"` or `"\"abc\""`: the id as it appears on the wire, for messages and logs.
[[nodiscard]] std::string toString(const RequestId& id);

/// \brief A call that expects a response.
struct Request {
    RequestId id;
    std::string method;
    /// An object or array; null when the message has no `params`.
    nlohmann::json params = nullptr;
};

/// \brief A one-way message.
struct Notification {
    std::string method;
    nlohmann::json params = nullptr;
};

/// \brief The answer to a request: its `result`, or its `error`.
struct Response {
    RequestId id;
    expected<nlohmann::json, RpcError> outcome;
};

using Message = std::variant<Request, Notification, Response>;

/// \brief Reads one frame: a single message, or (MCP 2025-03-26) a batch of them.
///
/// \par Errors
/// `malformed_message` when the frame is not JSON or a member breaks JSON-RPC 2.0 (`jsonrpc` not "2.0", a
/// method that is not a string, an id that is neither a string nor an integer, a response with both or
/// neither of `result` and `error`, an empty batch); the message names the rule. A batch with one bad
/// member is refused whole.
[[nodiscard]] expected<std::vector<Message>, McpError> parseFrame(std::string_view frame);

/// \brief The message as compact JSON on one line (newline-delimited transports add the newline).
[[nodiscard]] std::string encode(const Message& message);

}  // namespace reagent::mcp
