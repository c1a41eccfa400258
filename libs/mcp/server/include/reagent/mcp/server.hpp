#pragma once
/// \file
/// \brief `Server`: serves a tool registry over MCP, one `ServerSession` per connected client.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reagent/core/task.hpp"
#include "reagent/mcp/json_rpc.hpp"
#include "reagent/mcp/protocol.hpp"
#include "reagent/mcp/rpc_session.hpp"
#include "reagent/mcp/server_catalog.hpp"
#include "reagent/tools/tool_executor.hpp"
#include "reagent/tools/tool_registry.hpp"

namespace reagent::telemetry {
class Telemetry;
}  // namespace reagent::telemetry

namespace reagent::mcp {

/// \brief The severity of a `notifications/message` (RFC 5424's levels, as MCP names them).
enum class LogLevel { debug, info, notice, warning, error, critical, alert, emergency };

/// \brief `"debug"`, ..., `"emergency"`.
[[nodiscard]] std::string_view toString(LogLevel level) noexcept;
/// \brief The level named `name`, or nothing.
[[nodiscard]] std::optional<LogLevel> parseLogLevel(std::string_view name) noexcept;

/// \brief What a server says about itself and the bounds it keeps.
struct ServerOptions {
    /// `serverInfo` of `initialize`. Default `reagent` 0.1.0.
    Implementation info{"reagent", "0.1.0", {}};
    /// `instructions` of `initialize` (how to use the tools, for the client's model); empty: none.
    std::string instructions;
    /// Tools per `tools/list` page; further pages follow `nextCursor`. Invariant: >= 1. Default 100.
    std::size_t pageSize = 100;
    /// Requests a session runs at once (`tools/call`); one more is refused with JSON-RPC error
    /// `kServerBusy`. Invariant: >= 1. Default 64.
    std::size_t maxInFlight = 64;
    /// A tool's text output longer than this (bytes) is cut at a UTF-8 boundary, with a line saying how
    /// much was left out. Default 1 MiB.
    std::size_t maxResultBytes = 1U << 20U;
    /// The level a session logs at until the client sends `logging/setLevel`. Default `info`.
    LogLevel logLevel = LogLevel::info;
    /// Frame size bound (a transport refuses larger frames before they reach the session).
    RpcLimits limits{};
    /// How calls run (the parallel cap applies to batches only; each `tools/call` is one call).
    tools::ExecutionPolicy execution{};
    /// How long a request to the client (`sampling/createMessage`, `elicitation/create`, ...) made by a
    /// tool handler may wait for its answer (a person may be answering). The tool's own timeout still
    /// applies. Invariant: > 0. Default 5 min.
    std::chrono::milliseconds clientRequestTimeout{300'000};
    /// 2026-07-28: how long a client may reuse a list, `resources/read` or `server/discover` result
    /// (`ttlMs`). Default 0: ask again each time.
    std::chrono::milliseconds cacheTtl{0};
    /// 2026-07-28: `cacheScope` of those results: false `private` (reused only by the same caller), true
    /// `public` (shared by callers and intermediaries; only when no result depends on who asks).
    bool cachePublic = false;
    /// 2026-07-28: how many times one request may come back with answers to the server's questions
    /// (`input_required`) before it is refused; bounds the work a client can make a call repeat.
    /// Default 16.
    std::size_t maxInputRounds = 16;
    /// 2026-07-28: `subscriptions/listen` requests held open at once, across clients; one more is refused
    /// with -32603. Default 1024.
    std::size_t maxListens = 1024;
    /// 2026-07-28: how long a `requestState` the server hands out stays valid. Default 10 min.
    std::chrono::seconds requestStateTtl{600};
    /// 2026-07-28: the secret that seals `requestState` (HMAC-SHA256). Empty (the default): 32 random bytes
    /// per `Server`. Servers behind one load balancer must share one (at least 32 random bytes), so that a
    /// client's next round may reach any of them. Secret: never logged.
    std::string requestStateKey;
    /// Where the server's spans and metrics go, in OpenTelemetry's MCP conventions: a `{method} {target}`
    /// span (kind server; `tools/call lookup`, `tools/list`) per request, continuing the trace the client
    /// sent in `params._meta` (`traceparent`, `tracestate`), and its `mcp.server.operation.duration`. A
    /// tool call's span is handed to the tool as `ToolContext::trace` (an agent served as a tool nests its
    /// run under it). Null: none.
    std::shared_ptr<telemetry::Telemetry> telemetry{};
};

/// \brief JSON-RPC error code of a request refused because `ServerOptions::maxInFlight` requests run.
inline constexpr int kServerBusy = -32000;

/// \brief A frame for the client: one JSON-RPC message as text, no trailing newline.
struct OutgoingFrame {
    std::string frame;
    /// The client request it belongs to (its response, or a progress notification of it); empty for
    /// messages of the session (log lines, `list_changed`). Streamable HTTP routes by it.
    std::optional<RequestId> relatedRequest;
    /// True for the response that ends `relatedRequest`.
    bool isResponse = false;
    /// 2026-07-28: the JSON-RPC error code of a request refused before it was served (its envelope, version,
    /// headers, an undeclared capability, an unknown or removed method); 0 otherwise. Streamable HTTP
    /// answers a refusal with 404 (method not found) or 400 instead of 200.
    int refusal = 0;
};

/// \brief The MCP headers of a Streamable HTTP request, which a 2026-07-28 request's body must agree with
/// (values decoded from `=?base64?...?=` and trimmed by the transport). Absent: not sent.
struct RequestHeaders {
    std::optional<std::string> protocolVersion;  ///< `MCP-Protocol-Version`
    std::optional<std::string> method;           ///< `Mcp-Method`
    std::optional<std::string> name;             ///< `Mcp-Name`
    /// `Mcp-Param-<name>`: the name as sent (compared without regard to case), and the value.
    std::vector<std::pair<std::string, std::string>> params;
};

/// \brief Where a session's frames go (the transport's writer). Called on the session's executor; must
/// not throw and must not call back into the session.
using FrameSink = std::function<void(OutgoingFrame frame)>;

class ServerSession;

/// \brief An MCP server over a shared tool registry: `initialize`, `ping`, `tools/list` (paginated),
/// `tools/call` (through `tools::ToolExecutor`: validation, approval, `init`, timeouts), progress,
/// cancellation, logging and `notifications/tools/list_changed`; resources, resource templates, prompts
/// and completions when the owner adds them; requests from tool handlers to the client (sampling,
/// elicitation: see `tool_channel.hpp`).
///
/// `initialize` declares `tools` and `logging` always, `resources` (with `subscribe` and `listChanged`)
/// when a resource or template was added, `prompts` when a prompt was, `completions` when a completion
/// provider was.
///
/// \par The 2026-07-28 revision
/// A request whose `params._meta` names its protocol version is served without a session, beside 2025's
/// `initialize`: `server/discover`, the revision's error table (`OutgoingFrame::refusal`), `resultType`
/// and `serverInfo` on every result, `ttlMs`/`cacheScope` on cacheable ones, capabilities and log level
/// per request, and a handler's questions (`tool_channel.hpp`) as `input_required` rounds whose
/// `requestState` is sealed with `ServerOptions::requestStateKey`. See docs/mcp.md.
///
/// \par Batches
/// A JSON-RPC batch (an array) is served when the session agreed on 2025-03-26, the only version that
/// allowed them: every request in it is answered in one array, sent when the last of them ends. In any
/// other version (they were removed in 2025-06-18), or before `initialize`, the batch is refused whole
/// with one `-32600` error whose id is null.
///
/// A transport driver (`serveStdio`, ...) opens one `ServerSession` per client with `connect` and hands
/// it every frame it reads; the session answers through the driver's `FrameSink`.
///
/// \par Errors
/// A tool's failure (invalid arguments, timeout, refusal, an exception, its own error) is a result with
/// `isError: true` whose text says what went wrong (`"<code>: <message>"`). JSON-RPC errors are kept for
/// the protocol: `-32700` unreadable JSON, `-32600` an invalid request (or one before `initialize`),
/// `-32601` an unknown method, `-32602` bad params, an unknown tool or prompt, a prompt's missing required
/// argument, `kResourceNotFound` (-32002) a URI no resource or template serves, `kServerBusy` over the
/// in-flight bound.
///
/// \par Thread safety and lifetime
/// A handle: copies share one server. Use it and its sessions from one strand (the registry too). The
/// registry is shared, and may change while serving: every initialised session is told.
class Server {
  public:
    /// \brief Serves `registry`'s tools. `registry` must not be null.
    explicit Server(std::shared_ptr<tools::ToolRegistry> registry, ServerOptions options = {});

    /// \brief Decides calls of tools that require approval; without one they are refused, as in an agent.
    void setApprovalHandler(tools::ApprovalHandler handler);
    /// \brief Observes every call served (each session's calls), as an agent's event sink does.
    void setEventSink(tools::ToolEventSink sink);

    /// \brief Opens a session for one client on `executor`; frames for it go to `sink`.
    [[nodiscard]] std::shared_ptr<ServerSession> connect(Executor executor, FrameSink sink) const;

    /// \brief Sends `notifications/message` to every initialised session whose level admits `level`.
    /// Tool handlers may call it too (capture a copy of the server).
    void log(LogLevel level, nlohmann::json data, std::string logger = {}) const;

    /// \brief Serves the resource `info.uri` (replacing one of the same URI); initialised sessions get
    /// `notifications/resources/list_changed`.
    void addResource(ResourceInfo info, ResourceReader reader);
    /// \brief Serves every URI that `info.uriTemplate` matches (see `matchUriTemplate`); a direct resource
    /// of the same URI wins. \par Errors `McpErrc::invalid_config` for a template that is not level 1.
    [[nodiscard]] expected<void, McpError> addResourceTemplate(ResourceTemplateInfo info,
                                                               TemplateReader reader);
    /// \brief Removes a resource; false when there was none. Sessions are told.
    bool removeResource(const std::string& uri);
    /// \brief Serves the prompt `info.name` (replacing one of the same name); sessions are told.
    void addPrompt(PromptInfo info, PromptGetter getter);
    /// \brief As `addPrompt`, for a getter that asks the client questions (`AskingPromptGetter`).
    void addPrompt(PromptInfo info, AskingPromptGetter getter);
    /// \brief Removes a prompt; false when there was none. Sessions are told.
    bool removePrompt(const std::string& name);
    /// \brief Suggests values for `argument` of `ref` in `completion/complete`. Arguments with no provider
    /// get no suggestions.
    void addCompletion(CompletionRef ref, std::string argument, CompletionProvider provider);
    /// \brief Sends `notifications/resources/updated` to every session subscribed to `uri`.
    void resourceUpdated(const std::string& uri) const;

    [[nodiscard]] const ServerOptions& options() const noexcept;
    [[nodiscard]] const std::shared_ptr<tools::ToolRegistry>& registry() const noexcept;

    struct State;

  private:
    std::shared_ptr<State> state_;
};

/// \brief One client's session: frames in (`receive`), frames out (the sink), calls in flight.
///
/// \par Cancellation
/// `notifications/cancelled` cancels the named call's handler; no response is sent for it. `close`
/// cancels every call in flight and waits for them.
class ServerSession {
  public:
    ServerSession(const ServerSession&) = delete;
    ServerSession& operator=(const ServerSession&) = delete;
    ~ServerSession();

    /// \brief Handles one frame from the client. Answers what it can at once; starts a `tools/call`
    /// on the session's executor. Never throws.
    void receive(std::string_view frame);
    /// \brief As `receive(frame)`, for a frame that came with HTTP headers: a 2026-07-28 request is
    /// checked against them (`kHeaderMismatch` when they disagree), and a request without the envelope
    /// but with a 2026 `MCP-Protocol-Version` is refused rather than served as a 2025 one.
    void receive(std::string_view frame, const RequestHeaders& headers);

    /// \brief Sends `notifications/message` when the session's level admits `level`.
    void log(LogLevel level, nlohmann::json data, std::string logger = {});

    /// \brief Cancels every call in flight, waits for them to end, and sends nothing more. Idempotent.
    [[nodiscard]] Task<void> close();
    /// \brief Closes at once, as `close` would, when no call runs: true. False, and nothing changes, while
    /// one runs (then `close`). Spares a server that closes a session per request (a 2026-07-28 POST) a
    /// coroutine per close.
    [[nodiscard]] bool closeIfIdle();

    /// \brief True once `initialize` was answered.
    [[nodiscard]] bool initialized() const noexcept;
    /// \brief The version agreed by `initialize`, or empty.
    [[nodiscard]] const std::string& protocolVersion() const noexcept;
    /// \brief What the client said about itself in `initialize`.
    [[nodiscard]] const nlohmann::json& clientInfo() const noexcept;
    /// \brief Requests running now.
    [[nodiscard]] std::size_t inFlight() const noexcept;

    struct State;
    explicit ServerSession(std::shared_ptr<State> state);

  private:
    std::shared_ptr<State> state_;
};

/// \brief The version a server answers to a client's `protocolVersion`: the same when reagent speaks it,
/// else the newest (`kLatestProtocolVersion`).
[[nodiscard]] std::string_view negotiateVersion(std::string_view offered) noexcept;

}  // namespace reagent::mcp
