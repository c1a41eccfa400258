#pragma once
/// \file
/// \brief `serveStdio`: an MCP server on a pair of file descriptors (this process's stdin and stdout).

#include <cstddef>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/mcp/mcp_error.hpp"
#include "reagent/mcp/server.hpp"

namespace reagent::mcp {

/// \brief Where `serveStdio` reads and writes, and its line bound.
struct StdioServeOptions {
    /// Read: newline-delimited JSON-RPC frames from the client. Default 0 (stdin). Duplicated, never
    /// closed; it must be a pipe, socket or terminal (a regular file cannot be waited on).
    int inputFd = 0;
    /// Written: only whole frames, each ended by a newline. Default 1 (stdout). Duplicated, never closed.
    int outputFd = 1;
    /// A longer line is dropped unparsed, answered with a JSON-RPC `-32600` error (id null), and serving
    /// goes on. Default `RpcLimits::maxMessageBytes` of the server's options.
    std::size_t maxLineBytes = 0;
};

/// \brief Serves one client on `options`' descriptors until the input ends or the caller cancels; then
/// cancels the calls in flight (no responses for them), writes what is queued, and returns.
///
/// Nothing but frames is written to the output: logs of the server's owner belong on stderr.
///
/// \par Errors
/// `connection_closed` when the descriptors cannot be used (bad descriptor, a regular file) or the
/// output breaks (the client went away); the end of the input and cancellation are a normal end.
[[nodiscard]] Task<expected<void, McpError>> serveStdio(Server server, StdioServeOptions options);
/// \brief On this process's stdin and stdout. (An overload, not a default argument: g++ 12 destroys a
/// defaulted aggregate argument of a coroutine twice.)
[[nodiscard]] Task<expected<void, McpError>> serveStdio(Server server);

}  // namespace reagent::mcp
