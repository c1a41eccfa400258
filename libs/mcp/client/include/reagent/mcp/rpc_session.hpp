#pragma once
/// \file
/// \brief `RpcSession`: the sans-io core of a JSON-RPC 2.0 peer, used by both ends of MCP.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_set>
#include <variant>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/mcp/json_rpc.hpp"
#include "reagent/mcp/mcp_error.hpp"

namespace reagent::mcp {

/// \brief Bounds on what a peer may send.
struct RpcLimits {
    /// The largest frame read; a larger one is refused unparsed (`message_too_large`). Default 16 MiB.
    std::size_t maxMessageBytes = 16U << 20U;
};

/// \brief Correlates requests with responses in both directions, with no I/O.
///
/// A transport driver hands every frame it reads to `receive` and writes every frame the session makes
/// (`request`, `notify`, `respond`, and the replies `receive` returns). Ids of outgoing requests are
/// integers counting from 1. A response is delivered once, to the request it answers; a response to an
/// id that is not pending (never sent, already answered, or given up by `forget`) is reported, not
/// delivered.
///
/// \par Thread safety
/// A value with no synchronisation: use it from one strand.
class RpcSession {
  public:
    explicit RpcSession(RpcLimits limits = {}) : limits_(limits) {}

    /// \brief A request to send: its id (to match the response) and its frame.
    struct Outgoing {
        RequestId id;
        std::string frame;
    };

    /// \brief Makes a request and marks its id pending.
    [[nodiscard]] Outgoing request(std::string method, nlohmann::json params = nullptr);
    /// \brief Makes a notification.
    [[nodiscard]] std::string notify(std::string method, nlohmann::json params = nullptr) const;
    /// \brief Makes the response to a request the peer sent.
    [[nodiscard]] std::string respond(const RequestId& id, expected<nlohmann::json, RpcError> outcome) const;

    /// \brief The response to one of our requests.
    struct Completed {
        RequestId id;
        expected<nlohmann::json, RpcError> outcome;
    };
    /// \brief Something the peer sent that the driver could not use (a malformed frame, a response to an
    /// id that is not pending); worth a log line, not an end of the session.
    struct Problem {
        McpError error;
    };
    using Event = std::variant<Completed, Request, Notification, Problem>;

    /// \brief What one frame brought: events for the driver, and frames to send back at once (the
    /// JSON-RPC error responses owed to a malformed request).
    struct Received {
        std::vector<Event> events;
        std::vector<std::string> replies;
    };

    /// \brief Reads one frame from the peer.
    [[nodiscard]] Received receive(std::string_view frame);

    /// \brief Stops waiting for `id` (a call cancelled or timed out): a late response is then a `Problem`.
    /// False when `id` was not pending.
    bool forget(const RequestId& id);

    /// \brief Requests sent and not yet answered or forgotten.
    [[nodiscard]] std::size_t pending() const noexcept { return pending_.size(); }

  private:
    RpcLimits limits_;
    std::int64_t nextId_ = 1;
    std::unordered_set<std::int64_t> pending_;
};

}  // namespace reagent::mcp
