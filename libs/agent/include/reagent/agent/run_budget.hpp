#pragma once
/// \file
/// \brief `RunBudget`: what one run may spend before it is stopped.

#include <cstdint>
#include <optional>

namespace reagent::agent {

/// \brief Limits on one run's spending; an unset limit is none. A run that would go past one ends with
/// `TerminatedBy::budget_exceeded`, its message naming the budget, the limit and what was used.
///
/// Checked by the loop at each step: a request whose estimated size would go past `maxTotalTokens` or
/// `maxCost` is not sent (estimate: the request's text and tool declarations at 4 characters a token,
/// plus `LoopOptions::maxTokens` for the reply when set); a reply that goes past one ends the run with
/// its text kept as `output`; a batch of tool calls that would go past `maxToolCalls` is not run.
struct RunBudget {
    /// Input plus output tokens over the run's model calls (`llm::Usage::total`).
    std::optional<std::int64_t> maxTotalTokens;
    /// Cost in the price table's currency (`AgentBuilder::withPrices`); without a price for the model
    /// that answers, the run stops rather than spend what it cannot count.
    std::optional<double> maxCost;
    /// Model calls, re-asks included.
    std::optional<int> maxModelCalls;
    /// Tool calls, besides `final-answer` and `task-complete`.
    std::optional<int> maxToolCalls;

    [[nodiscard]] bool empty() const noexcept {
        return !maxTotalTokens && !maxCost && !maxModelCalls && !maxToolCalls;
    }
};

}  // namespace reagent::agent
