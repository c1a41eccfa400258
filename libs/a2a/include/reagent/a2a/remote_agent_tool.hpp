#pragma once
/// \file
/// \brief `remoteAgentTool`: a remote A2A agent offered to a local agent as a tool.

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reagent/a2a/client.hpp"
#include "reagent/tools/tool.hpp"

namespace reagent::a2a {

/// \brief A tool named `name` that sends its `message` argument to the A2A agent at `url` and returns the
/// agent's reply text. Pass it to `withTool` / `ToolsConfig::tools`.
///
/// The card is fetched lazily, by the tool's `init` hook (before the first call; a failure is retried on
/// the next call), so building never touches the network. Calls stream when the card says it can
/// (progress lines become the tool's progress reports) and send otherwise. The tool's timeout is
/// `options.timeout`.
///
/// \par Errors
/// `invalid_definition` for a bad tool name. At call time every failure is a `ToolError` (`init_failed`
/// for the card, `failed`, `timeout`, `cancelled`) whose message names the remote agent and its URL and
/// the cause (down, slow, malformed card, remote task failed or canceled); `details.a2a` holds the
/// `A2aErrc` name. The reply is untrusted text from another agent.
///
/// \par Cancellation
/// Cancelling the call (the run, or the tool's timeout) cancels the remote task (`tasks/cancel`).
[[nodiscard]] expected<tools::Tool, tools::ToolError> remoteAgentTool(std::string name, std::string url,
                                                                      ClientOptions options = {});

/// \brief A remote agent to offer as a tool (`reagent::AgentBuilder::withRemoteAgent`).
struct RemoteAgentSpec {
    /// The tool's name (a valid tool name).
    std::string name;
    /// The agent's base URL (its card is at `<url>/.well-known/agent-card.json`) or the card's URL.
    std::string url;
    /// Header fields sent with every request (`Authorization`, API keys). Default none.
    std::vector<std::pair<std::string, std::string>> headers;
    /// Deadline of one call (and the tool's timeout); unset: `ClientOptions::timeout` (120 s).
    std::optional<std::chrono::milliseconds> timeout;
};

/// \brief The tool of `spec`, as `remoteAgentTool(spec.name, spec.url, options)` with its headers and
/// timeout. Errors as above.
[[nodiscard]] expected<tools::Tool, tools::ToolError> remoteAgentTool(const RemoteAgentSpec& spec);

}  // namespace reagent::a2a
