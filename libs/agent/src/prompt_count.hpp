#pragma once
// Private to libs/agent: what a request's prompt takes in tokens, for the context window. The API's own
// count of the last request it answered (its reported input tokens) anchors the figure; what was added
// since is estimated from its characters. Before any reply the whole request is estimated.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "reagent/llm/message.hpp"

namespace reagent::agent::detail {

/// What an image or a PDF page costs an API, roughly (a 1-megapixel image is about 1,300-1,600 tokens).
inline constexpr std::int64_t kTokensPerAttachment = 1600;

/// What the API counted for a request: its first `messages` messages, with the tools, took `tokens`.
struct PromptAnchor {
    std::size_t messages = 0;
    std::int64_t tokens = 0;
};

/// Characters a token takes in `model`'s tokenizer, roughly: 3.5 for Claude (whose tokenizer cuts finer),
/// 4 for the others.
[[nodiscard]] double charactersPerToken(std::string_view model) noexcept;

/// Tokens an API adds to a prompt beyond its text: Anthropic's tool-use system prompt, 346 tokens when tools
/// are offered with automatic choice (its documented figure for the Claude 4 models); none known for the
/// others.
[[nodiscard]] std::int64_t hiddenPromptTokens(std::string_view model, bool tools) noexcept;

/// The characters a message adds to a prompt: its text, its tool calls' names and arguments (an
/// attachment is counted apart, see `promptTokens`).
[[nodiscard]] std::int64_t messageCharacters(const llm::Message& message);

/// The tokens of a prompt of `messages` and tools of `toolCharacters`: `anchor.tokens` for its first
/// `anchor.messages` messages when the anchor has any (the tools within), plus the rest estimated at
/// `perToken` characters a token and 1,600 tokens an attachment; `hidden` (`hiddenPromptTokens`) counts
/// only when nothing is anchored (an anchor includes it).
[[nodiscard]] std::int64_t promptTokens(const std::vector<llm::Message>& messages,
                                        std::int64_t toolCharacters, const PromptAnchor& anchor,
                                        double perToken, std::int64_t hidden = 0);

}  // namespace reagent::agent::detail
