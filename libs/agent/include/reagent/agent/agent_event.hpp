#pragma once
/// \file
/// \brief Agent events: run and model progress plus the tool events.

#include <cstdint>
#include <functional>
#include <string>
#include <variant>

#include "reagent/agent/run_result.hpp"
#include "reagent/llm/model_request.hpp"
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
};

/// \brief A run ended.
struct RunFinished {
    TerminatedBy terminatedBy = TerminatedBy::end_turn;
    bool success = false;
    int iterations = 0;
};

using AgentEvent =
    std::variant<RunStarted, ModelResponded, tools::ToolCalling, tools::ToolCalled, tools::ToolFailed, RunFinished>;

/// \brief Receives events on the run's executor. Exceptions it throws are swallowed.
using EventHandler = std::function<void(const AgentEvent&)>;

/// \brief Identifies a subscription, for `Agent::unsubscribe`.
using SubscriptionId = std::uint64_t;

}  // namespace reagent::agent
