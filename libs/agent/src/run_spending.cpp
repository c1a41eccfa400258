#include "run_spending.hpp"

#include <cstdio>

#include "prompt_count.hpp"

namespace reagent::agent::detail {

namespace {

constexpr double kCharactersPerToken = 4;

std::string money(double amount, const std::string& currency) {
    char text[64];
    std::snprintf(text, sizeof text, "%.6g %s", amount, currency.c_str());
    return text;
}

}  // namespace

Spending ownSpending(const llm::Usage& usage, const Boxed<RunCost>& cost, const ContextUse& context,
                     const std::vector<tools::ToolCallRecord>& toolCalls, int iterations) {
    Spending spent;
    spent.usage = usage;
    if (cost) {
        spent.cost = cost->amount;
        spent.unpricedCalls = cost->unpricedCalls;
    }
    spent.modelCalls = iterations;
    for (const Compaction& compaction : context.compactions) {
        spent.modelCalls += compaction.modelCalls;  // summaries
    }
    spent.toolCalls = countedToolCalls(toolCalls);
    return spent;
}

Spending spentBy(const RunResult& result) {
    Spending spent = ownSpending(result, result.iterations);
    spent += result.subRuns;
    return spent;
}

Spending priced(const llm::PriceTable* prices, const std::string& model, const llm::Usage& usage) {
    Spending spent;
    spent.usage = usage;
    if (usage.empty()) {
        return spent;
    }
    if (const auto amount = prices != nullptr ? prices->cost(model, usage) : std::nullopt) {
        spent.cost = *amount;
    } else {
        spent.unpricedCalls = 1;
    }
    return spent;
}

void addCost(RunCost& cost, const Spending& spent) {
    cost.amount += spent.cost;
    cost.unpricedCalls += spent.unpricedCalls;
}

std::int64_t toolDeclarationCharacters(const llm::ToolList& tools) {
    std::int64_t characters = 0;
    for (const llm::ToolSpec& tool : tools) {
        characters += static_cast<std::int64_t>(tool.name.size() + tool.description.size() +
                                                tool.inputSchema.dump().size());
    }
    return characters;
}

std::int64_t estimateTokens(const llm::ModelRequest& request, std::int64_t toolCharacters) {
    return promptTokens(request.messages, toolCharacters, PromptAnchor{}, kCharactersPerToken) +
           request.maxTokens.value_or(0);
}

std::optional<std::string> overBeforeCall(const RunBudget& budget, const Spending& spent,
                                          const llm::ModelRequest& request, std::int64_t toolCharacters,
                                          const llm::PriceTable* prices, const std::string& model) {
    if (budget.maxModelCalls && spent.modelCalls >= *budget.maxModelCalls) {
        return "maxModelCalls of " + std::to_string(*budget.maxModelCalls) +
               " reached: " + std::to_string(spent.modelCalls) + " model calls made";
    }
    if (!budget.maxTotalTokens && !budget.maxCost) {
        return std::nullopt;
    }
    const std::int64_t estimate = estimateTokens(request, toolCharacters);
    if (budget.maxTotalTokens && spent.usage.total() + estimate > *budget.maxTotalTokens) {
        return "maxTotalTokens of " + std::to_string(*budget.maxTotalTokens) +
               " would be passed: " + std::to_string(spent.usage.total()) +
               " tokens used, and the next request takes about " + std::to_string(estimate) + " (its text" +
               (request.maxTokens ? " and a reply of up to " + std::to_string(*request.maxTokens)
                                  : std::string()) +
               ")";
    }
    if (!budget.maxCost || model.empty()) {
        return std::nullopt;  // a provider that does not say its model: the replies are priced, not this
    }
    const llm::ModelPrice* price = prices != nullptr ? prices->find(model) : nullptr;
    if (price == nullptr) {
        return "maxCost of " + money(*budget.maxCost, prices != nullptr ? prices->currency() : "USD") +
               " cannot be kept: " +
               (prices == nullptr ? std::string("the agent has no price table (withPrices)")
                                  : "the price table has no price for model '" + model + "'");
    }
    llm::Usage next;
    next.inputTokens = estimate - request.maxTokens.value_or(0);
    next.outputTokens = request.maxTokens.value_or(0);
    const double estimated = price->cost(next);
    if (spent.cost + estimated > *budget.maxCost) {
        return "maxCost of " + money(*budget.maxCost, prices->currency()) +
               " would be passed: " + money(spent.cost, prices->currency()) +
               " spent, and the next request costs about " + money(estimated, prices->currency());
    }
    return std::nullopt;
}

std::optional<std::string> overAfterReply(const RunBudget& budget, const Spending& spent,
                                          const std::string& currency) {
    if (budget.maxTotalTokens && spent.usage.total() > *budget.maxTotalTokens) {
        return "maxTotalTokens of " + std::to_string(*budget.maxTotalTokens) +
               " passed: " + std::to_string(spent.usage.total()) + " tokens used";
    }
    if (budget.maxCost) {
        if (spent.unpricedCalls > 0) {
            return "maxCost of " + money(*budget.maxCost, currency) +
                   " cannot be kept: a model without a price in the table answered";
        }
        if (spent.cost > *budget.maxCost) {
            return "maxCost of " + money(*budget.maxCost, currency) +
                   " passed: " + money(spent.cost, currency) + " spent";
        }
    }
    return std::nullopt;
}

std::optional<std::string> overBeforeTools(const RunBudget& budget, int made, int batch) {
    if (budget.maxToolCalls && made + batch > *budget.maxToolCalls) {
        return "maxToolCalls of " + std::to_string(*budget.maxToolCalls) +
               " would be passed: " + std::to_string(made) + " tool calls made, and the model asked for " +
               std::to_string(batch) + " more";
    }
    return std::nullopt;
}

std::string budgetLabel(int depth) {
    if (depth == 0) {
        return "budget: ";
    }
    return depth == 1 ? "budget of the calling run: "
                      : "budget of the run " + std::to_string(depth) + " levels up: ";
}

std::string outOfTime(const RunLedger& ledger) {
    const auto allowed = std::chrono::duration_cast<std::chrono::milliseconds>(
        ledger.deadline.value_or(ledger.started) - ledger.started);
    if (ledger.deadlineInherited) {
        return "budget of a calling run: its maxDuration ran out " + std::to_string(allowed.count()) +
               " ms into this run";
    }
    return "budget: maxDuration of " + std::to_string(allowed.count()) + " ms passed";
}

}  // namespace reagent::agent::detail
