#pragma once
/// \file
/// \brief `detail::RunLedger`: a run's spending as its budget and its callers' budgets see it. Part of
/// `ReactLoop`'s state; not an API of its own.

#include <chrono>
#include <memory>
#include <optional>

#include "reagent/agent/run_budget.hpp"
#include "reagent/llm/price_table.hpp"
#include "reagent/tools/tool_context.hpp"

namespace reagent::agent::detail {

/// \brief What one run spent (`own`) and what the runs its tool calls started spent (`subRuns`), with the
/// limits it was given. A sub-run holds its caller's ledger (`parent`) and charges every ledger up the
/// chain as it spends, so each run's budget sees its sub-runs' spending when it happens, concurrent
/// sub-runs' included.
///
/// \par Lifetime
/// A sub-run is started by a tool call of its parent and ends before the call does, so `parent` outlives
/// it. A ledger is plain data: it moves with its loop (before any call can point at it).
class RunLedger final : public tools::SpendingLedger {
  public:
    /// This run's limits.
    RunBudget budget;
    /// The ledger of the run whose tool call started this one; null for a run nobody started.
    RunLedger* parent = nullptr;
    /// The prices of the run's model calls, for its sub-runs whose agents have none (null: none).
    std::shared_ptr<const llm::PriceTable> prices;
    /// When the run must end: its own `maxDuration`, or its parent's deadline if that comes first.
    std::optional<std::chrono::steady_clock::time_point> deadline;
    /// Whether `deadline` is the parent's (for the message of a run stopped by it).
    bool deadlineInherited = false;
    /// When the run started (or resumed), for the message of a run stopped by its deadline.
    std::chrono::steady_clock::time_point started{};
    /// Whether the run keeps `own` (it has a budget or a caller, who count it): a run with neither spends
    /// nothing on it, and its result holds the same figures.
    bool counting = false;
    Spending own;
    Spending subRuns;

    /// \brief Adds what this run just spent to its own figures and to every caller's `subRuns`; nothing when
    /// the run is not `counting`.
    void charge(const Spending& spent) noexcept {
        if (!counting) {
            return;
        }
        own += spent;
        for (RunLedger* caller = parent; caller != nullptr; caller = caller->parent) {
            caller->subRuns += spent;
        }
    }
    /// \brief Own and sub-runs' spending together: what the budget counts.
    [[nodiscard]] Spending total() const noexcept {
        Spending sum = own;
        sum += subRuns;
        return sum;
    }
    /// \brief True when this run or one of its callers has a limit to keep.
    [[nodiscard]] bool limited() const noexcept {
        for (const RunLedger* ledger = this; ledger != nullptr; ledger = ledger->parent) {
            if (!ledger->budget.empty()) {
                return true;
            }
        }
        return false;
    }
};

}  // namespace reagent::agent::detail
