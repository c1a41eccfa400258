#pragma once
// Private to libs/agent: the meta-tools that read or end the run they are called in.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reagent/tools/tool.hpp"
#include "reagent/tools/tool_call.hpp"

namespace reagent::memory {
class WorkingMemory;
}

namespace reagent::agent {

class ReactLoop;

/// A meta-tool without its handler: `name`, `description`, `inputSchema`, the category "meta", and the
/// fixed `action` text shown while it runs.
[[nodiscard]] tools::Tool metaTool(std::string name, std::string description, nlohmann::json inputSchema,
                                   std::string action);

/// `task-complete`: ends the run with a summary of what was done (the loop recognises it).
[[nodiscard]] tools::Tool taskCompleteTool();

/// `context-status`: reports the run's state from `ToolContext::runStatus`.
[[nodiscard]] tools::Tool contextStatusTool();

/// What `context-status` reports from, during a batch: the run's loop, the agent's working memory, and
/// the names of the batch's calls. The run keeps it; a tool must not keep its `runStatus` past its call.
struct RunStatusSource {
    const ReactLoop* loop = nullptr;
    const memory::WorkingMemory* memory = nullptr;
    std::vector<std::string> batch;
};

/// Gives every call of a batch the run's status (`ToolCallRequest::runStatus`), computed when a tool asks
/// from `source`, whose batch names become the calls'.
void attachRunStatus(std::vector<tools::ToolCallRequest>& calls, RunStatusSource& source);

}  // namespace reagent::agent
