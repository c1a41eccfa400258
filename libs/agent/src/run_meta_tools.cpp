// context-status and task-complete: the meta-tools with live state of the run.

#include "run_meta_tools.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "reagent/agent/react_loop.hpp"
#include "reagent/memory/working_memory.hpp"

namespace reagent::agent {

namespace {

using nlohmann::json;

Task<tools::ToolResult> recordCompletion() {
    co_return std::string("task completion recorded");
}

Task<tools::ToolResult> reportStatus(tools::ToolContext context) {
    if (!context.runStatus) {
        co_return fail(tools::ToolError{tools::ToolErrc::failed,
                                        "context-status reports on an agent run, and this call did not come "
                                        "from one"});
    }
    co_return context.runStatus().dump(2);
}

// The status of the run at the time of the call.
// The run's compactions, for the model: when, why, and how much they freed.
json compactionsOf(const ContextUse& context) {
    json out = json::array();
    for (const Compaction& compaction : context.compactions) {
        out.push_back({{"reason", toString(compaction.reason)},
                       {"beforeModelCall", compaction.iteration + 1},
                       {"strategies", compaction.strategies},
                       {"tokensBefore", compaction.tokensBefore},
                       {"tokensAfter", compaction.tokensAfter}});
    }
    return out;
}

json runStatus(const RunStatusSource& source) {
    const ReactLoop& loop = *source.loop;
    const memory::WorkingMemory& memory = *source.memory;
    std::map<std::string, int> used;
    int failed = 0;
    for (const tools::ToolCallRecord& record : loop.toolCalls()) {
        ++used[record.name];
        failed += record.succeeded() ? 0 : 1;
    }
    json keys = json::array();
    for (const auto& entry : memory.list()) {
        keys.push_back(entry.key);
    }
    const llm::Usage& usage = loop.usage();
    return json{{"iteration", loop.iterations()},
                {"maxIterations", loop.maxIterations()},
                {"iterationsLeft", loop.maxIterations() - loop.iterations()},
                {"toolsUsed", used},
                {"toolCallsMade", loop.toolCalls().size()},
                {"toolCallsFailed", failed},
                {"pending", source.batch},
                {"storedKeys", std::move(keys)},
                {"tokens",
                 {{"input", usage.inputTokens},
                  {"output", usage.outputTokens},
                  {"cacheRead", usage.cacheReadTokens},
                  {"reasoning", usage.reasoningTokens},
                  {"total", usage.total()}}},
                {"context",
                 {{"window", loop.context().window ? json(*loop.context().window) : json(nullptr)},
                  {"promptTokens", loop.context().promptTokens},
                  {"compactions", compactionsOf(loop.context())}}},
                {"messages", loop.messages().size()}};
}

}  // namespace

tools::Tool metaTool(std::string name, std::string description, json inputSchema, std::string action) {
    tools::Tool tool;
    tool.definition.name = std::move(name);
    tool.definition.description = std::move(description);
    tool.definition.inputSchema = std::move(inputSchema);
    tool.definition.category = "meta";
    tool.definition.action = [action = std::move(action)](const json&) { return action; };
    return tool;
}

tools::Tool taskCompleteTool() {
    tools::Tool tool = metaTool(
        kTaskCompleteTool,
        "Declare the task complete: call this once, with a summary of what was done, when the work itself "
        "is the deliverable (files changed, commands run) and there is no separate answer to give. Nothing "
        "runs after it.",
        json{{"type", "object"},
             {"properties",
              {{"summary",
                {{"type", "string"}, {"description", "What was done, for the user, in a few sentences."}}}}},
             {"required", {"summary"}}},
        "Completing the task");
    tool.handler = [](json, tools::ToolContext) { return recordCompletion(); };
    return tool;
}

tools::Tool contextStatusTool() {
    tools::Tool tool = metaTool(
        kContextStatusTool,
        "Report the state of this run: iterations used and left, the tools called so far, the calls pending "
        "in this step, the keys stored in working memory (read them with recall), the tokens used, and how "
        "full the context window is (its size, the last request's prompt in tokens, and the compactions of "
        "the history so far: older turns summarized or dropped, old tool results cleared to working memory). "
        "Takes no arguments.",
        json{{"type", "object"}, {"properties", json::object()}}, "Checking the run's status");
    tool.handler = [](json, tools::ToolContext context) { return reportStatus(std::move(context)); };
    return tool;
}

void attachRunStatus(std::vector<tools::ToolCallRequest>& calls, RunStatusSource& source) {
    source.batch.clear();
    for (const tools::ToolCallRequest& call : calls) {
        source.batch.push_back(call.name);
    }
    // One pointer: small enough for std::function to hold without allocating, on every call.
    for (tools::ToolCallRequest& call : calls) {
        call.runStatus = [status = &source] { return runStatus(*status); };
    }
}

}  // namespace reagent::agent
