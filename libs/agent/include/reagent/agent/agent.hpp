#pragma once
/// \file
/// \brief `Agent`: a configured ReAct agent, and `AgentBuilder`, which assembles one.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "reagent/agent/agent_config.hpp"
#include "reagent/agent/agent_error.hpp"
#include "reagent/agent/agent_event.hpp"
#include "reagent/agent/run_result.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/providers/provider_config.hpp"
#include "reagent/tools/tool.hpp"

namespace reagent::agent {

class AgentBuilder;

/// \brief A ready agent: runs prompts through the ReAct loop with its provider and tools.
///
/// An `Agent` is a cheap handle; copies share the same tools, provider and subscriptions. Each run
/// starts from a fresh conversation (flat memory), so one agent can run many prompts, one after another
/// or concurrently.
///
/// \par Thread safety
/// Use an agent from one strand (a single-threaded `io_context` is simplest).
class Agent {
  public:
    /// \brief Starts a builder: `Agent::create().withProvider(p).withTools(...).build()`.
    [[nodiscard]] static AgentBuilder create();

    /// \brief Runs one prompt to completion on the caller's executor.
    ///
    /// Never throws: provider failures, the iteration limit and cancellation are reported in the
    /// result. Cancelling the awaiting coroutine (Asio per-operation cancellation) reaches the model
    /// call or every tool call in flight.
    [[nodiscard]] Task<RunResult> run(std::string prompt) const;

    /// \brief Adds a tool after build. Errors as `ToolRegistry::add`.
    [[nodiscard]] expected<void, tools::ToolError> registerTool(tools::Tool tool) const;
    /// \brief Removes a user tool; false when absent or built-in (`final-answer`).
    bool unregisterTool(std::string_view name) const;

    /// \brief The tools offered to the model, meta-tools included.
    [[nodiscard]] std::vector<llm::ToolSpec> toolSpecs() const;
    /// \brief The full definitions of the registered tools, in registration order.
    [[nodiscard]] std::vector<tools::ToolDefinition> toolDefinitions() const;

    /// \brief Calls `handler` for every event of every later run.
    SubscriptionId subscribe(EventHandler handler) const;
    void unsubscribe(SubscriptionId id) const;

    [[nodiscard]] const AgentConfig& config() const noexcept;

    /// \brief The agent's working memory: full results of oversized tool outputs under `_tool_result_N`
    /// (see `tools::ToolCallRecord::memoryKey`) and the model's notes. Shared by the agent's runs and
    /// kept between them; use it from the agent's strand.
    [[nodiscard]] memory::WorkingMemory& workingMemory() const noexcept;

    /// \brief The episodic store set up by `withMemory(...)`, or null.
    [[nodiscard]] std::shared_ptr<memory::EpisodicStore> episodicMemory() const noexcept;

    /// \brief Runs the `dispose` hooks of tools that were initialised. Never throws.
    [[nodiscard]] Task<void> dispose() const;

    struct State;

  private:
    friend class AgentBuilder;
    explicit Agent(std::shared_ptr<State> state);
    std::shared_ptr<State> state_;
};

/// \brief Assembles an `Agent`. Every method returns *this; `build()` reports all problems at once.
class AgentBuilder {
  public:
    AgentBuilder& withName(std::string name);
    AgentBuilder& withProvider(std::shared_ptr<llm::Provider> provider);
    /// \brief A provider of kind `kind` ("anthropic", "openai", "gemini", "ollama") configured from the
    /// environment when `build()` runs (`providers::configFromEnvironment`); a missing API key or an
    /// unknown kind is reported by `build()`.
    AgentBuilder& withProvider(std::string kind);
    /// \brief A provider made from `config` by `build()` (`providers::makeProvider`).
    AgentBuilder& withProvider(providers::ProviderConfig config);
    /// \brief Enables tools, registering `config.tools`.
    AgentBuilder& withTools(ToolsConfig config = {});
    AgentBuilder& withTools(std::vector<tools::Tool> tools);
    /// \brief Adds one tool straight from `ToolBuilder::build()`; a build error is reported by `build()`.
    AgentBuilder& withTool(expected<tools::Tool, tools::ToolError> tool);
    /// \brief Enables the ReAct loop's meta-tool `final-answer` and its system guidance.
    AgentBuilder& withReasoning(ReasoningConfig config = {});
    /// \brief Enables episodic memory: each tool result is logged in a SQLite file (WAL) that `recall` can
    /// search in later runs and later processes. `build()` opens the file and reports a failure.
    AgentBuilder& withMemory(MemoryConfig config = {});
    AgentBuilder& withSystemPrompt(std::string prompt);
    AgentBuilder& withMaxIterations(int iterations);
    AgentBuilder& withApprovalHandler(tools::ApprovalHandler handler);
    AgentBuilder& withEventHandler(EventHandler handler);
    AgentBuilder& withTemperature(double temperature);
    AgentBuilder& withMaxTokens(int tokens);

    /// \brief The agent, or `AgentErrc::invalid_config` listing every problem (no provider, a tool that
    /// failed to build, duplicate tool names, a non-positive iteration limit, ...).
    [[nodiscard]] expected<Agent, AgentError> build() const;

  private:
    AgentConfig config_;
    /// A provider to make at build(): a kind read from the environment, or a configuration.
    std::optional<std::variant<std::string, providers::ProviderConfig>> pendingProvider_;
    std::vector<tools::Tool> tools_;
    std::vector<EventHandler> handlers_;
    std::vector<std::string> problems_;
};

}  // namespace reagent::agent
