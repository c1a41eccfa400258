#pragma once
// The streamable HTTP server's decisions about one request, with no I/O: which headers are acceptable
// (Accept, MCP-Protocol-Version; Host, Origin, Authorization and Content-Type are reagent::http's
// server_rules, shared with the A2A server), what a POSTed body holds, and the error bodies of refusals.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/mcp/json_rpc.hpp"

namespace reagent::mcp::detail {

/// A request refused: the HTTP status and the JSON-RPC error it carries.
struct Refusal {
    unsigned status = 400;
    int code = -32000;
    std::string message;
};

/// `{"jsonrpc":"2.0","id":null,"error":{"code":…,"message":…}}`, or with the id of the request refused.
[[nodiscard]] std::string errorBody(int code, std::string_view message,
                                    const std::optional<RequestId>& id = std::nullopt);

/// What an `Accept` header admits (a missing header admits everything).
struct Accepts {
    bool json = false;
    bool eventStream = false;
};
[[nodiscard]] Accepts parseAccept(std::optional<std::string_view> accept) noexcept;

/// 400 when the `MCP-Protocol-Version` header is present and not a version reagent speaks.
[[nodiscard]] std::optional<Refusal> checkProtocolVersion(std::optional<std::string_view> header);

/// A member of a batch: its text, and the request it is (empty when it is none).
struct BatchMember {
    std::string text;
    std::vector<RequestId> requests;
};

/// What a POSTed body holds: the requests it owes responses to, whether it is an `initialize`, and for a
/// batch its members one by one.
struct PostBody {
    std::vector<RequestId> requests;
    bool initialize = false;
    bool batch = false;
    /// 2026-07-28: a message whose `params._meta` names its protocol version (served without a session).
    bool claimsModern = false;
    std::vector<BatchMember> members;
};
/// 400 with -32700 when `body` is not JSON, -32600 when it is neither an object nor a non-empty array.
[[nodiscard]] expected<PostBody, Refusal> inspectPost(std::string_view body);

/// A new session id: 128 random bits from the system's generator, as 32 hex digits.
[[nodiscard]] std::string newSessionId();

}  // namespace reagent::mcp::detail
