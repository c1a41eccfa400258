#pragma once
// Private to libs/agent: what a run's model calls cost (`RunResult::cost`) and whether the next step would
// go past its budget (`RunBudget`). Pure functions over the loop's figures; the loop acts on the answers.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reagent/agent/detail/run_ledger.hpp"
#include "reagent/agent/react_loop.hpp"
#include "reagent/agent/run_budget.hpp"
#include "reagent/agent/run_result.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/llm/price_table.hpp"

namespace reagent::agent::detail {

/// The calls a tool-call budget counts (`ToolCallRequest`s or `ToolCallRecord`s): all but the meta-tools
/// that end the run.
template <class Call>
[[nodiscard]] int countedToolCalls(const std::vector<Call>& calls) {
    return static_cast<int>(std::count_if(calls.begin(), calls.end(), [](const Call& call) {
        return call.name != kFinalAnswerTool && call.name != kTaskCompleteTool;
    }));
}

/// What a run's own model calls spent as `result` records them (`iterations` calls; tool calls: its
/// records, as `countedToolCalls`).
[[nodiscard]] Spending ownSpending(const llm::Usage& usage, const Boxed<RunCost>& cost,
                                   const ContextUse& context,
                                   const std::vector<tools::ToolCallRecord>& toolCalls, int iterations);
/// `Recorded` is a `RunResult` or a loop's `RunRecord`.
template <class Recorded>
[[nodiscard]] Spending ownSpending(const Recorded& result, int iterations) {
    return ownSpending(result.usage, result.cost, result.context, result.toolCalls, iterations);
}

/// What `result`'s run spent, its sub-runs' included (tool calls: its records, as `countedToolCalls`).
[[nodiscard]] Spending spentBy(const RunResult& result);

/// What a call's `usage` of `model` spent: its tokens, its cost with `prices` (an unpriced call without a
/// price for `model` or without a table), one model call's worth of nothing else.
[[nodiscard]] Spending priced(const llm::PriceTable* prices, const std::string& model,
                              const llm::Usage& usage);

/// Adds `spent` (from `priced`) to `cost`.
void addCost(RunCost& cost, const Spending& spent);

/// The tokens `request` will take, estimated at 4 characters a token over its messages' text, tool
/// arguments and tool declarations (an image counts as its bytes' length / 4 would overstate: a flat
/// 1,600), plus `maxTokens` for the reply when set.
/// `toolCharacters` is `toolDeclarationCharacters(request.tools)`, measured once per run.
[[nodiscard]] std::int64_t estimateTokens(const llm::ModelRequest& request, std::int64_t toolCharacters);

/// The characters of a tool list's declarations (names, descriptions, schemas as JSON text).
[[nodiscard]] std::int64_t toolDeclarationCharacters(const llm::ToolList& tools);

/// Why sending `request` would go past `budget` after `spent` (model calls included); none when it
/// would not. `prices` and `model` price the estimate (a cost budget without a price for `model` refuses;
/// an empty `model`, a provider that does not say, leaves the cost to be checked on the reply).
[[nodiscard]] std::optional<std::string> overBeforeCall(const RunBudget& budget, const Spending& spent,
                                                        const llm::ModelRequest& request,
                                                        std::int64_t toolCharacters,
                                                        const llm::PriceTable* prices,
                                                        const std::string& model);

/// Why `spent` is past `budget` (`currency`: the price table's); none when it is not.
[[nodiscard]] std::optional<std::string> overAfterReply(const RunBudget& budget, const Spending& spent,
                                                        const std::string& currency);

/// Why running `batch` more tool calls after `made` would go past `budget`; none when it would not.
[[nodiscard]] std::optional<std::string> overBeforeTools(const RunBudget& budget, int made, int batch);

/// "budget: " for the run's own budget, "budget of the calling run: " for a caller's (`depth` levels up).
[[nodiscard]] std::string budgetLabel(int depth);

/// The first budget, of `ledger`'s run then of its callers' up the chain, that `check` (a function of a
/// ledger with a budget, returning why it is passed, or none) finds passed, labelled whose it is.
template <class Check>
[[nodiscard]] std::optional<std::string> overAnyBudget(const RunLedger& ledger, const Check& check) {
    int depth = 0;
    for (const RunLedger* run = &ledger; run != nullptr; run = run->parent, ++depth) {
        if (run->budget.empty()) {
            continue;
        }
        if (std::optional<std::string> over = check(*run)) {
            return budgetLabel(depth) + std::move(*over);
        }
    }
    return std::nullopt;
}

/// Why the run of `ledger` stopped at its deadline: its own `maxDuration`, or a calling run's.
[[nodiscard]] std::string outOfTime(const RunLedger& ledger);

}  // namespace reagent::agent::detail
