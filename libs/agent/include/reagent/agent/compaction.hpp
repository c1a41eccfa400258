#pragma once
/// \file
/// \brief Compaction: what keeps a long run or conversation inside the model's context window — the
/// strategies that shorten a history, their options, and the record of each compaction.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/agent/agent_error.hpp"
#include "reagent/agent/compaction_record.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/llm/message.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/llm/provider_error.hpp"

namespace reagent::memory {
class WorkingMemory;
}

namespace reagent::agent {

/// \brief What a strategy works on: the history, the parts it must leave alone, the count it must get
/// under, and the agent's model and working memory.
///
/// The history is `messages`: `[0, pinned)` is the system prompt and the first user message, never
/// touched; `messages[prompt]`, when there is one, is the user message the run answers (the last one),
/// never removed either; `[recent, size)` is the last `CompactionOptions::keepTurns` turns, kept
/// verbatim. A turn here is a user message, or a model reply with the results of the tools it called: a
/// strategy that removes messages removes whole turns, so a tool call and its result are never split.
struct CompactionContext {
    std::vector<llm::Message> messages;
    std::size_t pinned = 0;
    /// The last user message (not a summary) after the pinned ones; `kNoPrompt` when there is none.
    std::size_t prompt = kNoPrompt;
    std::size_t recent = 0;
    static constexpr std::size_t kNoPrompt = static_cast<std::size_t>(-1);
    /// The prompt's tokens to get to (or below).
    std::int64_t target = 0;
    /// The model's window, when known.
    std::optional<std::int64_t> window;
    CompactionReason reason = CompactionReason::threshold;
    /// The agent's working memory (where cleared tool results are kept for `recall`); null for none.
    memory::WorkingMemory* memory = nullptr;
    /// Calls the agent's model (without tools or streaming); what it spends counts in the run's usage
    /// and budget.
    std::function<Task<expected<llm::ModelReply, llm::ProviderError>>(llm::ModelRequest)> model;

    /// \brief The tokens `message` adds to the prompt, estimated and scaled to the API's last count.
    [[nodiscard]] std::int64_t tokensOf(const llm::Message& message) const;
    /// \brief The prompt's tokens with `messages` as they stand now (and the tools' declarations).
    [[nodiscard]] std::int64_t tokens() const;
    /// \brief Where the turn that `index` belongs to starts (`index` itself unless it is a tool result).
    [[nodiscard]] std::size_t turnStart(std::size_t index) const;
    /// \brief Where the turn after the one starting at `index` starts (`messages.size()` for the last).
    [[nodiscard]] std::size_t turnEnd(std::size_t index) const;

    /// Set by the compaction's driver: characters a token takes, the scale of the estimate to the API's
    /// count, the characters of the tools' declarations, and what the API counted beyond the scaled
    /// estimate (so that `tokens()` of the history as it came is the API's count).
    double charactersPerToken = 4.0;
    double scale = 1.0;
    std::int64_t toolCharacters = 0;
    std::int64_t uncounted = 0;
};

/// \brief One way of shortening a history. Strategies run in the order `CompactionOptions::strategies`
/// lists them until the prompt is at its target.
class CompactionStrategy {
  public:
    virtual ~CompactionStrategy() = default;
    /// \brief The name events and `Compaction::strategies` give it.
    [[nodiscard]] virtual std::string name() const = 0;
    /// \brief Shortens `context.messages` (never `[0, pinned)`), and says whether it changed anything.
    /// An error leaves the history as the strategy found it; the next strategy runs.
    [[nodiscard]] virtual Task<expected<bool, AgentError>> compact(CompactionContext& context) = 0;
};

/// \brief (1) Replaces the text of old tool results, oldest first, by a line naming the working-memory key
/// (`_tool_result_N`) that holds it, so `recall` still reads it: a result already compressed keeps the
/// key of its preview, another is stored under a new key. A result the memory cannot take stays. Named
/// `clear-tool-results`.
[[nodiscard]] std::shared_ptr<CompactionStrategy> clearToolResults();

/// \brief How `summarizeTurns` asks the model.
struct SummaryOptions {
    /// The reply's limit in tokens (the summary's budget).
    std::int64_t maxTokens = 1024;
    /// The instructions; empty: the built-in prompt (keep facts, decisions, open tasks, names, numbers).
    std::string prompt;
    /// A tool result longer than this is cut in the transcript the model reads (its key stays).
    std::size_t maxToolResultCharacters = 2000;
};

/// \brief (2) Replaces the older turns (between the pinned messages and the recent turns) by one user
/// message holding the model's summary of them, an earlier summary included. The transcript sent stays
/// inside the window: turns that do not fit are left for the next compaction. Named `summarize`.
[[nodiscard]] std::shared_ptr<CompactionStrategy> summarizeTurns(SummaryOptions options = {});

/// \brief (3) Removes the oldest turns after the pinned messages until the prompt is at its target; an
/// earlier summary goes last, and the last turn always stays. Named `drop-oldest`.
[[nodiscard]] std::shared_ptr<CompactionStrategy> dropOldestTurns();

/// \brief When and how a history is compacted (`AgentBuilder::withCompaction`).
///
/// Before each request the loop counts the prompt (`RunResult::context`). The prompt's room is the window
/// less the reply's reserve (`maxTokens`, else `replyReserve`). When the prompt passes `threshold` of its
/// room, the history is compacted down to `target` of it, then the request goes. A request that still
/// does not fit the window is not sent (`context_overflow`). When the API refuses a request as too long,
/// the history is compacted once to half its count and the request sent again.
struct CompactionOptions {
    /// Share of the prompt's room at which the history is compacted (default 80 %).
    double threshold = 0.8;
    /// Share of the prompt's room a compaction brings the prompt down to (default 50 %).
    double target = 0.5;
    /// Tokens kept free for the reply when the request sets no `maxTokens`.
    std::int64_t replyReserve = 4096;
    /// The turns kept verbatim at the end of the history.
    int keepTurns = 4;
    /// The strategies, in order; empty: clear tool results, summarize, drop the oldest turns.
    std::vector<std::shared_ptr<CompactionStrategy>> strategies;
    /// Before compacting on the estimate, asks the API for the exact count (`llm::Provider::countTokens`:
    /// Anthropic's `count_tokens`, Gemini's `countTokens`), and compacts only when that passes the
    /// threshold too. The exact count anchors the next estimates. An API that cannot count, or a count
    /// that fails, leaves the estimate (the compaction's notes say why).
    bool exactCounts = false;
};

}  // namespace reagent::agent
