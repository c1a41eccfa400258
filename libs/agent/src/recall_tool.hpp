#pragma once
// Private to libs/agent: the `recall` meta-tool over an agent's working and episodic memory.

#include "reagent/agent/agent.hpp"
#include "reagent/tools/tool.hpp"

namespace reagent::agent {

/// The `recall` tool of `state`'s agent. Its handler refers to `state`, which owns the registry that
/// holds the tool, so the reference never dangles.
[[nodiscard]] tools::Tool recallTool(Agent::State& state);

}  // namespace reagent::agent
