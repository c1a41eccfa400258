#pragma once
/// \file
/// \brief `reagent mcp tools` and `reagent mcp call`, and reading `--mcp-config` files.

#include <boost/asio/io_context.hpp>
#include <memory>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/mcp/server_config.hpp"
#include "reagent/telemetry/telemetry.hpp"

namespace reagent::cli {

/// \brief What `reagent mcp` was asked to do.
struct McpOptions {
    /// "tools" or "call".
    std::string action;
    /// `--mcp-config`: the `mcpServers` JSON file. Required.
    std::string configPath;
    /// call: `server/tool`.
    std::string tool;
    /// call: the arguments as a JSON object; empty means `{}`.
    std::string arguments;
    /// tools: only this server; empty: every server.
    std::string server;
    bool json = false;
    /// `--trace-file`: each request's client span as OTLP/JSON lines (beside the `OTEL_*` variables).
    std::string traceFile;
    /// Opened by `mcpCommand` from the environment and `traceFile`; null when neither asks for it.
    std::shared_ptr<telemetry::Telemetry> telemetry;
};

/// \brief OAuth for a person at this terminal: the authorization link printed on stderr and the browser's
/// redirect caught on the loopback (`mcp::loopbackAuthorizer`), tokens kept in a file of mode 0600 under
/// `$REAGENT_OAUTH_DIR`, `$XDG_CONFIG_HOME/reagent/oauth` or `~/.config/reagent/oauth`.
void useTerminalAuthorization(mcp::ServerConfig& server);

/// \brief The servers of an `mcpServers` JSON file, or an error naming the file and what is wrong; those
/// with OAuth get `useTerminalAuthorization`.
[[nodiscard]] expected<std::vector<mcp::ServerConfig>, std::string> readMcpConfig(const std::string& path);

/// \brief Lists the tools of the configured servers, or calls one tool; Ctrl-C cancels. Each request is a
/// client span when the `OTEL_*` variables or `--trace-file` ask for telemetry.
[[nodiscard]] int mcpCommand(boost::asio::io_context& io, const McpOptions& options);

}  // namespace reagent::cli
