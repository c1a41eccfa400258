#pragma once
/// \file
/// \brief `Compaction`: the record of one compaction of a run's history (see `compaction.hpp`).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace reagent::agent {

/// \brief Why a history was compacted.
enum class CompactionReason {
    /// The next request would pass the threshold (`CompactionOptions::threshold`) of the window.
    threshold,
    /// The API refused the last request as longer than its context window (`llm::isContextLengthExceeded`).
    context_error,
    /// The caller asked (`Conversation::compact`, chat's `/compact`).
    manual,
};

[[nodiscard]] std::string_view toString(CompactionReason reason) noexcept;

/// \brief One compaction: recorded in `RunResult::context` (and in a saved run), reported as a
/// `ContextCompacted` event.
struct Compaction {
    CompactionReason reason = CompactionReason::threshold;
    /// The model call it came before (0-based); -1 for a conversation compacted between turns.
    int iteration = -1;
    /// The strategies that changed the history, in the order they ran.
    std::vector<std::string> strategies;
    /// The prompt's tokens before and after (the count `RunResult::context` keeps), and its messages.
    std::int64_t tokensBefore = 0;
    std::int64_t tokensAfter = 0;
    std::size_t messagesBefore = 0;
    std::size_t messagesAfter = 0;
    /// The model calls it made (summaries); they count in the run's model calls for the budgets.
    int modelCalls = 0;
    /// What went wrong on the way, if anything (a strategy that failed, and the next one ran instead).
    std::vector<std::string> notes;

    friend bool operator==(const Compaction&, const Compaction&) = default;
};

}  // namespace reagent::agent
