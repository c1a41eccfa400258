#pragma once
/// \file
/// \brief `AgentError`: why an agent could not be built or a run did not succeed.

#include <string>
#include <string_view>

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
};

[[nodiscard]] std::string_view toString(AgentErrc code) noexcept;

struct AgentError {
    AgentErrc code = AgentErrc::invalid_config;
    std::string message;

    /// \brief `"<code>: <message>"`.
    [[nodiscard]] std::string describe() const;
};

}  // namespace reagent::agent
