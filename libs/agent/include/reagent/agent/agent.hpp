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
#include "reagent/agent/run_journal.hpp"
#include "reagent/agent/run_result.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/core/trace_context.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/llm/provider.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/tools/described_schema.hpp"
#include "reagent/tools/tool.hpp"
#include "reagent/tools/tool_error.hpp"
#include "reagent/tools/tool_source.hpp"

namespace reagent::agent {

class AgentBuilder;

/// \brief Options of one run (`Agent::run`).
struct RunOptions {
    /// This run's events, after the agent's subscribers see them (the builder's `withEventHandler` and
    /// `Agent::subscribe` subscribe every run of the agent).
    EventHandler onEvent{};
    /// The session state the run's tools share (`ToolContext::session`), returned as
    /// `RunResult::sessionState`; a JSON object (null, the default, or anything else: an empty one).
    nlohmann::json sessionState;
    /// Images and documents sent with the prompt, in its user message (`llm::Attachment::fromFile`,
    /// `fromBytes`, `fromUrl`); a provider whose API cannot take one fails the run's first model call with
    /// `invalid_request`, naming it.
    std::vector<llm::Attachment> attachments{};
    /// This run's budget, in place of the agent's (`AgentBuilder::withBudget`); none: the agent's. A
    /// `Conversation` with a budget passes what is left of it, within the agent's.
    std::optional<RunBudget> budget{};
    /// The spending of the run this one works for (a tool handler's `ToolContext::ledger`): this run's
    /// spending counts in that run's budget, whose limits (and its callers') bind this run too, and this
    /// run ends by that run's deadline. `asTool` and `Workflow::asTool` pass it on themselves. Null: none.
    tools::SpendingLedger* parent = nullptr;
    /// The count of an earlier run whose messages this run's start repeats, its system prompt included (a
    /// conversation's last turn: `ContextUse::countedMessages`, `countedTokens`): the first request is
    /// counted from it, plus what was added, instead of estimated in full. Ignored when it covers more
    /// messages than the run starts with.
    std::optional<ContextUse> counted{};
    /// The span this run works for, when the agent traces (`withTelemetry`): a tool handler's
    /// `ToolContext::trace` (`asTool` passes it on itself), or the context of a request a server received.
    /// Not valid (the default): the run starts a trace of its own.
    SpanContext traceParent{};
    /// The conversation the run is a turn of, recorded as `gen_ai.conversation.id` on its spans; empty:
    /// none.
    std::string conversationId{};
    /// Where the run journals each step as it completes, and takes the steps an earlier attempt journaled
    /// instead of doing them again (docs/durable-runs.md). Null: none.
    std::shared_ptr<RunJournal> journal{};
};

/// \brief What a paused run needs to go on (`Agent::resumeWith`, `Conversation::resumeWith`).
struct ResumeInput {
    /// The results of its declaration-only calls (`RunResult::pendingToolCalls`), one per call.
    std::vector<ExternalResult> results{};
    /// The decisions on its calls waiting for approval (`RunResult::pendingApprovals`), one per call.
    std::vector<ApprovalDecision> decisions{};
    /// The resumed run's events, as `RunOptions::onEvent`.
    EventHandler onEvent{};
    /// The resumed run's budget, as `RunOptions::budget` (what it spent before it paused counts); none:
    /// the agent's. `Conversation::resumeWith` passes what the conversation's budget has left.
    std::optional<RunBudget> budget{};
    /// The span the resumed run works for, as `RunOptions::traceParent`.
    SpanContext traceParent{};
    /// The conversation the resumed run is a turn of, as `RunOptions::conversationId`.
    std::string conversationId{};
    /// The resumed run's journal, as `RunOptions::journal`.
    std::shared_ptr<RunJournal> journal{};
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

    /// \brief Runs `prompt` and returns the answer as a `T` (decoded by `tools::decodeAs<T>` from
    /// `RunResult::structuredOutput`). The agent needs an output schema: build it `withOutput<T>()`.
    ///
    /// \par Errors
    /// The run's error when it did not succeed (`output_invalid` when the answer never matched the schema);
    /// `invalid_config` when the agent has no output schema; `output_invalid` when the answer matched the
    /// schema but does not decode as a `T` (a schema that is not `T`'s).
    template <class T>
    [[nodiscard]] Task<expected<T, AgentError>> runAs(std::string prompt) const {
        return runAsImpl<T>(*this, std::move(prompt));
    }

    /// \brief Adds a tool after build. Errors as `ToolRegistry::add`.
    [[nodiscard]] expected<void, tools::ToolError> registerTool(tools::Tool tool) const;
    /// \brief Removes a tool; false when absent or a meta-tool (`final-answer`, `task-complete`,
    /// `context-status`, `recall`).
    bool unregisterTool(std::string_view name) const;

    /// \brief The tools offered to the model, meta-tools included.
    [[nodiscard]] std::vector<llm::ToolSpec> toolSpecs() const;
    /// \brief The full definitions of the registered tools, in registration order.
    [[nodiscard]] std::vector<tools::ToolDefinition> toolDefinitions() const;

    /// \brief Restores the workspace of a tool source (the built-in tools' workspace) to a checkpoint of
    /// `RunResult::checkpoints`; returns a line saying what was restored, and the id of a checkpoint that
    /// undoes the rollback. The conversation before the change is `RunResult::messagesBefore(id)`.
    ///
    /// \par Errors
    /// `invalid_config` when no tool source has a workspace; `rollback_failed` when the checkpoint is unknown
    /// or the files cannot be restored (the message says which).
    [[nodiscard]] Task<expected<std::string, AgentError>> rollback(std::string checkpointId) const;

    /// \brief Calls `handler` for every event of every later run.
    SubscriptionId subscribe(EventHandler handler) const;
    void unsubscribe(SubscriptionId id) const;

    [[nodiscard]] const AgentConfig& config() const noexcept;
    /// \brief The context window its runs keep to: `AgentBuilder::withContextWindow`, else the provider's
    /// model's published window (`llm::publishedContextWindow`); none when neither is known.
    [[nodiscard]] std::optional<std::int64_t> contextWindow() const;

    /// \brief The agent's working memory: full results of oversized tool outputs under `_tool_result_N`
    /// (see `tools::ToolCallRecord::memoryKey`) and the model's notes. Shared by the agent's runs and
    /// kept between them; use it from the agent's strand.
    [[nodiscard]] memory::WorkingMemory& workingMemory() const noexcept;

    /// \brief The episodic store set up by `withMemory(...)`, or null.
    [[nodiscard]] std::shared_ptr<memory::EpisodicStore> episodicMemory() const noexcept;

    /// \brief Runs the `dispose` hooks of tools that were initialised and closes every tool source (an MCP
    /// server's session: a stdio server is stopped and reaped, an HTTP session ended with `DELETE`). Never
    /// throws. An agent whose last handle goes away without it drops its sources abruptly (MCP servers
    /// killed).
    [[nodiscard]] Task<void> dispose() const;

    struct State;

  private:
    friend class AgentBuilder;
    friend class Conversation;
    explicit Agent(std::shared_ptr<State> state);
    // The structured answer of a finished run, or why there is none (runAs).
    [[nodiscard]] static expected<nlohmann::json, AgentError> structuredAnswer(const RunResult& result);
    template <class T>
    static Task<expected<T, AgentError>> runAsImpl(Agent agent, std::string prompt) {
        RunResult result = co_await agent.run(std::move(prompt));
        auto answer = structuredAnswer(result);
        if (!answer) {
            co_return tl::make_unexpected(std::move(answer.error()));
        }
        auto decoded = tools::decodeAs<T>(*answer);
        if (!decoded) {
            AgentError error{AgentErrc::output_invalid,
                             "the answer matched the output schema but is not the type asked for: " +
                                 decoded.error().describe()};
            co_return tl::make_unexpected(std::move(error));
        }
        co_return std::move(*decoded);
    }
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
    /// \brief Enables tools, registering `config.tools`, with the settings of `config`. A tool given here
    /// replaces a tool source's tool of the same name. (`reagent::AgentBuilder::withTools` adds the
    /// built-in tools.)
    AgentBuilder& withTools(ToolsConfig config = {});
    AgentBuilder& withTools(std::vector<tools::Tool> tools);
    /// \brief Adds one tool straight from `ToolBuilder::build()`; a build error is reported by `build()`.
    AgentBuilder& withTool(expected<tools::Tool, tools::ToolError> tool);
    /// \brief Adds a source of tools from another library: an MCP server (`mcp::toolSource`), the built-in
    /// tools (`builtins::toolSource`), your own. Its ready tools are registered by `build()`; a source that
    /// `opens()` is opened by `buildAsync()` (and makes `build()` fail). `Agent::dispose` closes it. A
    /// source serves one agent; sources' names must be unique. An error is reported by `build()`.
    AgentBuilder& withToolSource(expected<std::shared_ptr<tools::ToolSource>, tools::ToolError> source);
    /// \brief A source you made; a null one is reported by `build()`.
    template <std::derived_from<tools::ToolSource> S>
    AgentBuilder& withToolSource(std::shared_ptr<S> source) {
        return withToolSource(
            expected<std::shared_ptr<tools::ToolSource>, tools::ToolError>(std::move(source)));
    }
    /// \brief Tool sources `buildAsync()` opens at once (`AgentConfig::maxConcurrentOpens`, default 4).
    AgentBuilder& withMaxConcurrentOpens(std::size_t opens);
    /// \brief A local sub-agent as a tool (`agent.asTool(name, description)`): the model delegates a task
    /// to it with `{message}` and reads its answer.
    AgentBuilder& withAgentTool(std::string name, Agent agent, std::string description = {});
    /// \brief Enables the ReAct loop's meta-tool `final-answer` and its system guidance. The iteration limit
    /// is `withMaxIterations`'s, whatever the order of the calls.
    AgentBuilder& withReasoning();
    /// \brief Chooses the meta-tools registered with reasoning besides `final-answer` (`task-complete` and
    /// `context-status`, both on by default).
    AgentBuilder& withMetaTools(MetaTools tools);
    /// \brief Tools on demand, always on: the model gets `find` and the core tools, and finds the rest
    /// (docs/tools.md, "Tools on demand"). Without this call it starts by itself above 64 tools.
    AgentBuilder& withToolSearch();
    /// \brief Tools on demand as `search` says (`ToolSearch::Mode::off` turns the automatic start off).
    AgentBuilder& withToolSearch(ToolSearch search);
    /// \brief Adds a collection that the `find` meta-tool searches (documents, for example); `find` is
    /// then offered. A null source is a configuration error of `build()`.
    AgentBuilder& withFindSource(std::shared_ptr<FindSource> source);
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
    /// \brief The final answer must be a JSON value that matches `schema` (a JSON Schema object): it is
    /// then `RunResult::structuredOutput`. Tools keep working: the schema constrains the answer, not the
    /// tool turns. An answer that does not match goes back to the model with the violations, at most
    /// `withMaxOutputRetries` times; past that the run fails with `output_invalid`. An invalid schema is
    /// reported by `build()`.
    AgentBuilder& withOutputSchema(nlohmann::json schema);
    /// \brief `withOutputSchema(tools::schemaOf<T>())` for a struct described with `BOOST_DESCRIBE_STRUCT`;
    /// read the answer as a `T` with `Agent::runAs<T>`.
    template <class T>
    AgentBuilder& withOutput() {
        auto schema = tools::schemaOf<T>();
        if (!schema) {
            problems_.push_back("withOutput: the struct's schema: " + schema.error().describe());
            return *this;
        }
        return withOutputSchema(std::move(*schema));
    }
    /// \brief How many times an answer that does not match the output schema is asked for again
    /// (`LoopOptions::maxOutputRetries`, default 2; 0: never). Each re-ask is one model call.
    AgentBuilder& withMaxOutputRetries(int retries);
    /// \brief Saved runs and conversations keep attachments of `inlineBelow` bytes or more in `store`, by
    /// the SHA-256 of their bytes, instead of inline in every saved state (`AttachmentStorage`); restoring
    /// reads them from it. A store that cannot take one leaves it inline. Null: all inline (the default).
    AgentBuilder& withAttachmentStore(std::shared_ptr<AttachmentStore> store,
                                      std::size_t inlineBelow = 16 * 1024);
    /// \brief Prices the models' tokens: each run's `RunResult::cost` (and each `ModelResponded`'s), and
    /// what a `RunBudget::maxCost` counts. See docs/cost.md.
    AgentBuilder& withPrices(std::shared_ptr<const llm::PriceTable> prices);
    /// \brief Traces every run in OpenTelemetry's GenAI conventions: an `invoke_agent` span per run, a
    /// `chat` span per model call, an `execute_tool` span per tool call (docs/observability.md). The
    /// agent's sub-agents and the MCP servers it calls continue the trace. Null (the default): nothing is
    /// traced. See `telemetry::Telemetry::create` for the standard `OTEL_*` configuration.
    AgentBuilder& withTelemetry(std::shared_ptr<telemetry::Telemetry> telemetry);
    /// \brief What each run may spend: tokens, cost, model calls, tool calls (`RunBudget`). A run that
    /// would go past a limit ends with `budget_exceeded`. Limits must be positive (`build()` says which
    /// is not).
    AgentBuilder& withBudget(RunBudget budget);
    /// \brief The model's context window in tokens, for a model `llm::publishedContextWindow` does not
    /// know (an Ollama model: its `num_ctx`) or one served with another window. A request that would not
    /// fit it is not sent: the run ends with `context_overflow`. At least 1 (`build()` says so).
    AgentBuilder& withContextWindow(std::int64_t tokens);
    /// \brief How a long run or conversation is compacted to stay inside the context window: when (a
    /// threshold of the window, 80 % by default), down to what (50 %), the turns kept verbatim, and the
    /// strategies in order (`clearToolResults`, `summarizeTurns`, `dropOldestTurns` by default, or your
    /// own `CompactionStrategy`). Compaction is on by default; `build()` checks the shares and counts.
    AgentBuilder& withCompaction(CompactionOptions options);
    /// \brief No compaction: a request that would not fit the window ends the run with `context_overflow`,
    /// and an API's context-length error ends it as a provider error.
    AgentBuilder& withoutCompaction();
    /// \brief The agent, or `AgentErrc::invalid_config` listing every problem (no provider, a tool that
    /// failed to build, duplicate tool names, a non-positive iteration limit, ...).
    [[nodiscard]] expected<Agent, AgentError> build() const;

    /// \brief As `build()`, then opens every tool source that `opens()` (`maxConcurrentOpens` at a time)
    /// on the awaiting coroutine's executor: an MCP server is connected and its tools registered. A source
    /// that fails to open is reported as `invalid_config`, with its error (an MCP server's names it, with
    /// its stderr's last lines for stdio); the sources are closed again. Needed when such a source was
    /// given; otherwise the same as `build()`.
    [[nodiscard]] Task<expected<Agent, AgentError>> buildAsync() const;

    /// \brief Builds (`buildAsync`), runs `prompt`, disposes the agent: for one-shot use.
    [[nodiscard]] Task<expected<RunResult, AgentError>> runOnce(std::string prompt) const;

  private:
    /// The agent with its sources not yet opened: build() and buildAsync() share it.
    [[nodiscard]] expected<Agent, AgentError> assemble() const;

    AgentConfig config_;
    /// Why the provider given could not be made, reported by build().
    std::optional<llm::ProviderError> providerError_;
    std::vector<tools::Tool> tools_;
    std::vector<std::shared_ptr<tools::ToolSource>> sources_;
    std::vector<EventHandler> handlers_;
    std::vector<std::string> problems_;
};

}  // namespace reagent::agent
