#pragma once
// Private to libs/agent: runs the compaction strategies over a history, for a run (the loop's `Compact`)
// or for a conversation between turns (`Conversation::compact`).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "agent_state.hpp"
#include "reagent/agent/compaction.hpp"
#include "reagent/core/task.hpp"

namespace reagent::agent::detail {

struct CompactionPlan {
    CompactionReason reason = CompactionReason::threshold;
    /// The prompt's count as it stands (the API's, anchored), which the estimates are scaled to.
    std::int64_t promptTokens = 0;
    /// Negative: half the prompt's count (within `CompactionOptions::target` of the window).
    std::int64_t target = 0;
    std::optional<std::int64_t> window;
    /// Why a summary's model call would pass a budget (the run's, `ReactLoop::budgetRefusal`); none: it
    /// may go. Null: no budget to keep to.
    std::function<std::optional<std::string>(const llm::ModelRequest&)> admit;
    /// Where the run's prompt is in the history (`ReactLoop::promptIndex`): never removed.
    /// `CompactionContext::kNoPrompt`: none to keep (a conversation between turns).
    std::size_t prompt = CompactionContext::kNoPrompt;
};

struct CompactionOutcome {
    std::vector<llm::Message> messages;
    /// Everything but `iteration`, which the loop knows.
    Compaction record;
    /// Where the run's prompt is in `messages` now.
    std::size_t prompt = CompactionContext::kNoPrompt;
};

/// Runs `state`'s strategies in order over `messages` until the prompt is at `plan.target`. A strategy that
/// fails, throws, or breaks the rules (changes the pinned messages, splits a tool call from its result) is
/// undone and noted; the next one runs. What the summary calls spend is passed to `charge`.
[[nodiscard]] Task<CompactionOutcome> compactHistory(std::shared_ptr<Agent::State> state,
                                                     std::vector<llm::Message> messages, CompactionPlan plan,
                                                     std::function<void(const llm::Usage&)> charge);

}  // namespace reagent::agent::detail
