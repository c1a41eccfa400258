#pragma once
/// \file
/// \brief `mcp::toolSource`: an MCP server's tools offered to an agent (`AgentBuilder::withToolSource`;
/// `reagent::AgentBuilder::withMCP` does it for you), and `samplingWith`, which lets the server's
/// `sampling/createMessage` requests reach a provider.

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/llm/provider.hpp"
#include "reagent/mcp/client.hpp"
#include "reagent/mcp/server_config.hpp"
#include "reagent/mcp/transport.hpp"
#include "reagent/tools/tool_error.hpp"
#include "reagent/tools/tool_source.hpp"

namespace reagent::mcp {

/// \brief How an agent's MCP session with one server behaves.
struct ToolSourceOptions {
    /// How the client introduces itself; its title is usually the agent's name.
    Implementation clientInfo{"reagent", "0.1.0", {}};
    /// Offered to the server (`roots/list`); unset: the `roots` capability is not declared.
    std::optional<std::vector<Root>> roots;
    /// Answers `sampling/createMessage` (see `samplingWith`); unset: sampling is not offered.
    RequestHandler sampling;
    /// Answers `elicitation/create` (questions the server asks the user); unset: not offered. An accepted
    /// answer is completed with the schema's defaults.
    RequestHandler elicitation;
    /// Makes the transport at connection and at each reconnection. Unset: `makeTransport` (stdio only);
    /// `mcp::makeAnyTransport` (`reagent::mcp_remote`) reaches the remote transports too.
    TransportMaker transport;
};

/// \brief The tools of the MCP server `server`, as a source named after it.
///
/// `open` connects and initialises the session and registers each of the server's tools as
/// `<server>/<tool>` (characters a tool name may not hold become `_`): the description, the input
/// schema, a risk level and side-effect flag from the tool's annotations (read-only: low; destructive:
/// high, side effect; otherwise medium), a timeout one second past `requestTimeout` (so the server is told
/// why the call was dropped). On `notifications/tools/list_changed` the tools are listed again and the
/// agent's registry follows. `close` ends the session (a stdio server is stopped and reaped, an HTTP one
/// ended with DELETE). The server's log lines and the session's problems are reported through the sink
/// (`ServerLogged`).
///
/// A call's failure is a `ToolError` (`timeout`, `cancelled`, `failed`) whose `details` hold
/// `{"mcp": <McpErrc name>, "server": <name>}`; a result the server marked `isError` is `failed` with
/// its text and `{"mcp": "tool_error", ...}`. Each also carries its `cause` (domain `mcp`, the same code,
/// the message, `{"server": name}`). A result's `structuredContent` goes to the call's artifacts.
///
/// \par Errors
/// `invalid_definition` when the configuration is invalid (`validate`'s message). `open`: `init_failed`
/// naming the server with the cause (`McpError::describe`: could not start, stderr's last lines,
/// version refused, timed out), `cancelled`.
[[nodiscard]] expected<std::shared_ptr<tools::ToolSource>, tools::ToolError> toolSource(
    ServerConfig server, ToolSourceOptions options = {});

/// \brief Whether a server may have the provider complete a prompt: called with the server's name and
/// the request's params.
using SamplingPolicy = std::function<bool(const std::string& server, const nlohmann::json& params)>;

/// \brief A `sampling/createMessage` handler for the server `server`: when `allow(server, params)` says
/// yes (a policy that throws says no), the messages (text blocks), system prompt, `maxTokens` and
/// `temperature` go to `provider`, and its reply is returned as the assistant's text with the model's
/// name and `stopReason` (`endTurn`, or `maxTokens`).
///
/// \par Errors
/// The RPC errors the server receives: `-1` declined by the policy; `-32602` params without a
/// `messages` array; `-32603` no provider, or the model call failed (with its message).
[[nodiscard]] RequestHandler samplingWith(std::shared_ptr<llm::Provider> provider, SamplingPolicy allow,
                                          std::string server);

}  // namespace reagent::mcp
