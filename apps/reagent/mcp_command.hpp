#pragma once
/// \file
/// \brief `reagent mcp tools` and `reagent mcp call`, and reading `--mcp-config` files.

#include <boost/asio/io_context.hpp>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/mcp/server_config.hpp"

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
};

/// \brief The servers of an `mcpServers` JSON file, or an error naming the file and what is wrong.
[[nodiscard]] expected<std::vector<mcp::ServerConfig>, std::string> readMcpConfig(const std::string& path);

/// \brief Lists the tools of the configured servers, or calls one tool; Ctrl-C cancels.
[[nodiscard]] int mcpCommand(boost::asio::io_context& io, const McpOptions& options);

}  // namespace reagent::cli
