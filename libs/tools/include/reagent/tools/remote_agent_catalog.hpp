#pragma once
/// \file
/// \brief The hook behind `AgentBuilder::withRemoteAgent`: the agent library names remote agents; the A2A
/// library (`reagent::a2a`, which owns the HTTP client) makes their tools.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/tools/tool.hpp"
#include "reagent/tools/tool_error.hpp"

namespace reagent::tools {

/// \brief A remote agent to offer as a tool.
struct RemoteAgentSpec {
    /// The tool's name (a valid tool name).
    std::string name;
    /// The agent's base URL (its card is at `<url>/.well-known/agent-card.json`) or the card's URL.
    std::string url;
    /// Header fields sent with every request (`Authorization`, API keys). Default none.
    std::vector<std::pair<std::string, std::string>> headers;
    /// Deadline of one call (and the tool's timeout); unset: the maker's default (A2A: 120 s).
    std::optional<std::chrono::milliseconds> timeout;
};

/// \brief Makes the tool of a remote agent.
using RemoteAgentToolMaker = std::function<expected<Tool, ToolError>(const RemoteAgentSpec& spec)>;

/// \brief Installs the maker (replacing any); `a2a::enableRemoteAgents()` calls it. Returns true.
bool setRemoteAgentToolMaker(RemoteAgentToolMaker maker);

/// \brief The tool of `spec`, made by the installed maker.
///
/// \par Errors
/// The maker's; without a maker, `invalid_definition` saying to enable remote agents (include
/// `<reagent/reagent.hpp>` or call `a2a::enableRemoteAgents()`, and link `reagent::a2a`).
[[nodiscard]] expected<Tool, ToolError> makeRemoteAgentTool(const RemoteAgentSpec& spec);

}  // namespace reagent::tools
