#pragma once
/// \file
/// \brief `Usage`: the tokens a model call spent.

#include <cstdint>

namespace reagent::llm {

/// \brief Tokens spent, as the provider reports them, counted the same way for every API.
///
/// `inputTokens` counts every token of the prompt, those read from the API's cache and those written to it
/// included (Anthropic reports them apart; OpenAI and Gemini within): `cacheReadTokens` and
/// `cacheWriteTokens` are parts of it. `outputTokens` counts every generated token, reasoning included
/// (Gemini reports thoughts apart; OpenAI within): `reasoningTokens` is a part of it. Zero where the API
/// reports none.
struct Usage {
    std::int64_t inputTokens = 0;
    std::int64_t outputTokens = 0;
    /// Prompt tokens read from the provider's prompt cache (OpenAI `cached_tokens`, Anthropic
    /// `cache_read_input_tokens`, Gemini `cachedContentTokenCount`).
    std::int64_t cacheReadTokens = 0;
    /// Prompt tokens written to the cache (Anthropic `cache_creation_input_tokens`).
    std::int64_t cacheWriteTokens = 0;
    /// Output tokens spent reasoning (OpenAI `reasoning_tokens`, Gemini `thoughtsTokenCount`).
    std::int64_t reasoningTokens = 0;

    [[nodiscard]] std::int64_t total() const noexcept { return inputTokens + outputTokens; }
    [[nodiscard]] bool empty() const noexcept { return *this == Usage{}; }
    Usage& operator+=(const Usage& other) noexcept {
        inputTokens += other.inputTokens;
        outputTokens += other.outputTokens;
        cacheReadTokens += other.cacheReadTokens;
        cacheWriteTokens += other.cacheWriteTokens;
        reasoningTokens += other.reasoningTokens;
        return *this;
    }
    Usage& operator-=(const Usage& other) noexcept {
        inputTokens -= other.inputTokens;
        outputTokens -= other.outputTokens;
        cacheReadTokens -= other.cacheReadTokens;
        cacheWriteTokens -= other.cacheWriteTokens;
        reasoningTokens -= other.reasoningTokens;
        return *this;
    }
    friend bool operator==(const Usage&, const Usage&) = default;
};

}  // namespace reagent::llm
