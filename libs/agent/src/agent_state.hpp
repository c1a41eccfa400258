#pragma once
// Private to libs/agent: what every copy of an `Agent` handle shares.

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "reagent/agent/agent.hpp"
#include "reagent/agent/react_loop.hpp"
#include "reagent/memory/episodic_store.hpp"
#include "reagent/memory/working_memory.hpp"
#include "reagent/tools/builtin_catalog.hpp"
#include "reagent/tools/tool_executor.hpp"
#include "reagent/tools/tool_registry.hpp"

namespace reagent::agent {

class McpTools;

/// The shared state of an agent. The executor refers to the registry, so a State never moves.
struct Agent::State {
    explicit State(AgentConfig agentConfig);
    State(const State&) = delete;
    State& operator=(const State&) = delete;

    AgentConfig config;
    /// The system prompt actually sent: the ReAct guide (with reasoning) followed by the user's prompt.
    std::string systemPrompt;
    /// Full tool results (`_tool_result_N`) and notes, shared by the agent's runs.
    memory::WorkingMemory workingMemory;
    /// Set by `withMemory(...)`.
    std::shared_ptr<memory::EpisodicStore> episodic;
    tools::ToolRegistry registry;
    tools::ToolExecutor executor;
    std::map<SubscriptionId, EventHandler> subscribers;
    /// The MCP sessions, when `buildAsync` connected servers.
    std::shared_ptr<McpTools> mcp;
    SubscriptionId nextSubscription = 1;
    /// Restores the built-in tools' workspace to a checkpoint; empty without a workspace.
    tools::CheckpointRollback rollback;

    /// Gives the executor an event sink exactly when someone subscribes (events cost copies).
    void updateEventSink();
    /// Calls every subscriber; a handler that throws is skipped, never the run.
    void emit(const AgentEvent& event) const;
    /// The tools offered to the model: every registered tool once tools or reasoning are enabled. Built
    /// once and kept until the tools change, so every run offers the very same list and a provider reuses
    /// its encoding of it instead of comparing schemas.
    [[nodiscard]] llm::ToolList offeredTools() const;
    /// Drops the offered list after a registration change.
    void toolsChanged() noexcept { offered_.reset(); }
    /// What one run is, fixed at its start (later registrations affect later runs only).
    [[nodiscard]] LoopConfig loopConfig() const;

  private:
    mutable std::optional<llm::ToolList> offered_;
};

/// The `final-answer` meta-tool registered by `withReasoning()`.
[[nodiscard]] tools::Tool finalAnswerTool();

/// The ReAct guidance placed before the user's system prompt when reasoning is enabled.
[[nodiscard]] std::string reactGuidance();

}  // namespace reagent::agent
