#pragma once
// Private to libs/agent: one run of an agent on behalf of a caller (a tool call, a workflow step), with a
// failed run as a `tools::ToolError`. `Agent::asTool` and `Workflow`'s agent steps share it, so a
// sub-agent's failure reads the same wherever it surfaces.

#include <string>

#include "reagent/agent/agent.hpp"
#include "reagent/agent/run_result.hpp"
#include "reagent/core/task.hpp"
#include "reagent/tools/tool.hpp"
#include "reagent/tools/tool_context.hpp"
#include "reagent/tools/tool_error.hpp"

namespace reagent::agent {

/// The error of a run that did not succeed, for the agent called `name`: `ToolErrc::failed`, "agent
/// '<name>' did not finish its task: <code>: <message>", with a cause of domain `agent` (the run's
/// `AgentErrc` and message) and `details` (`terminatedBy`, `iterations`) on both.
[[nodiscard]] tools::ToolError runFailure(const std::string& name, const RunResult& result);

/// The input schema of a tool that hands a task to an agent or a workflow: `{message}`, required.
[[nodiscard]] nlohmann::json taskInputSchema();

/// Runs `prompt` on `agent` (named `name` in errors): its answer, or `runFailure`. Never throws (as
/// `Agent::run`); cancelling the awaiting coroutine cancels the run.
[[nodiscard]] Task<tools::ToolResult> delegateRun(Agent agent, std::string name, std::string prompt);
/// The same, passing the run's events to `relay` (a tool call's `ToolContext::relay`), which nests them
/// under the call for the caller's listeners, and drawing on `parent`'s budget (`RunOptions::parent`; a
/// tool call's `ToolContext::ledger`, or null), nested in the trace of `trace` (a tool call's
/// `ToolContext::trace`, or null).
[[nodiscard]] Task<tools::ToolResult> delegateRun(Agent agent, std::string name, std::string prompt,
                                                  tools::EventRelay relay, tools::SpendingLedger* parent,
                                                  const SpanContext* trace = nullptr);

}  // namespace reagent::agent
