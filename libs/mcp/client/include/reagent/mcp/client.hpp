#pragma once
/// \file
/// \brief `Client`: one session with one MCP server, over any `Transport`.

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/core/trace_context.hpp"
#include "reagent/mcp/mcp_error.hpp"
#include "reagent/mcp/protocol.hpp"
#include "reagent/mcp/server_config.hpp"
#include "reagent/mcp/transport.hpp"

namespace reagent::telemetry {
class Telemetry;
}  // namespace reagent::telemetry

namespace reagent::mcp {

/// \brief Options of one call.
struct CallOptions {
    /// Overrides `ServerConfig::requestTimeout` for this call.
    std::optional<std::chrono::milliseconds> timeout;
    /// When set, the call carries a progress token and each progress notification reaches this
    /// function, on the client's executor. Must not throw (exceptions are swallowed).
    std::function<void(const Progress&)> onProgress;
    /// The span the call belongs to (the agent's `execute_tool` span, `ToolContext::trace`): sent in the
    /// request's `params._meta` as `traceparent` and `tracestate`, where the MCP semantic conventions put
    /// them, so that the server continues the trace. Not valid (the default): nothing is sent.
    SpanContext trace{};
};

/// \brief Answers a server's request (`sampling/createMessage`, `elicitation/create`): the result object,
/// or a JSON-RPC error for the server. Runs on the client's executor; cancelled when the server cancels
/// the request or the client closes.
using RequestHandler = std::function<Task<expected<nlohmann::json, RpcError>>(nlohmann::json params)>;

/// \brief What the client offers and how it reports what the server says on its own.
struct ClientOptions {
    Implementation clientInfo{"reagent", "0.1.0", {}};
    /// When set, the client declares the `roots` capability and answers `roots/list` with these.
    std::optional<std::vector<Root>> roots;
    /// When set, the client declares `sampling` and the server may ask it for model completions.
    RequestHandler sampling;
    /// When set, the client declares `elicitation` (form mode); without it, requests are refused.
    /// The result's `content` is completed with the requested schema's defaults when it accepts
    /// (see `fillElicitationDefaults`).
    RequestHandler elicitation;
    /// Log lines the server sends. Must not throw.
    std::function<void(const LogMessage&)> onLog;
    /// MCP 2026-07-28: with `onLog` set, every request asks for the server's log lines at or above this
    /// level (`_meta["io.modelcontextprotocol/logLevel"]`; a server of that revision sends none to a request
    /// without it). In 2025 the server's own level applies until `logging/setLevel`. Default `info`.
    std::string logLevel = "info";
    /// The server's tool list changed (`notifications/tools/list_changed`); call `listTools` again.
    std::function<void()> onToolsChanged;
    /// When set, each request is a client span in OpenTelemetry's MCP conventions (`{method} {target}`,
    /// child of `CallOptions::trace`), its context sent in `params._meta`, and records
    /// `mcp.client.operation.duration`. For a client used on its own (`reagent mcp call`); an agent's MCP
    /// tools need none, their `execute_tool` span being the client span.
    std::shared_ptr<telemetry::Telemetry> telemetry;
    /// Something the server sent that could not be used (a malformed frame, an unknown response id),
    /// and reconnections; for logs. Must not throw.
    std::function<void(const McpError&)> onProblem;
};

/// \brief Makes a fresh, unopened transport; called at connection and at each reconnection.
using TransportFactory = std::function<std::unique_ptr<Transport>()>;

/// \brief One session with one server: the `initialize` handshake, requests in both directions,
/// notifications, and reconnection when the transport drops.
///
/// \par Reliability
/// Every request has a time limit (`ServerConfig::requestTimeout`, or the call's own); on expiry or
/// cancellation the server is sent `notifications/cancelled` and the call returns `timeout` or
/// `cancelled`. When the transport drops (the server exits, the connection closes, the HTTP session
/// expires) the requests in flight fail with `connection_closed` and the client reconnects with
/// backoff, at most `ServerConfig::maxReconnects` times in a row, re-initialising the session; a
/// `tools/call` that failed because of the drop is sent once more after the reconnection only when the
/// server marked the tool read-only or idempotent.
///
/// \par Thread safety and lifetime
/// Use from one strand: the client runs its reader on the executor of the coroutine that connected it.
/// `close()` ends the session; the last `shared_ptr` going away without it closes the transport
/// without waiting (a subprocess is killed and reaped in the background).
class Client : public std::enable_shared_from_this<Client> {
  public:
    /// \brief Opens the transport `config` names and initialises the session.
    ///
    /// \par Errors
    /// `invalid_config`, `connect_failed` (naming the server and, for stdio, the tail of its stderr),
    /// `unsupported_version`, `timeout` (`connectTimeout`), `cancelled`.
    [[nodiscard]] static Task<expected<std::shared_ptr<Client>, McpError>> connect(ServerConfig config,
                                                                                   ClientOptions options);
    /// \brief With default options. (An overload, not a default argument: g++ 12 destroys a defaulted
    /// aggregate argument of a coroutine twice.)
    [[nodiscard]] static Task<expected<std::shared_ptr<Client>, McpError>> connect(ServerConfig config);
    /// \brief As above, with transports made by `factory` (a custom transport, or tests).
    [[nodiscard]] static Task<expected<std::shared_ptr<Client>, McpError>> connect(ServerConfig config,
                                                                                   ClientOptions options,
                                                                                   TransportFactory factory);

    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;
    ~Client();

    [[nodiscard]] const ServerConfig& config() const noexcept;
    [[nodiscard]] const ServerInfo& server() const noexcept;

    /// \brief Every tool, following `nextCursor` through all pages.
    [[nodiscard]] Task<expected<std::vector<ToolInfo>, McpError>> listTools();

    /// \brief Calls a tool. A tool's own failure (`isError: true`) is a successful call whose result says
    /// so; an error here means the call itself failed (`remote_error` for a JSON-RPC error,
    /// `timeout`, `cancelled`, `connection_closed`, ...).
    [[nodiscard]] Task<expected<CallResult, McpError>> callTool(std::string name, nlohmann::json arguments,
                                                                CallOptions options);
    /// \brief With default options (an overload for the reason given at `connect`).
    [[nodiscard]] Task<expected<CallResult, McpError>> callTool(std::string name, nlohmann::json arguments);

    /// \brief `ping`.
    [[nodiscard]] Task<expected<void, McpError>> ping();

    /// \brief Any request; the result object, or `remote_error` with the server's message and code.
    [[nodiscard]] Task<expected<nlohmann::json, McpError>> request(
        std::string method, nlohmann::json params = nullptr,
        std::optional<std::chrono::milliseconds> timeout = std::nullopt);

    /// \brief Any notification.
    [[nodiscard]] Task<expected<void, McpError>> notify(std::string method, nlohmann::json params = nullptr);

    /// \brief Replaces the roots and tells the server (`notifications/roots/list_changed`).
    [[nodiscard]] Task<expected<void, McpError>> setRoots(std::vector<Root> roots);

    /// \brief True while the transport is up (false while reconnecting and after giving up or closing).
    [[nodiscard]] bool connected() const noexcept;

    /// \brief What the server left outside the protocol (stdio: the tail of its stderr).
    [[nodiscard]] std::string diagnostics() const;

    /// \brief Ends the session: fails requests in flight with `connection_closed`, stops the reader and
    /// the handlers of server requests, closes the transport. Idempotent; never fails.
    [[nodiscard]] Task<void> close();

    struct State;

  private:
    explicit Client(std::shared_ptr<State> state);
    std::shared_ptr<State> state_;
};

}  // namespace reagent::mcp
