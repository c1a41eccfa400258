#pragma once
// Private to libs/agent: what every copy of an `Agent` handle shares.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reagent/agent/agent.hpp"
#include "reagent/agent/react_loop.hpp"
#include "reagent/memory/episodic_store.hpp"
#include "reagent/memory/working_memory.hpp"
#include "reagent/tools/tool_event.hpp"
#include "reagent/tools/tool_executor.hpp"
#include "reagent/tools/tool_registry.hpp"
#include "reagent/tools/tool_source.hpp"

namespace reagent::agent {

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
    /// The tool sources, in the order given; closed by dispose.
    std::vector<std::shared_ptr<tools::ToolSource>> sources;
    SubscriptionId nextSubscription = 1;
    /// Restores the first source's workspace that has one to a checkpoint; empty without one.
    tools::CheckpointRollback rollback;
    /// The output schema, compiled (`withOutputSchema`); none without one.
    std::optional<tools::SchemaValidator> output;
    /// The output schema as requests carry it to the provider; null without one.
    std::shared_ptr<const llm::OutputFormat> outputFormat;
    /// `config.compaction` with its strategies filled in (the built-ins when none were given); null without.
    std::shared_ptr<const CompactionOptions> compaction;

    /// Calls every subscriber; a handler that throws is skipped, never the run.
    void emit(const AgentEvent& event) const;
    /// The tools offered to the model: every registered tool once tools or reasoning are enabled. Built
    /// once and kept until the tools change, so every run offers the very same list and a provider reuses
    /// its encoding of it instead of comparing schemas.
    [[nodiscard]] llm::ToolList offeredTools() const;
    /// The tools not offered up front while tool search is on (`ToolSearch`), found on demand; empty
    /// while it is off.
    [[nodiscard]] llm::ToolList onDemandTools() const;
    /// Whether tool search is on: `find` is registered and the tools outside the core set are on demand.
    [[nodiscard]] bool searchesTools() const;
    /// After a registration change: drops the offered list, and registers `find` when tool search has
    /// just started (`ToolSearch::Mode::automatic` past its threshold).
    void toolsChanged();
    /// The context window the runs keep to (`Agent::contextWindow`).
    [[nodiscard]] std::optional<std::int64_t> contextWindow() const;
    /// The characters of the offered tools' declarations, measured once per tool list.
    [[nodiscard]] std::int64_t offeredToolCharacters() const;
    /// What every run of the agent is, fixed at a run's start (later registrations affect later runs only):
    /// built once and kept until the tools change, so the runs share it; what differs per run (its budget,
    /// its parent) goes in its `LoopRun`. The provider's model is read when it is built.
    [[nodiscard]] std::shared_ptr<const LoopConfig> sharedLoopConfig() const;

  private:
    // Fills offered_ and onDemand_ together.
    void partitionTools() const;

    mutable std::optional<llm::ToolList> offered_;
    mutable llm::ToolList onDemand_;
    // The offered declarations' size, for a token or cost budget's estimates (-1: not measured yet).
    mutable std::int64_t offeredCharacters_ = -1;
    mutable std::shared_ptr<const LoopConfig> loop_;
};

/// The events of one run: the agent's subscribers see each, then the run's own handler
/// (`RunOptions::onEvent`). Held by shared pointer: the sinks handed to the run's calls refer to it weakly,
/// so that a call that reports after the run ended reaches nobody.
class RunEvents {
  public:
    [[nodiscard]] static std::shared_ptr<RunEvents> make(std::shared_ptr<Agent::State> state,
                                                         EventHandler onEvent);
    /// True when someone would see an event (events are built only then).
    [[nodiscard]] bool listening() const noexcept { return !state_->subscribers.empty() || onEvent_; }
    void emit(const AgentEvent& event) const;
    /// For the run's calls (`ToolCallRequest::events`): their tool events, and their sub-agents' events
    /// nested (`SubAgentEvent`); null while nobody listens.
    [[nodiscard]] std::shared_ptr<const tools::CallEvents> callEvents();

  protected:
    // Protected for `make`, which allocates the events with their count in one block.
    RunEvents(std::shared_ptr<Agent::State> state, EventHandler onEvent)
        : state_(std::move(state)), onEvent_(std::move(onEvent)) {}

  private:
    std::shared_ptr<Agent::State> state_;
    EventHandler onEvent_;
    /// Made on first need: a run nobody listens to builds no sinks.
    std::shared_ptr<const tools::CallEvents> calls_;
    std::weak_ptr<const RunEvents> self_;
};

/// Where one open source adds and removes its tools: the agent's registry while the agent lives. Its events
/// (`ServerLogged`) are named after the source.
class SourceSink final : public tools::ToolSink {
  public:
    SourceSink(std::weak_ptr<Agent::State> state, std::string source)
        : state_(std::move(state)), source_(std::move(source)) {}

    [[nodiscard]] expected<void, tools::ToolError> add(tools::Tool tool) override;
    bool remove(std::string_view name) override;
    void log(std::string level, std::string logger, nlohmann::json data) override;

  private:
    std::weak_ptr<Agent::State> state_;
    std::string source_;
};

/// Opens the sources that need it (`maxConcurrentOpens` at a time); on failure, the joined messages of
/// those that failed.
[[nodiscard]] Task<expected<void, std::string>> openSources(std::shared_ptr<Agent::State> state);

/// Closes every source, in reverse order. Never fails.
[[nodiscard]] Task<void> closeSources(std::shared_ptr<Agent::State> state);

/// The `final-answer` meta-tool registered by `withReasoning()`.
[[nodiscard]] tools::Tool finalAnswerTool();

/// The ReAct guidance placed before the user's system prompt when reasoning is enabled.
[[nodiscard]] std::string reactGuidance();

}  // namespace reagent::agent
