#pragma once
/// \file
/// \brief `Transport`: a duplex channel of JSON-RPC frames to one MCP server, and the four transports.

#include <memory>
#include <string>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/mcp/mcp_error.hpp"
#include "reagent/mcp/server_config.hpp"

namespace reagent::mcp {

/// \brief Carries whole JSON-RPC frames (one message or batch as JSON text, no trailing newline) between
/// the client and one server. It knows nothing of the protocol's meaning: `Client` drives it.
///
/// \par Contract
/// - `open` is awaited once, before anything else.
/// - `send` may run concurrently with `receive` and with other `send`s; frames go out whole, in the
///   order of the calls. It completes when the frame was handed over (written to the pipe, accepted by
///   the HTTP server with a 2xx); a frame the server refused is an error of that `send`.
/// - `receive` is awaited by one reader at a time; it returns the next frame from the server, from
///   whichever stream it came (an HTTP POST's reply, the standalone GET stream, ...). An error means the
///   transport is finished (`connection_closed`, `session_expired`, `protocol_error`).
/// - Every operation reacts to Asio per-operation cancellation and then returns `McpErrc::cancelled`.
/// - `close` ends the session (closes stdin and reaps the process, sends HTTP `DELETE`, closes the
///   WebSocket), is idempotent, never fails and is bounded in time; a `receive` in progress returns
///   `connection_closed`.
/// - No exception escapes; every failure is a value.
///
/// \par Thread safety
/// Use from one strand.
class Transport {
  public:
    virtual ~Transport() = default;

    [[nodiscard]] virtual Task<expected<void, McpError>> open() = 0;
    [[nodiscard]] virtual Task<expected<void, McpError>> send(std::string frame) = 0;
    [[nodiscard]] virtual Task<expected<std::string, McpError>> receive() = 0;
    /// \brief Told the version agreed by `initialize` (HTTP sends it as `MCP-Protocol-Version`).
    virtual void setProtocolVersion(std::string /*version*/) {}
    /// \brief Diagnostics the server left outside the protocol (stdio: the tail of its stderr), or empty.
    [[nodiscard]] virtual std::string diagnostics() const { return {}; }
    [[nodiscard]] virtual Task<void> close() = 0;
};

/// \brief The transport `config.transport` names, not yet opened. The configuration is assumed valid
/// (`validate`).
[[nodiscard]] std::unique_ptr<Transport> makeTransport(const ServerConfig& config);

/// \brief A subprocess in its own process group, newline-delimited JSON on its stdin and stdout, its
/// stderr kept in a bounded log.
[[nodiscard]] std::unique_ptr<Transport> makeStdioTransport(const ServerConfig& config);

/// \brief Streamable HTTP (MCP 2025-03-26 and later): each frame is POSTed to `config.url`, replies come as
/// JSON or event streams, the server's own messages on a standalone GET stream; the session id and the
/// protocol version go on every request, streams cut short are resumed with `Last-Event-ID`, and `close`
/// sends DELETE.
///
/// \par Errors
/// `send`: `connect_failed` (server unreachable, or a refusal before the session exists, with the status
/// and the start of the body), `protocol_error` (a later refusal, an unexpected content type),
/// `session_expired` (404 on a request that carried the session id), `cancelled`. `receive` finishes with
/// `session_expired`, `protocol_error` (a message over `limits.maxMessageBytes`) or `connection_closed`
/// (the server went away, a reply that can no longer arrive, `close`). Header values never appear in
/// messages.
[[nodiscard]] std::unique_ptr<Transport> makeStreamableHttpTransport(const ServerConfig& config);

/// \brief The legacy HTTP+SSE transport (MCP 2024-11-05): `open` GETs `config.url` as an event stream
/// and waits (up to `connectTimeout`) for its `endpoint` event, a URL of the same origin; each frame is
/// POSTed there and the server's messages arrive as `message` events on the stream. `close` ends it.
///
/// \par Errors
/// `open`: `connect_failed` (unreachable, refused, no endpoint in time), `protocol_error` (an endpoint
/// of another origin). `send`: `protocol_error` or `session_expired` (404) with the status. `receive`
/// finishes with `connection_closed` when the stream ends, `protocol_error` for an oversized event.
[[nodiscard]] std::unique_ptr<Transport> makeSseTransport(const ServerConfig& config);

}  // namespace reagent::mcp
