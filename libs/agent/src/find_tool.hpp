#pragma once
// Private to libs/agent: the `find` meta-tool, searching the agent's tools, its working and episodic
// memory, and its find sources (documents).

#include "reagent/agent/agent.hpp"
#include "reagent/tools/tool.hpp"

namespace reagent::agent {

/// `find` over `state`'s tools, memory and `config.findSources`. The structured result lists each found
/// tool under "tools" (`[{"name": ...}]`): the run offers those from its next request on.
/// `onDemand`: tool search is on, and the description tells the model to find the tools it does not see.
[[nodiscard]] tools::Tool findTool(Agent::State& state, bool onDemand);

}  // namespace reagent::agent
