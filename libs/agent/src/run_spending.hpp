#pragma once
// Private to libs/agent: what a run's model calls cost (`RunResult::cost`) and whether the next step would
// go past its budget (`RunBudget`). Pure functions over the loop's figures; the loop acts on the answers.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

/// Adds a call's `usage` of `model` to `cost` (priced, or counted as unpriced).
void addCost(RunCost& cost, const llm::PriceTable& prices, const std::string& model, const llm::Usage& usage);

/// The tokens `request` will take, estimated at 4 characters a token over its messages' text, tool
/// arguments and tool declarations (an image counts as its bytes' length / 4 would overstate: a flat
/// 1,600), plus `maxTokens` for the reply when set.
/// `toolCharacters` is `toolDeclarationCharacters(request.tools)`, measured once per run.
[[nodiscard]] std::int64_t estimateTokens(const llm::ModelRequest& request, std::int64_t toolCharacters);

/// The characters of a tool list's declarations (names, descriptions, schemas as JSON text).
[[nodiscard]] std::int64_t toolDeclarationCharacters(const llm::ToolList& tools);

/// Why sending `request` would go past `budget` after `spent`, `calls` model calls made; none when it would
/// not. `prices` and `model` price the estimate (a cost budget without a price for `model` refuses; an
/// empty `model`, a provider that does not say, leaves the cost to be checked on the reply).
[[nodiscard]] std::optional<std::string> overBeforeCall(const RunBudget& budget, const RunResult& spent,
                                                        int calls, const llm::ModelRequest& request,
                                                        std::int64_t toolCharacters,
                                                        const llm::PriceTable* prices,
                                                        const std::string& model);

/// Why the run, having spent `spent`, is past `budget`; none when it is not.
[[nodiscard]] std::optional<std::string> overAfterReply(const RunBudget& budget, const RunResult& spent);

/// Why running `batch` more tool calls after `made` would go past `budget`; none when it would not.
[[nodiscard]] std::optional<std::string> overBeforeTools(const RunBudget& budget, int made, int batch);

}  // namespace reagent::agent::detail
