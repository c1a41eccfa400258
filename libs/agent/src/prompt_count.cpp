#include "prompt_count.hpp"

#include <cmath>

namespace reagent::agent::detail {

double charactersPerToken(std::string_view model) noexcept {
    return model.rfind("claude", 0) == 0 ? 3.5 : 4.0;
}

std::int64_t hiddenPromptTokens(std::string_view model, bool tools) noexcept {
    return tools && model.rfind("claude", 0) == 0 ? 346 : 0;
}

std::int64_t messageCharacters(const llm::Message& message) {
    auto characters = static_cast<std::int64_t>(message.text.size());
    for (const llm::ToolCall& call : message.toolCalls) {
        characters += static_cast<std::int64_t>(call.name.size() + call.arguments.dump().size());
    }
    return characters;
}

std::int64_t promptTokens(const std::vector<llm::Message>& messages, std::int64_t toolCharacters,
                          const PromptAnchor& anchor, double perToken, std::int64_t hidden) {
    const bool anchored = anchor.tokens > 0 && anchor.messages <= messages.size();
    std::int64_t characters = anchored ? 0 : toolCharacters;
    std::int64_t attachments = 0;
    for (std::size_t i = anchored ? anchor.messages : 0; i < messages.size(); ++i) {
        characters += messageCharacters(messages[i]);
        attachments += static_cast<std::int64_t>(messages[i].attachments.size());
    }
    const auto estimated = static_cast<std::int64_t>(std::ceil(static_cast<double>(characters) / perToken));
    return (anchored ? anchor.tokens : hidden) + estimated + attachments * kTokensPerAttachment;
}

}  // namespace reagent::agent::detail
