// 05 — Approval and events: ask before a risky call runs, and watch a run as it happens.
//
// A tool marked requiresApproval() runs only when the approval handler says yes. Events (model turns,
// tool calls starting, finishing or failing) reach every subscriber while the run goes on: this is how a
// UI shows progress or a log records what an agent did.

#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "example_support.hpp"
#include "reagent/reagent.hpp"

using namespace reagent;
using nlohmann::json;

// The tool pretends to delete a file: the example never touches the disk.
Task<tools::ToolResult> deleteFile(json args, tools::ToolContext) {
    co_return "deleted " + args.at("path").get<std::string>() + " (simulated)";
}

// 1. The approval handler: a coroutine, so it could ask a person or a policy service. Here, a rule:
//    nothing under /etc. It receives the call as requested and the tool's definition (risk level...).
Task<bool> approve(tools::ToolCallRequest request, tools::ToolDefinition definition) {
    const std::string path = request.arguments.value("path", "");
    const bool allowed = path.rfind("/etc/", 0) != 0;
    std::cout << "  approval for " << definition.name << "(" << path << ") [risk "
              << tools::toString(definition.riskLevel) << "]: " << (allowed ? "granted" : "denied") << "\n";
    co_return allowed;
}

// 2. A readable name for each event type, for the log below.
struct EventName {
    std::string operator()(const agent::RunStarted&) const { return "run started"; }
    std::string operator()(const agent::ModelResponded&) const { return "model responded"; }
    std::string operator()(const tools::ToolCalling&) const { return "tool calling"; }
    std::string operator()(const tools::ToolCalled&) const { return "tool called"; }
    std::string operator()(const tools::ToolFailed&) const { return "tool failed"; }
    std::string operator()(const agent::RunFinished&) const { return "run finished"; }
    std::string operator()(const agent::TextDelta&) const { return "text delta"; }
    std::string operator()(const agent::ToolCallDelta&) const { return "tool call delta"; }
    std::string operator()(const agent::ToolResultCompressed&) const { return "tool result compressed"; }
    std::string operator()(const agent::MemoryWarning&) const { return "memory warning"; }
    std::string operator()(const agent::ModelRetrying&) const { return "model retrying"; }
    std::string operator()(const tools::ToolProgressed&) const { return "tool progressed"; }
    std::string operator()(const agent::ServerLogged&) const { return "server logged"; }
    std::string operator()(const agent::SubAgentEvent&) const { return "sub-agent event"; }
    std::string operator()(const agent::OutputRejected&) const { return "output rejected"; }
    std::string operator()(const agent::PartialOutput&) const { return "partial output"; }
    std::string operator()(const agent::ModelFellBack&) const { return "model fell back"; }
    std::string operator()(const agent::ModelThrottled&) const { return "model throttled"; }
    std::string operator()(const agent::ContextCompacted&) const { return "context compacted"; }
};

int main() {
    auto deleter = tools::ToolBuilder::create("delete_file")
                       .description("Delete a file")
                       .param("path", "string", "Absolute path of the file", {.required = true})
                       .riskLevel(tools::RiskLevel::high)
                       .requiresApproval()
                       .handler(deleteFile)
                       .build();

    // One turn with two deletions: one allowed, one refused. (delete_ marks a side effect, so the two
    // run one after the other rather than in parallel.)
    std::vector<llm::ToolCall> calls{{"ok", "delete_file", json{{"path", "/tmp/reagent-example.txt"}}},
                                     {"no", "delete_file", json{{"path", "/etc/passwd"}}}};
    auto provider = std::make_shared<llm::ScriptedProvider>();
    provider->then(llm::ScriptedTurn::toolCalls(calls));
    provider->then(llm::ScriptedTurn::text("Deleted the temporary file; deleting /etc/passwd was refused."));

    auto agent = agent::Agent::create()
                     .withProvider(provider)
                     .withTool(std::move(deleter))
                     .withApprovalHandler(approve)
                     .build();
    examples::check(agent.has_value(), "the agent builds");

    // 3. Subscribe before running. Handlers run on the run's executor, between steps: keep them quick.
    std::map<std::string, int> counts;
    const auto subscription = agent->subscribe([&counts](const agent::AgentEvent& event) {
        const std::string name = std::visit(EventName{}, event);
        ++counts[name];
        std::cout << "event: " << name;
        if (const auto* failed = std::get_if<tools::ToolFailed>(&event)) {
            std::cout << " \u2014 " << failed->error.describe();
        }
        std::cout << "\n";
    });

    const agent::RunResult result =
        examples::runTask(agent->run("Clean up the temporary file and /etc/passwd."));
    // Unsubscribe when the listener's state (here `counts`) is about to go away.
    agent->unsubscribe(subscription);
    std::cout << "answer: " << result.output << "\n";

    // 4. A refusal is not a crash: it is a tool error the model reads, and the run continues.
    examples::check(result.success() && result.toolCalls.size() == 2, "both calls recorded, run succeeded");
    examples::check(result.toolCalls[0].succeeded(), "the approved call ran");
    examples::check(!result.toolCalls[1].succeeded() &&
                        result.toolCalls[1].outcome.error().code == tools::ToolErrc::approval_denied,
                    "the refused call failed with approval_denied");
    examples::check(counts["run started"] == 1 && counts["run finished"] == 1, "one start, one finish");
    examples::check(counts["model responded"] == 2, "two model turns");
    examples::check(counts["tool called"] == 1 && counts["tool failed"] == 1,
                    "one call succeeded, one failed");
    return 0;
}
