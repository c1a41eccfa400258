#pragma once
/// \file
/// \brief The sans-io JSON-RPC layer of A2A: method names per version, requests, responses, errors.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "reagent/a2a/agent_task.hpp"
#include "reagent/jsonrpc/message.hpp"

namespace reagent::a2a {

/// \brief The A2A operations reagent speaks.
enum class Method { send, stream, get, cancel };

/// \brief `message/send`, `message/stream`, `tasks/get`, `tasks/cancel` (0.3) or `SendMessage`,
/// `SendStreamingMessage`, `GetTask`, `CancelTask` (1.0).
[[nodiscard]] std::string_view methodName(Method method, ProtocolVersion version) noexcept;

/// \brief A method name of either version, recognised; nothing for any other name.
struct ParsedMethod {
    Method method;
    ProtocolVersion version;
};
[[nodiscard]] std::optional<ParsedMethod> parseMethodName(std::string_view name) noexcept;

/// \brief JSON-RPC's reserved error codes (reagent::jsonrpc's) and A2A's own.
namespace rpc {
using jsonrpc::kInternalError;
using jsonrpc::kInvalidParams;
using jsonrpc::kInvalidRequest;
using jsonrpc::kMethodNotFound;
using jsonrpc::kParseError;
/// A2A: no task with that id (or it was evicted from the store).
inline constexpr int kTaskNotFound = -32001;
/// A2A: the task is already in a terminal state.
inline constexpr int kTaskNotCancelable = -32002;
/// A2A: the operation is not supported (here also: the server's task limit is reached).
inline constexpr int kUnsupportedOperation = -32004;
}  // namespace rpc

/// \brief A JSON-RPC request, as text.
[[nodiscard]] std::string makeRequest(Method method, ProtocolVersion version, nlohmann::json params,
                                      std::int64_t id);
/// \brief Params of `send`/`stream`: the message (blocking; no history asked).
[[nodiscard]] nlohmann::json sendParams(const Message& message, ProtocolVersion version);
/// \brief Params of `get`/`cancel`: `{id}`.
[[nodiscard]] nlohmann::json taskIdParams(const std::string& taskId);

/// \brief A successful response, and an error response (with a null id when the request's could not be
/// read), as text.
[[nodiscard]] std::string makeResult(const jsonrpc::RequestId& id, nlohmann::json result);
[[nodiscard]] std::string makeError(const std::optional<jsonrpc::RequestId>& id, int code,
                                    std::string message);

/// \brief The `result` of a JSON-RPC response body (a whole body, or one SSE event's data).
///
/// \par Errors
/// `protocol_error` when the text is not a JSON-RPC 2.0 response; `remote_error` carrying the error
/// object's code and message when it is an error response (the code is in the message: `[-32001] ...`).
[[nodiscard]] expected<nlohmann::json, A2aError> parseResponse(std::string_view body);

/// \brief The JSON-RPC error code of an error from `parseResponse` (0 when there is none).
[[nodiscard]] int rpcCode(const A2aError& error) noexcept;

}  // namespace reagent::a2a
