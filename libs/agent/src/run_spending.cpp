#include "run_spending.hpp"

#include <cstdio>

namespace reagent::agent::detail {

namespace {

constexpr std::int64_t kCharactersPerToken = 4;
// What an image or a PDF page costs an API, roughly (a 1-megapixel image is about 1,300-1,600 tokens).
constexpr std::int64_t kTokensPerAttachment = 1600;

std::string money(double amount, const std::string& currency) {
    char text[64];
    std::snprintf(text, sizeof text, "%.6g %s", amount, currency.c_str());
    return text;
}

}  // namespace

void addCost(RunCost& cost, const llm::PriceTable& prices, const std::string& model,
             const llm::Usage& usage) {
    if (usage.empty()) {
        return;
    }
    if (const auto amount = prices.cost(model, usage)) {
        cost.amount += *amount;
    } else {
        ++cost.unpricedCalls;
    }
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
    std::int64_t characters = toolCharacters;
    std::int64_t attachments = 0;
    for (const llm::Message& message : request.messages) {
        characters += static_cast<std::int64_t>(message.text.size());
        for (const llm::ToolCall& call : message.toolCalls) {
            characters += static_cast<std::int64_t>(call.name.size() + call.arguments.dump().size());
        }
        attachments += static_cast<std::int64_t>(message.attachments.size());
    }
    return (characters + kCharactersPerToken - 1) / kCharactersPerToken + attachments * kTokensPerAttachment +
           request.maxTokens.value_or(0);
}

std::optional<std::string> overBeforeCall(const RunBudget& budget, const RunResult& spent, int calls,
                                          const llm::ModelRequest& request, std::int64_t toolCharacters,
                                          const llm::PriceTable* prices, const std::string& model) {
    if (budget.maxModelCalls && calls >= *budget.maxModelCalls) {
        return "maxModelCalls of " + std::to_string(*budget.maxModelCalls) +
               " reached: " + std::to_string(calls) + " model calls made";
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
    const double used = spent.cost ? spent.cost->amount : 0;
    llm::Usage next;
    next.inputTokens = estimate - request.maxTokens.value_or(0);
    next.outputTokens = request.maxTokens.value_or(0);
    const double estimated = price->cost(next);
    if (used + estimated > *budget.maxCost) {
        return "maxCost of " + money(*budget.maxCost, prices->currency()) +
               " would be passed: " + money(used, prices->currency()) +
               " spent, and the next request costs about " + money(estimated, prices->currency());
    }
    return std::nullopt;
}

std::optional<std::string> overAfterReply(const RunBudget& budget, const RunResult& spent) {
    if (budget.maxTotalTokens && spent.usage.total() > *budget.maxTotalTokens) {
        return "maxTotalTokens of " + std::to_string(*budget.maxTotalTokens) +
               " passed: " + std::to_string(spent.usage.total()) + " tokens used";
    }
    if (budget.maxCost && spent.cost) {
        if (spent.cost->unpricedCalls > 0) {
            return "maxCost of " + money(*budget.maxCost, spent.cost->currency) +
                   " cannot be kept: a model without a price in the table answered";
        }
        if (spent.cost->amount > *budget.maxCost) {
            return "maxCost of " + money(*budget.maxCost, spent.cost->currency) +
                   " passed: " + money(spent.cost->amount, spent.cost->currency) + " spent";
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

}  // namespace reagent::agent::detail
