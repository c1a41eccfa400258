#pragma once
/// \file
/// \brief `a2a::Client`: calls a remote A2A agent over JSON-RPC (0.3 or 1.0, as its card says).

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "reagent/a2a/agent_card.hpp"
#include "reagent/a2a/json_rpc.hpp"
#include "reagent/core/task.hpp"
#include "reagent/core/trace_context.hpp"
#include "reagent/http/http_headers.hpp"

namespace reagent::a2a {

/// \brief Settings of a client. Every field has a default.
struct ClientOptions {
    /// Sent with every request, the card's included: `Authorization: Bearer ...`, API keys (default none).
    http::HttpHeaders headers;
    /// Deadline of one call: the card fetch, a whole `send`, a whole `stream` (milliseconds; default 120 s).
    std::chrono::milliseconds timeout{120'000};
    /// Limit on opening the connection (milliseconds; default 5 s).
    std::chrono::milliseconds connectTimeout{5'000};
    /// Deadline of the `tasks/cancel` sent for a call cancelled or timed out mid-task (default 5 s).
    std::chrono::milliseconds cancelTimeout{5'000};
    /// Force a protocol version; unset (the default): the card's preferred interface decides (1.0 first).
    std::optional<ProtocolVersion> version;
};

/// \brief A client of one remote A2A agent.
///
/// \par Errors
/// Every failure is an `A2aError` value (see `A2aErrc`); nothing is thrown.
///
/// \par Cancellation and timeouts
/// Cancelling the coroutine awaiting a call (or `ClientOptions::timeout` elapsing) closes its connection
/// and returns `cancelled` (or `timeout`). For `stream`, once the remote task's id is known, a
/// `tasks/cancel` for it is sent in the background (bounded by `cancelTimeout`), so the remote agent
/// stops working. A blocking `send` learns the id only with the answer: nothing is cancelled remotely.
///
/// \par Thread safety and lifetimes
/// A cheap handle (copies share the card and the connection pool); calls may run concurrently on one
/// strand. A call keeps what it needs alive.
class Client {
  public:
    /// \brief Fetches the card at `baseUrl` + `/.well-known/agent-card.json` (or `baseUrl` itself when it
    /// already ends in `.json`), validates it and returns a client for its preferred interface.
    ///
    /// \par Errors
    /// `malformed_card` (HTTP error status, not JSON, no usable JSON-RPC interface), `unreachable`,
    /// `timeout`, `cancelled`.
    [[nodiscard]] static Task<expected<Client, A2aError>> connect(std::string baseUrl,
                                                                  ClientOptions options = {});

    /// \brief A client for an already known card (no fetch). Precondition: `card.interfaces` not empty.
    explicit Client(AgentCard card, ClientOptions options = {});

    [[nodiscard]] const AgentCard& card() const noexcept;
    /// \brief The version and endpoint in use.
    [[nodiscard]] ProtocolVersion version() const noexcept;
    [[nodiscard]] const std::string& endpoint() const noexcept;

    /// \brief `message/send` (blocking): the finished task, or the agent's direct message.
    ///
    /// With a valid `trace` (a tool call's `ToolContext::trace`), the request carries it as W3C
    /// `traceparent` and `tracestate` headers, and a traced server continues the trace.
    [[nodiscard]] Task<expected<SendResult, A2aError>> send(Message message, SpanContext trace = {}) const;

    /// \brief Called with each streamed event as it arrives (text inside is untrusted).
    using EventHandler = std::function<void(const StreamEvent&)>;
    /// \brief `message/stream`: delivers each SSE event to `onEvent` as it arrives and returns the task
    /// as the events left it (a direct message becomes a completed task whose status carries it).
    ///
    /// Errors as `send`, plus `protocol_error` when the stream ends before a terminal state.
    [[nodiscard]] Task<expected<AgentTask, A2aError>> stream(Message message, EventHandler onEvent,
                                                             SpanContext trace = {}) const;

    /// \brief `tasks/get` and `tasks/cancel`. A remote `TaskNotFound` or `TaskNotCancelable` comes back as
    /// `remote_error` (`rpcCode` gives the code).
    [[nodiscard]] Task<expected<AgentTask, A2aError>> getTask(std::string taskId) const;
    [[nodiscard]] Task<expected<AgentTask, A2aError>> cancelTask(std::string taskId) const;

    struct State;

  private:
    explicit Client(std::shared_ptr<State> state);
    std::shared_ptr<State> state_;
};

/// \brief The answer of a send result: a task's text (an error for a failed or canceled task), or a
/// message's text.
///
/// \par Errors
/// `task_failed` (failed, rejected), `task_canceled`, `protocol_error` (input-required or
/// auth-required: reagent does not continue such tasks).
[[nodiscard]] expected<std::string, A2aError> answerText(const SendResult& result);

}  // namespace reagent::a2a
