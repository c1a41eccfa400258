#pragma once
/// \file
/// \brief `a2a::Server`: serves one agent over A2A (card + JSON-RPC, 0.3 and 1.0 method names, SSE).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reagent/a2a/agent_card.hpp"
#include "reagent/a2a/agent_task.hpp"
#include "reagent/a2a/message.hpp"
#include "reagent/core/task.hpp"
#include "reagent/core/trace_context.hpp"

namespace reagent::telemetry {
class Telemetry;
}  // namespace reagent::telemetry

namespace reagent::a2a {

/// \brief Reports a progress line of a run (sent to streaming clients as a `working` status update).
using ProgressSink = std::function<void(std::string text)>;
/// \brief Runs the agent on a prompt (the text parts of the user's message): the answer, or an error
/// message (the task then fails). Must react to cancellation (the task was canceled or the server stops).
using RunFunction =
    std::function<Task<expected<std::string, std::string>>(std::string prompt, ProgressSink progress)>;

/// \brief What the server knows of the request that started a task, besides its prompt.
struct TaskContext {
    ProgressSink progress;
    /// The caller's span, from the request's W3C `traceparent` and `tracestate` headers (not valid when
    /// it sent none, or a malformed one): a run given it as `agent::RunOptions::traceParent` continues the
    /// caller's trace.
    SpanContext trace;
    /// The message that started the task, its `taskId` and `contextId` set (the task's).
    Message message;
    /// With a `TaskDirectory`: the run function calls it once the task is kept there, and a send that
    /// returns at once (non-blocking) answers then, so that the task can be found by the next request,
    /// whichever server takes it. Without one, unused.
    std::function<void()> accepted;
};
/// \brief `RunFunction` with the task's context.
using TracedRunFunction =
    std::function<Task<expected<std::string, std::string>>(std::string prompt, TaskContext context)>;

/// \brief Tasks kept outside a server's memory: shared by the servers behind a load balancer and kept across
/// restarts (`durable::A2aTasks` keeps them as durable runs). With one, `tasks/get` and `tasks/cancel`
/// read and write the task there, whichever server started it; the server that started a task still
/// streams it and answers its blocking send. The server's run function keeps each task in the directory
/// and says so (`TaskContext::accepted`).
class TaskDirectory {
  public:
    virtual ~TaskDirectory() = default;
    /// \brief The task as it stands; none when there is no task `id`; an error says why it could not be read.
    [[nodiscard]] virtual Task<expected<std::optional<AgentTask>, std::string>> find(std::string id) = 0;
    /// \brief Asks for the cancellation of the task `id` (not terminal: the server checked); the task as it
    /// stands after, which may still be ending; none when there is no task `id`.
    [[nodiscard]] virtual Task<expected<std::optional<AgentTask>, std::string>> cancel(std::string id) = 0;
};

/// \brief Settings of a server. Every field has a default.
struct ServerConfig {
    /// Address to listen on (default 127.0.0.1: only this machine). Use 0.0.0.0 behind a load balancer.
    std::string host = "127.0.0.1";
    /// Port; 0 (the default) picks a free one (`Server::port` tells which).
    std::uint16_t port = 0;
    /// Path of the JSON-RPC endpoint (default `/a2a/jsonrpc`).
    std::string rpcPath = "/a2a/jsonrpc";
    /// Base URL written in the card; empty (the default): `http://<host>:<port>`.
    std::string publicUrl;
    /// Largest request body (bytes; default 1 MiB). Larger: HTTP 413 with JSON-RPC error -32600.
    std::size_t maxBodyBytes = 1U << 20U;
    /// Tasks running at once (default 64). One more: JSON-RPC error -32004 naming the limit.
    std::size_t maxConcurrentTasks = 64;
    /// Finished tasks kept for `tasks/get` (default 1000; the oldest go first).
    std::size_t maxStoredTasks = 1000;
    /// Limit on reading one request, headers and body (default 30 s).
    std::chrono::milliseconds readTimeout{30'000};
    /// `Host` values (without the port) accepted besides `localhost`, `127.0.0.1` and `[::1]` when bound
    /// to a loopback address (DNS rebinding is refused: 403); when bound elsewhere and not empty, the only
    /// ones accepted. Behind a proxy on loopback, list the name of `publicUrl` here. Default none.
    std::vector<std::string> allowedHosts;
    /// `Origin` values (`scheme://host[:port]`) accepted besides local ones; a request from another origin
    /// (a web page) gets 403. A request without `Origin` is not a browser's and passes. Default none.
    std::vector<std::string> allowedOrigins;
    /// The bearer token every request (the card's included) must carry as `Authorization: Bearer <token>`,
    /// compared in constant time; without it, or with another, 401 with `WWW-Authenticate: Bearer`. Unset
    /// (the default): no authentication, for programs that authenticate their callers otherwise (any
    /// local user can otherwise start tasks). `reagent serve --a2a` always sets one unless `--no-auth`.
    std::optional<std::string> bearerToken;
    /// Where the server's spans and metrics go, in OpenTelemetry's HTTP server conventions: a
    /// `{method} {route}` span (kind server; `POST /a2a/jsonrpc`) per request, continuing the caller's
    /// `traceparent`, which the task's run is given (`TaskContext::trace`), and the request's
    /// `http.server.request.duration` (for a stream, until its headers). Null (the default): none.
    std::shared_ptr<telemetry::Telemetry> telemetry;
    /// Where `tasks/get` and `tasks/cancel` find tasks (`TaskDirectory`). Null (the default): the tasks this
    /// server started, in its memory.
    std::shared_ptr<TaskDirectory> directory;
};

/// \brief An A2A server for one agent.
///
/// Serves `GET /.well-known/agent-card.json` and `POST <rpcPath>` with `message/send` / `SendMessage`
/// (blocking: answers with the finished task; with 0.3 `blocking: false` or 1.0 `returnImmediately`, at
/// once with the task as it stands), `message/stream` / `SendStreamingMessage` (SSE: the task,
/// `working`, progress, the artifact, the terminal status), `tasks/get` / `GetTask` and
/// `tasks/cancel` / `CancelTask`. Responses use the version of the method name the client called. Each
/// task runs `RunFunction` in its own coroutine; canceling the task cancels it.
///
/// Before a request is read, the rules of reagent's HTTP servers (`reagent/http/server_rules.hpp`, shared
/// with `mcp::serveHttp`) apply: 400 without `Host`, 403 for a `Host` or `Origin` of another site, 401
/// without the bearer token (when `ServerConfig::bearerToken` is set), 415 for a POST whose
/// `Content-Type` is not `application/json`; each with a JSON-RPC error body (-32600).
///
/// \par Cancellation
/// Cancelling the coroutine awaiting `run` stops the server gracefully: it stops accepting, cancels the
/// running tasks (they end `canceled`), lets open streams send their last event, then returns.
///
/// \par Thread safety
/// Use from one strand (a single-threaded `io_context`); the run function runs there too.
class Server {
  public:
    /// \brief Binds the listening socket now (so the port is known) on `executor`.
    ///
    /// `card.interfaces` is filled in from the address (both versions, at `rpcPath`).
    ///
    /// \par Errors
    /// The reason the address could not be bound, as a sentence.
    [[nodiscard]] static expected<Server, std::string> bind(Executor executor, ServerConfig config,
                                                            AgentCard card, RunFunction run);
    /// \brief The same, with a run function that is given each task's context (its caller's trace).
    [[nodiscard]] static expected<Server, std::string> bind(Executor executor, ServerConfig config,
                                                            AgentCard card, TracedRunFunction run);

    /// \brief The bound port, and `http://host:port`.
    [[nodiscard]] std::uint16_t port() const noexcept;
    [[nodiscard]] std::string baseUrl() const;
    /// \brief The card served.
    [[nodiscard]] const AgentCard& card() const noexcept;
    /// \brief Tasks running now.
    [[nodiscard]] std::size_t runningTasks() const noexcept;

    /// \brief Serves until the awaiting coroutine is cancelled, then shuts down gracefully. Never throws.
    [[nodiscard]] Task<void> run() const;

    struct State;

  private:
    explicit Server(std::shared_ptr<State> state);
    std::shared_ptr<State> state_;
};

}  // namespace reagent::a2a
