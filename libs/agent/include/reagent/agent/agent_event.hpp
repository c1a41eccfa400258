#pragma once
/// \file
/// \brief Agent events: run and model progress plus the tool events.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>

#include "reagent/agent/run_result.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/llm/retry_notice.hpp"
#include "reagent/tools/tool_event.hpp"

namespace reagent::agent {

/// \brief A run began.
struct RunStarted {
    std::string prompt;
};

/// \brief The model answered (before any tool runs).
struct ModelResponded {
    int iteration = 0;
    std::string text;
    std::vector<llm::ToolCall> toolCalls;
    llm::Usage usage;
    /// The model that answered, as the API named it (else the provider's model); may be empty.
    std::string model{};
    /// What this call cost, with a price table that prices the model (`AgentBuilder::withPrices`).
    std::optional<double> cost{};
};

/// \brief A piece of the model's reply text as it streams in (only when the provider streams).
///
/// Concatenating the pieces of one iteration gives that turn's text; `ModelResponded` follows with the
/// whole reply. Model output: untrusted.
struct TextDelta {
    int iteration = 0;
    std::string text;
};

/// \brief A tool call taking shape as the reply streams in: the first delta of a call carries its `id`
/// and `name`, later ones fragments of its JSON arguments (complete only with `ModelResponded`).
struct ToolCallDelta {
    int iteration = 0;
    /// Position of the call in the reply (0-based).
    std::size_t index = 0;
    /// The call's id, when the provider has sent it (may be empty).
    std::string id;
    /// The tool's name (always on the call's first delta).
    std::string name;
    /// The next fragment of the arguments' JSON text; empty on the call's first delta.
    std::string argumentsFragment;
};

/// \brief A tool's result was condensed before the model read it: compressed to a preview (full text
/// stored under `key` unless empty) or reshaped by the call's `_transform`.
struct ToolResultCompressed {
    std::string callId;
    std::string tool;
    /// The working-memory key of the full result; empty when it was not stored.
    std::string key;
    /// Characters of the tool's result and of what the model reads instead.
    std::size_t originalChars = 0;
    std::size_t shownChars = 0;
    /// The call's `_transform`, when it had one.
    std::string transform;
    /// Why the transform failed (the model got the standard preview instead); empty on success.
    std::string transformError;
};

/// \brief Memory could not do something the run asked of it (an episode was not logged, for example:
/// disk full, database locked too long). The run goes on.
struct MemoryWarning {
    std::string message;
};

/// \brief A model call failed and the provider will try it again after `notice.wait` (rate limited,
/// overloaded, connection dropped before a reply).
struct ModelRetrying {
    int iteration = 0;
    llm::RetryNotice notice;
};

/// \brief A log line from an MCP server (`notifications/message`), or the client's own note about that
/// server (a malformed frame, a reconnection, a tool that could not be registered: logger `reagent`).
/// Server text: untrusted.
struct ServerLogged {
    /// The tool source it came from (an MCP server's name).
    std::string server;
    /// `debug`, `info`, `notice`, `warning`, `error`, `critical`, `alert` or `emergency`.
    std::string level;
    std::string logger;
    nlohmann::json data;
};

/// \brief The answer did not match the run's output schema (`AgentBuilder::withOutputSchema`) and goes back
/// to the model with the violations: this event comes before that model call (`iteration`). `attempt` counts
/// the re-asks of the run, from 1 to `LoopOptions::maxOutputRetries`. Model output: untrusted.
struct OutputRejected {
    int iteration = 0;
    int attempt = 0;
    /// One line per violation ("at /city: expected a string, got a number"), the first few.
    std::vector<std::string> problems;
};

/// \brief With an output schema, the answer as it streams in: the JSON value the text of this model call
/// (`iteration`) has reached so far, healed (open strings, arrays and objects closed; an unfinished key,
/// number or literal left out). It follows the `TextDelta`s that changed it, only when the value grows,
/// and only from providers that stream to a subscriber. With reasoning it also follows the `ToolCallDelta`s
/// of the `final-answer` call: the value its `output` text has reached. It is not validated: the final answer
/// (`RunResult::structuredOutput`) is. Model output: untrusted.
struct PartialOutput {
    int iteration = 0;
    nlohmann::json value;
};

/// \brief A `FallbackProvider` moved model call `iteration` to the next provider of its chain, after
/// `from` failed with `error` (see `llm::FallbackNotice`).
struct ModelFellBack {
    int iteration = 0;
    std::string from;
    std::string to;
    llm::ProviderError error;
};

/// \brief The provider holds model call `iteration` back to keep to its rate limits, for `notice.wait`
/// (or until a request in flight ends).
struct ModelThrottled {
    int iteration = 0;
    llm::ThrottleNotice notice;
};

/// \brief The history was compacted to stay inside the context window (`AgentBuilder::withCompaction`):
/// before model call `compaction.iteration`, with the prompt's count and messages before and after, and
/// the strategies that changed it.
struct ContextCompacted {
    Compaction compaction;
};

struct AgentEventBox;

/// \brief An event of a run that a call of this run started (a sub-agent's, `withAgentTool` / `asTool`),
/// nested under that call. A sub-agent's own sub-agents nest one level deeper.
struct SubAgentEvent {
    /// The call of this run that started the sub-agent's run.
    std::string callId;
    std::string tool;
    int tripIndex = 0;
    /// The sub-agent's event: `inner->event` (never null).
    std::shared_ptr<const AgentEventBox> inner;
};

/// \brief A run ended.
struct RunFinished {
    TerminatedBy terminatedBy = TerminatedBy::end_turn;
    int iterations = 0;

    /// \brief True when the run ended with an answer (`isSuccess(terminatedBy)`).
    [[nodiscard]] bool success() const noexcept { return isSuccess(terminatedBy); }
};

/// \brief Every event of a run. New alternatives are appended; `TextDelta` and `ToolCallDelta` come only
/// from providers that stream (`ModelRequest::onDelta`), and only when someone subscribed.
using AgentEvent =
    std::variant<RunStarted, ModelResponded, tools::ToolCalling, tools::ToolCalled, tools::ToolFailed,
                 RunFinished, TextDelta, ToolCallDelta, ToolResultCompressed, MemoryWarning, ModelRetrying,
                 tools::ToolProgressed, ServerLogged, SubAgentEvent, OutputRejected, PartialOutput,
                 ModelFellBack, ModelThrottled, ContextCompacted>;

/// \brief Holds a nested event (`SubAgentEvent::inner`): a variant cannot hold itself directly.
struct AgentEventBox {
    AgentEvent event;
};

/// \brief Receives events on the run's executor. Exceptions it throws are swallowed.
using EventHandler = std::function<void(const AgentEvent&)>;

/// \brief Identifies a subscription, for `Agent::unsubscribe`.
using SubscriptionId = std::uint64_t;

}  // namespace reagent::agent
