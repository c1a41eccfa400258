#pragma once
/// \file
/// \brief JSON-RPC 2.0 messages as values, and the pure functions that read and write them (no I/O). MCP
/// and A2A both speak through these.

#include <boost/describe/enum.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "reagent/core/error.hpp"
#include "reagent/core/expected.hpp"

namespace reagent::jsonrpc {

enum class JsonRpcErrc {
    /// The text is not JSON, not valid UTF-8, or nested deeper than `kMaxJsonDepth`; the message says
    /// which. A peer answers it with `kParseError`.
    not_json,
    /// JSON that breaks a rule of JSON-RPC 2.0 (`jsonrpc` not "2.0", a method that is not a string, an id
    /// that is neither a string nor an integer, a response with both or neither of `result` and `error`, an
    /// empty batch, a batch where one message is expected); the message names the rule. A peer answers it
    /// with `kInvalidRequest`.
    invalid_message,
};
BOOST_DESCRIBE_ENUM(JsonRpcErrc, not_json, invalid_message)

/// \brief The code's name as shown in logs (`"not_json"`, ...).
[[nodiscard]] std::string_view toString(JsonRpcErrc code) noexcept;

using JsonRpcError = reagent::Error<JsonRpcErrc>;

/// JSON-RPC 2.0's reserved error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

/// \brief The reserved code a peer answers a frame it could not read with: `kParseError` for `not_json`,
/// `kInvalidRequest` for `invalid_message`.
[[nodiscard]] int replyCode(const JsonRpcError& error) noexcept;

/// \brief The `error` member of a response.
struct RpcError {
    /// A reserved code (`kParseError`, ...) or the application's own.
    int code = 0;
    std::string message;
    /// Optional `data`; null when absent.
    nlohmann::json data = nullptr;

    /// \brief `"<message> (JSON-RPC <code>)"`.
    [[nodiscard]] std::string describe() const;
};

/// \brief A request id: a string or a number (null is refused; MCP forbids it and nothing needs it);
/// integers are kept exact.
using RequestId = std::variant<std::int64_t, std::string>;

/// \brief `"7"` or `"\"abc\""`: the id as it appears on the wire, for messages and logs.
[[nodiscard]] std::string toString(const RequestId& id);

/// \brief The id as JSON (a number or a string), as it goes on the wire.
[[nodiscard]] nlohmann::json toJson(const RequestId& id);

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
    /// Empty only for an error about a request whose id could not be read (null on the wire).
    std::optional<RequestId> id;
    expected<nlohmann::json, RpcError> outcome;
};

using Message = std::variant<Request, Notification, Response>;

/// \brief Reads one frame: a single message, or a batch of them. A batch with one bad member is refused
/// whole.
[[nodiscard]] expected<std::vector<Message>, JsonRpcError> parseFrame(std::string_view frame);

/// \brief Reads exactly one message; a batch is `invalid_message`.
[[nodiscard]] expected<Message, JsonRpcError> parseMessage(std::string_view text);

/// \brief What a frame that does not parse still shows of its envelope, read without building a tree
/// (so a frame of any depth is read without recursion): a request with a bad method still deserves an
/// error response with its id, and a response too deep to read still ends the call waiting for it.
struct Envelope {
    /// The top-level `id` when it is a string or an integer.
    std::optional<RequestId> id;
    /// Whether the top level has a `method` member (a request or notification, not a response).
    bool hasMethod = false;
};
[[nodiscard]] Envelope peekEnvelope(std::string_view frame);

/// \brief The message as compact JSON on one line (newline-delimited transports add the newline).
[[nodiscard]] std::string encode(const Message& message);

/// \brief An error response; its id is null when the request's id could not be read (JSON-RPC 2.0
/// requires null then).
[[nodiscard]] std::string encodeError(const std::optional<RequestId>& id, const RpcError& error);

}  // namespace reagent::jsonrpc
