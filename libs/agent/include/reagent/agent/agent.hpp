#pragma once
/// \file
/// \brief `Agent`: a configured ReAct agent, and `AgentBuilder`, which assembles one.

#include <chrono>
#include <concepts>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reagent/agent/agent_config.hpp"
#include "reagent/agent/agent_error.hpp"
#include "reagent/agent/agent_event.hpp"
#include "reagent/agent/run_result.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/llm/provider.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/tools/remote_agent_catalog.hpp"
#include "reagent/tools/tool.hpp"

namespace reagent::agent {

class AgentBuilder;

/// \brief Customization point behind `AgentBuilder::withProvider(kind)`: the specialisation for `void`
/// has `static expected<std::shared_ptr<llm::Provider>, llm::ProviderError> make(std::string_view kind)`.
///
/// The agent library knows no concrete provider, so it only declares this. The layer above it that knows
/// both defines it: `<reagent/provider_by_kind.hpp>`, included by `<reagent/reagent.hpp>`, makes the
/// provider with `providers::fromEnvironment`. A program that never names a provider by kind needs
/// neither that header nor the providers library.
template <class Tag = void>
struct ProviderByKind;

/// \brief Options of one run (`Agent::run`).
struct RunOptions {
    /// This run's events, after the agent's subscribers see them (seed 004's per-call subscription; the
    /// builder's `withEventHandler` and `Agent::subscribe` are the factory and instance levels).
    EventHandler onEvent{};
    /// The session state the run's tools share (`ToolContext::session`), returned as
    /// `RunResult::sessionState`; a JSON object (null, the default, or anything else: an empty one).
    nlohmann::json sessionState;
};

/// \brief What a paused run needs to go on (`Agent::resumeWith`, `Conversation::resumeWith`).
struct ResumeInput {
    /// The results of its declaration-only calls (`RunResult::pendingToolCalls`), one per call.
    std::vector<ExternalResult> results{};
    /// The decisions on its calls waiting for approval (`RunResult::pendingApprovals`), one per call.
    std::vector<ApprovalDecision> decisions{};
    /// The resumed run's events, as `RunOptions::onEvent`.
    EventHandler onEvent{};
};

/// \brief A ready agent: runs prompts through the ReAct loop with its provider and tools.
///
/// An `Agent` is a cheap handle; copies share the same tools, provider and subscriptions. Each run
/// starts from a fresh conversation, or from the history it is given (`run(history, prompt)`,
/// `Conversation`), so one agent can run many prompts, one after another or concurrently.
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
    /// \brief Runs `prompt` as the next turn after `history` (earlier messages of a conversation, without
    /// the system prompt, which the agent adds); `RunResult::messages` holds all of them. See
    /// `Conversation`, which keeps the history for you.
    [[nodiscard]] Task<RunResult> run(std::vector<llm::Message> history, std::string prompt) const;
    /// \brief Runs `prompt` with this run's own event handler and session state.
    [[nodiscard]] Task<RunResult> run(std::string prompt, RunOptions options) const;
    /// \brief Runs `prompt` after `history`, with options.
    [[nodiscard]] Task<RunResult> run(std::vector<llm::Message> history, std::string prompt,
                                      RunOptions options) const;

    /// \brief Continues a run that stopped for declaration-only calls (`RunResult::state`, possibly saved
    /// by another process) with their results, one per pending call: it finishes exactly as it would have
    /// if the calls had run in it. A state saved in the middle of a step (`ReactLoop::save`) continues
    /// from that step, repeating the model call or tool batch it stood at (pass no results then).
    ///
    /// \par Errors
    /// `invalid_state` (nothing runs): a state that `ReactLoop::save` did not make, a run that already
    /// ended, a pending call without a result, a result for a call that is not pending. The message names
    /// the field or the call. Everything else is reported in the `RunResult`, as by `run`.
    [[nodiscard]] Task<expected<RunResult, AgentError>> resume(nlohmann::json state,
                                                               std::vector<ExternalResult> results) const;
    /// \brief Continues a paused run with the results of its declaration-only calls and the decisions on
    /// its calls waiting for approval (`approval_required`): approved calls run now, refused ones are
    /// answered `approval_denied`, and the run goes on as if it had not stopped.
    ///
    /// \par Errors
    /// As above; also `invalid_state` for a call waiting for approval without a decision, or a decision
    /// for a call that is not waiting. Nothing runs then.
    [[nodiscard]] Task<expected<RunResult, AgentError>> resumeWith(nlohmann::json state,
                                                                   ResumeInput input) const;

    /// \brief This agent as a tool another agent (or an MCP client) can call: input `{message}`, output
    /// the run's answer. Each call is one run of this agent, with its own loop, iteration budget and tools;
    /// cancelling the call cancels the run. A run that does not succeed is a `ToolErrc::failed` error
    /// naming the agent, with the run's error code and message, and `details` holding `terminatedBy` and
    /// `iterations`.
    ///
    /// \param name the tool's name (`isValidToolName`); empty: the agent's name.
    /// \param description what the model reads; empty: "Ask the agent <name> ...".
    /// \param timeout the whole run's bound. Default 10 minutes.
    [[nodiscard]] tools::Tool asTool(std::string name = {}, std::string description = {},
                                     std::chrono::milliseconds timeout = std::chrono::minutes(10)) const;

    /// \brief Adds a tool after build. Errors as `ToolRegistry::add`.
    [[nodiscard]] expected<void, tools::ToolError> registerTool(tools::Tool tool) const;
    /// \brief Removes a tool; false when absent or a meta-tool (`final-answer`, `task-complete`,
    /// `context-status`, `recall`).
    bool unregisterTool(std::string_view name) const;

    /// \brief The tools offered to the model, meta-tools included.
    [[nodiscard]] std::vector<llm::ToolSpec> toolSpecs() const;
    /// \brief The full definitions of the registered tools, in registration order.
    [[nodiscard]] std::vector<tools::ToolDefinition> toolDefinitions() const;

    /// \brief Restores the workspace of the built-in tools (`ToolsConfig::workspace`) to a checkpoint of
    /// `RunResult::checkpoints`; returns a line saying what was restored, and the id of a checkpoint that
    /// undoes the rollback. The conversation before the change is `RunResult::messagesBefore(id)`.
    ///
    /// \par Errors
    /// `invalid_config` when the agent has no workspace; `rollback_failed` when the checkpoint is unknown or
    /// the files cannot be restored (the message says which).
    [[nodiscard]] Task<expected<std::string, AgentError>> rollback(std::string checkpointId) const;

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

    /// \brief Runs the `dispose` hooks of tools that were initialised and closes every MCP session
    /// (a stdio server is stopped and reaped, an HTTP session ended with `DELETE`). Never throws. An agent
    /// whose last handle goes away without it closes its MCP sessions abruptly (servers killed).
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
    /// \brief The provider, or the error that prevented making it (`providers::makeProvider(config)`,
    /// `providers::fromEnvironment(kind)`): an error, like a null provider, is reported by `build()`.
    AgentBuilder& withProvider(expected<std::shared_ptr<llm::Provider>, llm::ProviderError> provider);
    /// \brief A provider you made; a null one is reported by `build()`.
    template <std::derived_from<llm::Provider> P>
    AgentBuilder& withProvider(std::shared_ptr<P> provider) {
        return withProvider(
            expected<std::shared_ptr<llm::Provider>, llm::ProviderError>(std::move(provider)));
    }
    /// \brief A provider of kind `kind` ("anthropic", "openai", "gemini", "ollama") configured from the
    /// environment when `build()` runs, so a key set after this call still counts; a missing API key or
    /// an unknown kind is reported by `build()`. Needs `ProviderByKind`, which `<reagent/reagent.hpp>`
    /// provides (and the providers library, which `reagent::reagent` links).
    template <class Tag = void>
    AgentBuilder& withProvider(std::string_view kind) {
        static_assert(
            requires(std::string_view name) { ProviderByKind<Tag>::make(name); },
            "withProvider(kind) makes a provider by name, which the agent library cannot do: "
            "include <reagent/reagent.hpp> (or <reagent/provider_by_kind.hpp>) and link "
            "reagent::reagent, or pass a provider: withProvider(providers::fromEnvironment(kind))");
        return deferProvider([name = std::string(kind)] { return ProviderByKind<Tag>::make(name); });
    }
    /// \brief Enables tools, registering `config.tools` and the built-in tools `config.include` selects (by
    /// default the network tools and `code-execute`, with `config.workspace` the file, shell and program
    /// tools too; see `ToolSettings::include`). A user tool named like a built-in one replaces it.
    AgentBuilder& withTools(ToolsConfig config = {});
    AgentBuilder& withTools(std::vector<tools::Tool> tools);
    /// \brief Adds one tool straight from `ToolBuilder::build()`; a build error is reported by `build()`.
    AgentBuilder& withTool(expected<tools::Tool, tools::ToolError> tool);
    /// \brief Adds the remote A2A agent at `url` as a tool named `name` (input `{message}`, output its
    /// reply), made by the hook `tools::setRemoteAgentToolMaker` that `reagent::a2a` installs
    /// (`<reagent/reagent.hpp>` does it); without it, `build()` reports how to enable it.
    /// See `a2a::remoteAgentTool` for the behaviour and errors.
    AgentBuilder& withRemoteAgent(std::string name, std::string url);
    /// \brief The same with headers (auth) and a timeout.
    AgentBuilder& withRemoteAgent(tools::RemoteAgentSpec spec);
    /// \brief A local sub-agent as a tool (`agent.asTool(name, description)`): the model delegates a task
    /// to it with `{message}` and reads its answer.
    AgentBuilder& withAgentTool(std::string name, Agent agent, std::string description = {});
    /// \brief Enables the ReAct loop's meta-tool `final-answer` and its system guidance. The iteration limit
    /// is `withMaxIterations`'s, whatever the order of the calls.
    AgentBuilder& withReasoning();
    /// \brief Chooses the meta-tools registered with reasoning besides `final-answer` (`task-complete` and
    /// `context-status`, both on by default).
    AgentBuilder& withMetaTools(MetaTools tools);
    /// \brief Enables episodic memory: each tool result is logged in a SQLite file (WAL) that `recall` can
    /// search in later runs and later processes. `build()` opens the file and reports a failure.
    AgentBuilder& withMemory(MemoryConfig config = {});
    AgentBuilder& withSystemPrompt(std::string prompt);
    /// \brief Model calls allowed per run (`LoopOptions::maxIterations`, default 10).
    AgentBuilder& withMaxIterations(int iterations);
    /// \brief Decides, during the run, whether a call of a tool that requires approval may run.
    AgentBuilder& withApprovalHandler(tools::ApprovalHandler handler);
    /// \brief Calls of tools that require approval pause the run instead (`TerminatedBy::approval_required`,
    /// `RunResult::pendingApprovals` and `state`), for a decision taken later, by a person, possibly in
    /// another process: `Agent::resumeWith(state, input)` with `ResumeInput::decisions`. Not with
    /// `withApprovalHandler` (`build()` reports both).
    AgentBuilder& withDeferredApproval();
    AgentBuilder& withEventHandler(EventHandler handler);
    AgentBuilder& withTemperature(double temperature);
    AgentBuilder& withMaxTokens(int tokens);
    /// \brief Uses an MCP server's tools, registered as `<server name>/<tool>`; connected by
    /// `buildAsync()`. Servers' names must be unique.
    AgentBuilder& withMCP(mcp::ServerConfig server);
    AgentBuilder& withMCP(std::vector<mcp::ServerConfig> servers);
    /// \brief Roots offered to every MCP server (`roots/list`).
    AgentBuilder& withMCPRoots(std::vector<mcp::Root> roots);
    /// \brief Lets MCP servers ask the agent's provider for completions (`sampling/createMessage`), each
    /// request only when `allow(server, params)` returns true.
    AgentBuilder& withMCPSampling(
        std::function<bool(const std::string& server, const nlohmann::json& params)> allow);
    /// \brief Answers MCP servers' questions to the user (`elicitation/create`).
    AgentBuilder& withMCPElicitation(mcp::RequestHandler handler);

    /// \brief The agent, or `AgentErrc::invalid_config` listing every problem (no provider, a tool that
    /// failed to build, duplicate tool names, a non-positive iteration limit, ...).
    [[nodiscard]] expected<Agent, AgentError> build() const;

    /// \brief As `build()`, then connects every MCP server (`McpSettings::maxConcurrentStarts` at a time)
    /// on the awaiting coroutine's executor and registers their tools. A server that fails to start or to
    /// initialise is reported as `invalid_config`, naming it (with its stderr's last lines for stdio); the
    /// servers that did connect are closed again. Needed when `withMCP` was called; otherwise the same as
    /// `build()`.
    [[nodiscard]] Task<expected<Agent, AgentError>> buildAsync() const;

    /// \brief Builds (`buildAsync`), runs `prompt`, disposes the agent: for one-shot use.
    [[nodiscard]] Task<expected<RunResult, AgentError>> runOnce(std::string prompt) const;

  private:
    using ProviderFactory = std::function<expected<std::shared_ptr<llm::Provider>, llm::ProviderError>()>;
    /// Makes the provider with `factory` when `build()` runs.
    AgentBuilder& deferProvider(ProviderFactory factory);
    /// The agent without its MCP sessions: build() and buildAsync() share it.
    [[nodiscard]] expected<Agent, AgentError> assemble() const;

    AgentConfig config_;
    /// A provider to make at build() (withProvider(kind) reads the environment then).
    ProviderFactory pendingProvider_;
    /// Why the provider given could not be made, reported by build().
    std::optional<llm::ProviderError> providerError_;
    std::vector<tools::Tool> tools_;
    std::vector<EventHandler> handlers_;
    std::vector<std::string> problems_;
};

}  // namespace reagent::agent
