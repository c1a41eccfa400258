#pragma once
/// \file
/// \brief `AgentError`: why an agent could not be built or a run did not succeed.

#include <boost/describe/enum.hpp>
#include <string>
#include <string_view>

#include "reagent/core/error.hpp"

namespace reagent::agent {

enum class AgentErrc {
    /// The builder's configuration is incomplete or contradictory (no provider, a bad tool, ...).
    invalid_config,
    /// The model call failed; the message carries the provider's error.
    provider_failed,
    /// The run used all its iterations without an answer.
    max_iterations,
    /// The run was cancelled.
    cancelled,
    /// The model called a declaration-only tool; the caller must execute it (see `pendingToolCalls`).
    external_tool_call,
    /// A component broke its contract (a provider or handler threw where it must not); the message
    /// carries the exception's text. Report it as a bug.
    internal_error,
    /// `Agent::rollback` could not restore the workspace (unknown checkpoint, files that cannot be
    /// written); the message says which.
    rollback_failed,
    /// A saved run state that cannot be read or resumed (not made by `ReactLoop::save`, a run that is not
    /// waiting, results that do not match its pending calls); the message names the field or call.
    invalid_state,
    /// Calls that require approval wait for the caller's decision (see `RunResult::pendingApprovals`).
    approval_required,
    /// The answer did not match the run's output schema, after every re-ask allowed; the message names the
    /// first violations (`TerminatedBy::output_invalid`). From `Agent::runAs`, also an answer that
    /// validated but does not decode as the type asked for.
    output_invalid,
    /// The run would have spent past a limit of its budget (`RunBudget`, `TerminatedBy::budget_exceeded`).
    budget_exceeded,
    /// The next request would not fit the model's context window (`TerminatedBy::context_overflow`).
    context_overflow,
};
BOOST_DESCRIBE_ENUM(AgentErrc, invalid_config, provider_failed, max_iterations, cancelled, external_tool_call,
                    internal_error, rollback_failed, invalid_state, approval_required, output_invalid,
                    budget_exceeded, context_overflow)

[[nodiscard]] std::string_view toString(AgentErrc code) noexcept;

/// \brief Why an agent could not be built or a run did not succeed: a code and a message.
using AgentError = reagent::Error<AgentErrc>;

}  // namespace reagent::agent
