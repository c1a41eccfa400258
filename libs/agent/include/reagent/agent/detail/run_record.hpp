#pragma once
/// \file
/// \brief `detail::RunRecord`: what a `ReactLoop` records while it runs, from which its `RunResult` is
/// built when it ends. Part of `ReactLoop`'s state; not an API of its own.

#include <string>
#include <vector>

#include "reagent/agent/run_result.hpp"
#include "reagent/core/boxed.hpp"
#include "reagent/llm/usage.hpp"
#include "reagent/tools/tool_call.hpp"

namespace reagent::agent::detail {

/// \brief The fields of `RunResult` a loop fills as it goes (and `save` keeps). The rest (the history,
/// the session state, the pending calls, the artifacts, the sub-runs' spending, ...) are taken from the
/// loop's other members when a result is built: a suspended run does not carry a whole empty `RunResult`.
struct RunRecord {
    std::vector<tools::ToolCallRecord> toolCalls;
    llm::Usage usage;
    Boxed<RunCost> cost;
    ContextUse context;
    std::vector<CheckpointMark> checkpoints;
    std::vector<ModelFallback> fallbacks;
    Boxed<FinalAnswer> finalAnswer;
    nlohmann::json structuredOutput;
    int outputRetries = 0;
    /// How the loop ended, once it has (a `save` of an ended loop keeps it).
    TerminatedBy terminatedBy = TerminatedBy::internal_error;
    std::string output;
    std::string errorMessage;
};

}  // namespace reagent::agent::detail
