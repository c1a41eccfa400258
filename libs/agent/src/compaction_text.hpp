#pragma once
// Private to libs/agent: the texts compaction writes into a history (a cleared tool result, a summary) and
// reads back (a compressed result's key, an earlier summary), and the transcript a summary is made from.

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/llm/message.hpp"

namespace reagent::agent::detail {

/// What a cleared tool result says, at most (the key included): shorter results are not cleared.
inline constexpr std::size_t kClearedResultCharacters = 160;

/// The first line of a summary message: marks it, for the model and for the next compaction.
inline constexpr std::string_view kSummaryHeading = "[Summary of the earlier conversation]\n";

/// The instructions of a summary, unless `SummaryOptions::prompt` gives others.
inline constexpr std::string_view kSummaryPrompt =
    "You condense the earlier part of a conversation between a user and an AI agent, which the agent can no "
    "longer read in full. Write a summary the agent can continue from: the user's goals and requests, the "
    "decisions made, facts learned (names, numbers, paths, identifiers exactly), what the tools did and "
    "found, and what is still open. Keep any earlier summary's content. Keep the keys of stored results "
    "(_tool_result_N): the agent can read them with recall. Write plain text, no preamble.";

/// The text of a tool result cleared to working memory under `key`.
[[nodiscard]] std::string clearedResult(std::string_view key);
/// Whether `text` is a cleared tool result.
[[nodiscard]] bool isClearedResult(std::string_view text) noexcept;
/// Where the pinned messages of a history end: after its leading system messages and first user message.
[[nodiscard]] std::size_t pinnedEnd(const std::vector<llm::Message>& messages) noexcept;
/// Adds to `keys` the working-memory keys of stored tool results (`_tool_result_N`) `text` names, and not
/// already in it.
void collectStoredKeys(std::string_view text, std::vector<std::string>& keys);
/// `text` with each whole key of `renamed` (saved key to key now) replaced.
void renameStoredKeys(std::string& text, const std::map<std::string, std::string>& renamed);
/// Where the last user message after the first `from` with the text `text` is (the run's prompt, followed
/// through a compaction: a later user message, such as a re-ask for a valid answer, has another text);
/// `CompactionContext::kNoPrompt` when there is none.
[[nodiscard]] std::size_t lastUserMessageWith(const std::vector<llm::Message>& messages, std::size_t from,
                                              std::string_view text);
/// Whether `message` is a summary compaction wrote.
[[nodiscard]] bool isSummary(const llm::Message& message) noexcept;
/// One message as the summary's transcript shows it; tool results (and long arguments) are cut at
/// `maxToolCharacters`.
[[nodiscard]] std::string transcriptLine(const llm::Message& message, std::size_t maxToolCharacters);

}  // namespace reagent::agent::detail
