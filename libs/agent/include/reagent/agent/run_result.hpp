#pragma once
/// \file
/// \brief `RunResult`: what one `Agent::run` produced.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/agent/agent_error.hpp"
#include "reagent/llm/message.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/tools/tool_call.hpp"

namespace reagent::agent {

/// \brief Why the loop stopped.
enum class TerminatedBy {
    /// The model called the `final-answer` meta-tool.
    final_answer,
    /// The model replied without tool calls; its text is the output.
    end_turn,
    /// Every call of the last batch was to a silent tool.
    silent_tools,
    /// The iteration limit was reached.
    max_iterations,
    /// The model called a declaration-only tool, which the caller executes.
    external_tool_calls,
    /// The model call failed.
    provider_error,
    /// The run was cancelled.
    cancelled,
    /// An unexpected exception ended the run (see `AgentErrc::internal_error`).
    internal_error,
};

[[nodiscard]] std::string_view toString(TerminatedBy reason) noexcept;

/// \brief The structured deliverable of the `final-answer` meta-tool.
struct FinalAnswer {
    std::string output;
    /// "text", "markdown", "json", ... as the model declared. Default "text".
    std::string format = "text";
    std::string summary;
    /// The model's confidence in [0, 1], when given.
    std::optional<double> confidence;
};

struct RunResult {
    /// The answer (final-answer output, or the last assistant text).
    std::string output;
    /// True when the run ended with an answer (final_answer, end_turn or silent_tools).
    bool success = false;
    TerminatedBy terminatedBy = TerminatedBy::end_turn;
    /// Model calls made.
    int iterations = 0;
    /// Every tool call, in order.
    std::vector<tools::ToolCallRecord> toolCalls;
    /// Tokens summed over the run's model calls.
    llm::Usage usage;
    /// Set when `success` is false.
    std::optional<AgentError> error;
    /// Set when the run ended through `final-answer`.
    std::optional<FinalAnswer> finalAnswer;
    /// Calls to declaration-only tools, left for the caller (with `external_tool_calls`).
    std::vector<tools::ToolCallRequest> pendingToolCalls;
    /// The whole conversation of the run, system prompt included.
    std::vector<llm::Message> messages;
    /// Problems that did not stop the run, one sentence each, in the order they happened; empty when
    /// there were none. Today: each tool result that could not be logged to episodic memory
    /// (`withMemory`), naming the call, the file and the reason (file read-only or corrupt, disk full,
    /// locked by another connection for longer than the busy timeout, run cancelled while waiting for
    /// the lock). The same text is emitted as a `MemoryWarning` event when it happens.
    std::vector<std::string> warnings;
    std::chrono::microseconds duration{0};
};

}  // namespace reagent::agent
