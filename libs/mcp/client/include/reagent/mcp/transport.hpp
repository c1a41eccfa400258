#pragma once
/// \file
/// \brief `Transport`: a duplex channel of JSON-RPC frames to one MCP server, and the four transports.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

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
/// \brief A tool argument that the tool's schema marks with `x-mcp-header` (2026-07-28): its path in
/// `arguments` (through nested `properties`) and the header name after `Mcp-Param-`.
struct ParamHeader {
    std::vector<std::string> path;
    std::string name;
};

/// \brief The arguments mirrored in headers, by tool name.
using ParamHeaders = std::map<std::string, std::vector<ParamHeader>, std::less<>>;

class Transport {
  public:
    virtual ~Transport() = default;

    [[nodiscard]] virtual Task<expected<void, McpError>> open() = 0;
    [[nodiscard]] virtual Task<expected<void, McpError>> send(std::string frame) = 0;
    [[nodiscard]] virtual Task<expected<std::string, McpError>> receive() = 0;
    /// \brief Told the version agreed by `initialize` (HTTP sends it as `MCP-Protocol-Version`).
    virtual void setProtocolVersion(std::string /*version*/) {}
    /// \brief Told the arguments each tool mirrors in `Mcp-Param-*` headers (streamable HTTP, 2026-07-28),
    /// from the last `tools/list`.
    virtual void setParamHeaders(std::shared_ptr<const ParamHeaders> /*headers*/) {}
    /// \brief True when `send` may complete only with the reply to its frame (HTTP with JSON replies):
    /// the client then bounds the send by the request's deadline too.
    [[nodiscard]] virtual bool sendAwaitsReply() const noexcept { return false; }
    /// \brief Diagnostics the server left outside the protocol (stdio: the tail of its stderr), or empty.
    [[nodiscard]] virtual std::string diagnostics() const { return {}; }
    [[nodiscard]] virtual Task<void> close() = 0;
};

/// \brief Makes a fresh, unopened transport for a server's configuration.
using TransportMaker = std::function<std::unique_ptr<Transport>(const ServerConfig& config)>;

/// \brief The stdio transport for a stdio configuration; null for the remote transports (streamable
/// HTTP, SSE, WebSocket), which live in `reagent::mcp_remote` so that a program whose servers are all
/// stdio links neither HTTP nor TLS: `mcp::makeAnyTransport` (`<reagent/mcp/remote_transports.hpp>`)
/// makes every kind. The configuration is assumed valid (`validate`).
[[nodiscard]] std::unique_ptr<Transport> makeTransport(const ServerConfig& config);

/// \brief A subprocess in its own process group, newline-delimited JSON on its stdin and stdout, its
/// stderr kept in a bounded log.
[[nodiscard]] std::unique_ptr<Transport> makeStdioTransport(const ServerConfig& config);

}  // namespace reagent::mcp
