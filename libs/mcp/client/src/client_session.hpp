#pragma once
// Private to libs/mcp: the rules of a client's session with one server, with no I/O. The coroutine
// driver (client.cpp) owns the transport, the timers and the waiting coroutines; it asks this core what to
// send, hands it every frame it reads and every clock tick, and does what the answers say. So the
// handshake, the request table, deadlines, cancellation, the routing of what the server sends, and the
// reconnection and retry rules are tested step by step without a transport (client_session_test.cpp).

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/mcp/json_rpc.hpp"
#include "reagent/mcp/mcp_error.hpp"
#include "reagent/mcp/protocol.hpp"
#include "reagent/mcp/rpc_session.hpp"
#include "reagent/mcp/server_config.hpp"

namespace reagent::mcp::detail {

using Clock = std::chrono::steady_clock;

/// Where the session stands. `failed`: gave up reconnecting; `closed`: by the user.
enum class Phase { connecting, connected, reconnecting, failed, closed };

/// The era spoken on the current transport: the `initialize` handshake, or 2026-07-28 (no handshake; every
/// request carries the envelope in `params._meta`).
enum class Era { legacy, modern };

/// What the answer to a `server/discover` probe means.
struct ProbeVerdict {
    enum class Kind {
        /// The server speaks 2026-07-28: `server` is what it told (no handshake follows).
        modern,
        /// A server of the handshake era: run `initialize` (on a new transport when `restart`).
        legacy,
        /// The server named another modern version it serves: probe once more with `version`.
        retry,
        /// Neither: `error` says why.
        failed,
    };
    Kind kind = Kind::legacy;
    ServerInfo server;
    std::string version;
    McpError error;
    bool restart = false;
};

/// What the client offers the server (its capabilities follow from these).
struct Offer {
    Implementation clientInfo;
    bool roots = false;
    bool sampling = false;
    bool elicitation = false;
    /// 2026-07-28: the log level every request asks for; empty: none (no log lines are wanted).
    std::string logLevel;
};

/// A page of `tools/list`: the tools with a name, and the cursor of the next page (empty: the last).
struct ToolPage {
    std::vector<ToolInfo> tools;
    std::string nextCursor;
    /// Entries skipped (a tool without a name), to report.
    std::vector<McpError> problems;
    /// 2026-07-28: how long the page may be reused (`ttlMs`; 0 when absent or not a whole number >= 0).
    std::chrono::milliseconds ttl{0};
};

/// `{"roots":[{uri, name?}]}`: the answer to `roots/list`.
[[nodiscard]] nlohmann::json rootsResult(const std::vector<Root>& roots);

class ClientSession {
  public:
    ClientSession(ServerConfig config, Offer offer);

    [[nodiscard]] const ServerConfig& config() const noexcept { return config_; }
    [[nodiscard]] Phase phase() const noexcept { return phase_; }
    void setPhase(Phase phase) noexcept { phase_ = phase; }
    /// Roots are offered from now on (`Client::setRoots`): the next `initialize` declares them, and
    /// `roots/list` is answered.
    void offerRoots() {
        offer_.roots = true;
        envelope_ = nullptr;  // the capabilities changed
    }
    /// "MCP server 'name'": how messages name the server.
    [[nodiscard]] std::string label() const { return "MCP server '" + config_.name + "'"; }

    // --- The handshake, once per transport ---------------------------------------------------------

    /// A new transport: its generation (reports of older ones are ignored from now on).
    std::uint64_t newTransport() noexcept { return ++generation_; }
    /// The current transport stops counting (its reader must not report a drop: it failed to initialise).
    void retireTransport() noexcept { ++generation_; }
    [[nodiscard]] std::uint64_t generation() const noexcept { return generation_; }
    /// The `initialize` params: the latest version, the capabilities the offer implies, the client's info.
    [[nodiscard]] nlohmann::json initializeParams() const;
    /// The server's `initialize` result checked: a version this client speaks (else `unsupported_version`),
    /// the server's info and capabilities.
    [[nodiscard]] expected<ServerInfo, McpError> acceptInitialize(const nlohmann::json& result) const;
    /// Sent once the result was accepted.
    [[nodiscard]] std::string initializedNotification() const;
    /// The handshake failed with `error` (of the `initialize` exchange): the error to report.
    [[nodiscard]] McpError handshakeFailed(McpError error) const;
    /// The session is up on the new transport.
    void connected(ServerInfo info, Clock::time_point now);

    // --- The era (2026-07-28 or the handshake), once per transport ---------------------------------

    /// True when this transport starts with a `server/discover` probe (`ProtocolEra` automatic or
    /// modern, a stdio or streamable-http server, and no earlier probe found a handshake-era server).
    [[nodiscard]] bool probes() const noexcept;
    /// Requests carry the 2026 envelope at `version` from now on (the probe is the first of them).
    void speakModern(std::string version);
    [[nodiscard]] Era era() const noexcept { return era_; }
    /// The answer to the probe (a result or the server's JSON-RPC error) judged; `second` when it answers a
    /// probe already corrected once.
    [[nodiscard]] ProbeVerdict judgeProbe(const expected<nlohmann::json, RpcError>& answer, bool second);
    /// The probe got no answer (`error`: a timeout, a closed connection, a refusal without a JSON-RPC error).
    [[nodiscard]] ProbeVerdict judgeProbeFailure(const McpError& error);
    /// What a 2026-07-28 result is: the answer, or the server's questions before it answers.
    enum class ResultKind { complete, inputRequired };
    /// A 2026-07-28 result checked: `resultType` absent or `complete` is the answer; `input_required` (on
    /// the methods that may ask) holds questions and at least one of `inputRequests` and `requestState`.
    [[nodiscard]] expected<ResultKind, McpError> checkResult(std::string_view method,
                                                             const nlohmann::json& result) const;
    [[nodiscard]] const ServerInfo& server() const noexcept { return server_; }

    // --- The request table -------------------------------------------------------------------------

    /// A request to send.
    struct Outgoing {
        std::int64_t id = 0;
        std::string frame;
    };
    /// Registers a request with no deadline yet; with `progress`, its params carry a progress token and
    /// the server's progress notifications for it are routed to it. In the 2026 era its params carry the
    /// envelope.
    [[nodiscard]] Outgoing startRequest(std::string_view method, nlohmann::json params, bool progress);
    /// The request was handed to the transport: from now on it times out at `deadline`.
    void armDeadline(std::int64_t id, Clock::time_point deadline);
    /// The requests whose deadline is at or before `now` (they stay registered until `abandon`).
    [[nodiscard]] std::vector<std::int64_t> expired(Clock::time_point now) const;
    /// The earliest deadline later than `now` of a waiting request; `time_point::max()` when none.
    [[nodiscard]] Clock::time_point nextDeadline(Clock::time_point now) const;
    /// Stops waiting for `id` (timed out, cancelled): a late response is then a problem. Returns the
    /// `notifications/cancelled` frame to send, so that the server stops working on it.
    [[nodiscard]] std::string abandon(std::int64_t id, bool cancelled);
    /// Forgets `id` without telling the server (its send failed).
    void forget(std::int64_t id);
    /// Requests waiting for their response.
    [[nodiscard]] std::size_t waiting() const noexcept { return pending_.size(); }

    [[nodiscard]] McpError cancelledError(std::string_view method) const;
    [[nodiscard]] McpError timeoutError(std::string_view method) const;
    [[nodiscard]] static McpError remoteError(std::string_view method, const RpcError& error);

    // --- What the server sends ---------------------------------------------------------------------

    struct Completion {
        std::int64_t id = 0;
        expected<nlohmann::json, RpcError> outcome;
    };
    struct ProgressFor {
        std::int64_t id = 0;
        Progress progress;
    };
    /// What one frame brought, in the order the driver should act: frames to send back now (answers to
    /// `ping`, `roots/list`, requests no handler serves, malformed requests), requests for the driver's
    /// handlers (sampling, elicitation), the inbound requests the server cancelled (by `toString(id)`),
    /// responses to deliver, progress, log lines, a changed tool list, and problems to report.
    struct Effects {
        std::vector<std::string> replies;
        std::vector<Request> serve;
        std::vector<std::string> cancelInbound;
        std::vector<Completion> completions;
        std::vector<ProgressFor> progress;
        std::vector<LogMessage> logs;
        bool toolsChanged = false;
        std::vector<McpError> problems;
    };
    /// Reads one frame of the current transport. `roots` answers `roots/list` when the offer has them.
    [[nodiscard]] Effects receive(std::string_view frame, const std::optional<std::vector<Root>>& roots);
    /// The response frame to a request a handler served.
    [[nodiscard]] std::string respond(const RequestId& id, expected<nlohmann::json, RpcError> outcome) const;
    /// A notification frame.
    [[nodiscard]] std::string notify(std::string_view method, nlohmann::json params = nullptr) const;

    // --- Drops and reconnection --------------------------------------------------------------------

    /// The transport of `generation` dropped with `cause`.
    struct Drop {
        /// The requests that were waiting; each fails with `error` (`connection_closed`).
        std::vector<std::int64_t> failed;
        McpError error;
        /// True when the driver should start reconnecting (the session was up).
        bool reconnect = false;
    };
    /// Nothing when `generation` is not the current one (a stale report) or nothing is going on.
    [[nodiscard]] std::optional<Drop> dropped(std::uint64_t generation, const McpError& cause);
    /// Fails every waiting request (the client closes): their ids.
    [[nodiscard]] std::vector<std::int64_t> failAll();

    /// Starts the reconnection after a drop at `now`: a connection that stayed up long enough resets the
    /// count of attempts in a row.
    void beginReconnect(Clock::time_point now);
    /// The next attempt: wait `delay` (doubling from `reconnectDelay`), and report `notice`.
    struct Attempt {
        std::chrono::milliseconds delay{0};
        McpError notice;
    };
    /// The next attempt after `last` failed, or, past `maxReconnects`, the error the client now gives
    /// (phase `failed`).
    [[nodiscard]] std::variant<Attempt, McpError> nextAttempt(const McpError& last);
    /// Why the client gave up (phase `failed`).
    [[nodiscard]] const std::optional<McpError>& lastError() const noexcept { return lastError_; }

    // --- Results ------------------------------------------------------------------------------------

    /// One `tools/list` result read; remembers each tool's annotations for `mayResend`.
    [[nodiscard]] expected<ToolPage, McpError> readToolPage(const nlohmann::json& result);
    /// True when a `tools/call` of `tool` that failed because the transport dropped may be sent again:
    /// the server marked it read-only or idempotent.
    [[nodiscard]] bool mayResend(const std::string& tool) const;
    /// A `tools/call` result as the client returns it.
    [[nodiscard]] static CallResult readCallResult(nlohmann::json result);

  private:
    struct Pending {
        std::string progressToken;
        Clock::time_point deadline = Clock::time_point::max();
    };

    [[nodiscard]] nlohmann::json capabilities() const;
    [[nodiscard]] nlohmann::json clientInfo() const;
    [[nodiscard]] ProbeVerdict handshake(std::string why, bool restart = false);

    ServerConfig config_;
    Offer offer_;
    Era era_ = Era::legacy;
    /// The 2026 version requests carry; empty in the handshake era.
    std::string modernVersion_;
    // The 2026 envelope's fixed part (version, capabilities, client info), made once per change and copied
    // into each request's `_meta`.
    nlohmann::json envelope_ = nullptr;
    /// A probe found a server of the handshake era: later transports skip the probe (the era is a
    /// property of the server).
    bool knownLegacy_ = false;
    RpcSession rpc_;
    Phase phase_ = Phase::connecting;
    std::uint64_t generation_ = 0;
    ServerInfo server_;
    std::unordered_map<std::int64_t, Pending> pending_;
    std::unordered_map<std::string, std::int64_t> progressTokens_;
    std::uint64_t nextProgressToken_ = 1;
    std::unordered_map<std::string, ToolAnnotations> annotations_;
    std::optional<McpError> lastError_;
    int attemptsInARow_ = 0;
    std::chrono::milliseconds nextDelay_{0};
    Clock::time_point connectedAt_{};
};

}  // namespace reagent::mcp::detail
