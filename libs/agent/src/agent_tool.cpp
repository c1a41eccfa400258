// An agent as a tool: each call is one run of the agent on the call's message.

#include <any>
#include <utility>

#include "agent_delegate.hpp"
#include "reagent/agent/agent.hpp"

namespace reagent::agent {

nlohmann::json taskInputSchema() {
    return {{"type", "object"},
            {"properties",
             {{"message", {{"type", "string"}, {"description", "The task, complete and self-contained."}}}}},
            {"required", {"message"}}};
}

tools::ToolError runFailure(const std::string& name, const RunResult& result) {
    const auto error = result.error();
    const nlohmann::json details = {{"terminatedBy", toString(result.terminatedBy)},
                                    {"iterations", result.iterations}};
    auto failure = tools::ToolError::failure(
        "agent '" + name +
            "' did not finish its task: " + (error ? error->describe() : std::string("no answer")),
        tools::ErrorCause{"agent", error ? std::string(toString(error->code)) : std::string(),
                          error ? error->message : std::string("no answer"), details});
    failure.details = details;
    return failure;
}

Task<tools::ToolResult> delegateRun(Agent agent, std::string name, std::string prompt) {
    return delegateRun(std::move(agent), std::move(name), std::move(prompt), tools::EventRelay(), nullptr);
}

Task<tools::ToolResult> delegateRun(Agent agent, std::string name, std::string prompt,
                                    tools::EventRelay relay, tools::SpendingLedger* parent,
                                    const SpanContext* trace) {
    RunOptions options;
    options.parent = parent;
    if (trace != nullptr) {
        options.traceParent = *trace;
    }
    if (relay) {
        // The sub-agent's events reach the parent's listeners, nested under the call.
        options.onEvent = [relay = std::move(relay)](const AgentEvent& event) { relay(std::any(event)); };
    }
    auto running = agent.run(std::move(prompt), std::move(options));
    RunResult result = co_await std::move(running);
    if (result.success()) {
        co_return std::move(result.output);
    }
    co_return fail(runFailure(name, result));
}

tools::Tool Agent::asTool(std::string name, std::string description,
                          std::chrono::milliseconds timeout) const {
    if (name.empty()) {
        name = config().name;
    }
    if (description.empty()) {
        description = "Ask the agent '" + name +
                      "' to do a task: give it the whole task in `message`, with what it needs to know; it "
                      "works on its own with its tools and replies with its answer.";
    }
    tools::Tool tool;
    tool.definition.name = name;
    tool.definition.description = std::move(description);
    tool.definition.inputSchema = taskInputSchema();
    tool.definition.category = "agent";
    tool.definition.timeout = timeout;
    tool.definition.action = [name](const nlohmann::json&) { return "Delegating to the agent " + name; };
    tool.handler = [agent = *this, name](nlohmann::json args, tools::ToolContext context) {
        return delegateRun(agent, name, args.value("message", std::string()), std::move(context.relay),
                           context.ledger, context.trace);
    };
    return tool;
}

AgentBuilder& AgentBuilder::withAgentTool(std::string name, Agent agent, std::string description) {
    config_.toolsEnabled = true;
    tools_.push_back(agent.asTool(std::move(name), std::move(description)));
    return *this;
}

}  // namespace reagent::agent
