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

/// \brief JSON-RPC frames as WebSocket text messages on `config.url` (`ws://`, or `wss://`: TLS with the
/// system's trusted certificates, SNI and host name verification), subprotocol `mcp`; `config.headers` go
/// on the upgrade request, `limits.maxMessageBytes` bounds each message.
///
/// \par Errors
/// `open`: `invalid_config` (not a `ws://` or `wss://` URL, a header that cannot be sent),
/// `connect_failed` (resolve, connect, the TLS handshake, the upgrade refused with its HTTP status, a server
/// that does not select `mcp`, `connectTimeout` passed). `receive`: `connection_closed` with the server's
/// close code and reason, `protocol_error` for a binary message or one over the size bound.
[[nodiscard]] std::unique_ptr<Transport> makeWebSocketTransport(const ServerConfig& config);

}  // namespace reagent::mcp
