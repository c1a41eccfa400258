#pragma once
/// \file
/// \brief `RunBudget`: what one run may spend before it is stopped, and `Spending`: what runs spent.

#include <chrono>
#include <cstdint>
#include <optional>

#include "reagent/llm/usage.hpp"

namespace reagent::agent {

/// \brief What runs spent: tokens, cost, model and tool calls (`RunResult::subRuns`: a run's sub-runs).
struct Spending {
    /// Tokens over the model calls, failed ones included.
    llm::Usage usage;
    /// Cost of the priced calls, in the price table's currency (`RunCost::amount`).
    double cost = 0;
    /// Calls whose model had no price in the table (or whose run had no table).
    int unpricedCalls = 0;
    int modelCalls = 0;
    /// Tool calls, besides `final-answer` and `task-complete`.
    int toolCalls = 0;

    Spending& operator+=(const Spending& other) noexcept {
        usage += other.usage;
        cost += other.cost;
        unpricedCalls += other.unpricedCalls;
        modelCalls += other.modelCalls;
        toolCalls += other.toolCalls;
        return *this;
    }
    /// What is left of these figures without `other`'s (part of them).
    Spending& operator-=(const Spending& other) noexcept {
        usage -= other.usage;
        cost -= other.cost;
        unpricedCalls -= other.unpricedCalls;
        modelCalls -= other.modelCalls;
        toolCalls -= other.toolCalls;
        return *this;
    }
    [[nodiscard]] bool empty() const noexcept {
        return usage.empty() && cost == 0 && unpricedCalls == 0 && modelCalls == 0 && toolCalls == 0;
    }
    friend bool operator==(const Spending&, const Spending&) = default;
};

/// \brief Limits on one run's spending; an unset limit is none. A run that would go past one ends with
/// `TerminatedBy::budget_exceeded`, its message naming the budget, the limit and what was used.
///
/// Checked by the loop at each step: a request whose estimated size would go past `maxTotalTokens` or
/// `maxCost` is not sent (estimate: the request's text and tool declarations at 4 characters a token,
/// plus `LoopOptions::maxTokens` for the reply when set); a reply that goes past one ends the run with
/// its text kept as `output`; a batch of tool calls that would go past `maxToolCalls` is not run; a run
/// still going at `maxDuration` is cancelled where it stands (its model call, its tool calls) and ends.
///
/// The runs a run's tool calls start (an agent or a workflow as a tool, `RunOptions::parent`) draw on
/// its budget: what they spend counts against it as they spend (`RunResult::subRuns`), and each of their
/// steps is checked against it as against their own, so a sub-agent stops where its caller's budget
/// would be passed. A sub-run's wall time ends with its caller's at the latest.
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
    /// Wall time from the run's start (or its resumption: a paused run's wait does not count).
    std::optional<std::chrono::milliseconds> maxDuration;

    [[nodiscard]] bool empty() const noexcept {
        return !maxTotalTokens && !maxCost && !maxModelCalls && !maxToolCalls && !maxDuration;
    }
};

}  // namespace reagent::agent
