#pragma once
/// \file
/// \brief `reagent mcp serve`: the built-in tools of a workspace served over MCP (stdio or HTTP).

#include <boost/asio/io_context.hpp>
#include <string>

#include "commands.hpp"
#include "server_token.hpp"

namespace reagent::cli {

/// \brief What `reagent mcp serve` was asked to do.
struct ServeOptions {
    /// `--workspace` (required), `--read-only` and `--yes`, as `reagent run` takes them.
    RunOptions tools;
    /// `--http HOST:PORT`: streamable HTTP at `/mcp` (PORT 0 picks one); empty: stdio.
    std::string http;
    /// With `--http`: the bearer token callers must send (`--token-file`, `$REAGENT_MCP_SERVE_TOKEN`, else
    /// generated and printed), or `--no-auth`.
    ServerAuthOptions auth;
    /// `--agent`: also serve the agent `run` would build (provider from the environment, else the demo)
    /// as one tool, `agent` (input `{message}`, output its answer).
    bool agent = false;
    /// `--trace-file`: where the calls' spans are appended (OTLP/JSON lines); empty: none.
    std::string traceFile;
};

/// \brief The environment variable `reagent mcp serve --http` reads its bearer token from.
inline constexpr const char* kMcpServeTokenVariable = "REAGENT_MCP_SERVE_TOKEN";
/// The secret that seals MCP 2026-07-28 `requestState` (`mcp::ServerOptions::requestStateKey`): servers
/// behind one address share it; unset, each process makes its own.
inline constexpr const char* kMcpStateKeyVariable = "REAGENT_MCP_STATE_KEY";

/// \brief Serves `workspaceTools(options.tools)` over MCP until the client ends (stdio), or SIGINT or
/// SIGTERM shuts the server down gracefully. Logs go to stderr only. Calls that need approval are refused
/// unless `--yes` (there is no terminal to ask on).
[[nodiscard]] int mcpServeCommand(boost::asio::io_context& io, const ServeOptions& options);

}  // namespace reagent::cli
