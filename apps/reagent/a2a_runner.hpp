#pragma once
/// \file
/// \brief How `reagent serve --a2a` runs a task on an agent, with the run's progress streamed to the task.

#include <string>

#include "reagent/a2a/server.hpp"
#include "reagent/agent/agent.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"

namespace reagent::cli {

/// \brief One run of `agent` on `prompt`: its answer, or the run's error described; the run's own events
/// (tool calls, tools' progress) go to `progress` as lines; the run continues `trace` (the caller's) when
/// the agent traces.
[[nodiscard]] Task<expected<std::string, std::string>> runAgentTask(agent::Agent agent, std::string prompt,
                                                                    a2a::ProgressSink progress,
                                                                    SpanContext trace = {});

/// \brief Runs every task on `agent` (shared): one run per task, each streaming its own progress, however
/// many tasks run at once.
[[nodiscard]] a2a::TracedRunFunction sharedAgentRunner(agent::Agent agent);

}  // namespace reagent::cli
