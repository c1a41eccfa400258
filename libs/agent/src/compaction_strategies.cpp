// The built-in compaction strategies: clear old tool results, summarize older turns, drop the oldest turns.

#include <algorithm>
#include <cmath>
#include <utility>

#include "compaction_text.hpp"
#include "prompt_count.hpp"
#include "reagent/agent/compaction.hpp"
#include "reagent/memory/result_compressor.hpp"
#include "reagent/memory/working_memory.hpp"

namespace reagent::agent {

std::string_view toString(CompactionReason reason) noexcept {
    switch (reason) {
        case CompactionReason::threshold:
            return "threshold";
        case CompactionReason::context_error:
            return "context_error";
        case CompactionReason::manual:
            return "manual";
    }
    return "threshold";
}

std::int64_t CompactionContext::tokensOf(const llm::Message& message) const {
    const double characters = static_cast<double>(detail::messageCharacters(message));
    return static_cast<std::int64_t>(std::ceil(characters / charactersPerToken * scale)) +
           static_cast<std::int64_t>(message.attachments.size()) * detail::kTokensPerAttachment;
}

std::int64_t CompactionContext::tokens() const {
    std::int64_t total = uncounted + static_cast<std::int64_t>(std::ceil(static_cast<double>(toolCharacters) /
                                                                         charactersPerToken * scale));
    for (const llm::Message& message : messages) {
        total += tokensOf(message);
    }
    return std::max<std::int64_t>(total, 0);
}

std::size_t CompactionContext::turnStart(std::size_t index) const {
    while (index > 0 && index < messages.size() && messages[index].role == llm::Role::tool) {
        --index;
    }
    return index;
}

std::size_t CompactionContext::turnEnd(std::size_t index) const {
    std::size_t end = index + 1;
    while (end < messages.size() && messages[end].role == llm::Role::tool) {
        ++end;
    }
    return end;
}

namespace {

class ClearToolResults final : public CompactionStrategy {
  public:
    std::string name() const override { return "clear-tool-results"; }

    Task<expected<bool, AgentError>> compact(CompactionContext& context) override {
        co_return clear(context);
    }

  private:
    static bool clear(CompactionContext& context) {
        std::int64_t total = context.tokens();
        bool changed = false;
        const std::size_t end = std::min(context.recent, context.messages.size());
        for (std::size_t i = context.pinned; i < end && total > context.target; ++i) {
            llm::Message& message = context.messages[i];
            if (message.role != llm::Role::tool || detail::isClearedResult(message.text) ||
                message.text.size() <= detail::kClearedResultCharacters) {
                continue;
            }
            // A compressed result's preview names its key; trusted only while the memory holds it (a tool's
            // own output may begin the same way, and an entry may have been evicted since).
            std::string key = memory::storedKeyOf(message.text);
            if (!key.empty() && (context.memory == nullptr || context.memory->find(key) == nullptr)) {
                key.clear();
            }
            if (key.empty()) {
                if (context.memory == nullptr || !context.memory->fits(message.text.size())) {
                    continue;  // nowhere to keep it: it stays, nothing is lost
                }
                auto stored = context.memory->store(message.toolName, message.text);
                if (!stored) {
                    continue;
                }
                key = std::move(*stored);
            }
            const std::int64_t before = context.tokensOf(message);
            message.text = detail::clearedResult(key);
            total -= before - context.tokensOf(message);
            changed = true;
        }
        return changed;
    }
};

class SummarizeTurns final : public CompactionStrategy {
  public:
    explicit SummarizeTurns(SummaryOptions options) : options_(std::move(options)) {}

    std::string name() const override { return "summarize"; }

    Task<expected<bool, AgentError>> compact(CompactionContext& context) override {
        const std::size_t begin = context.pinned;
        const std::size_t end = std::min({context.recent, context.messages.size(), context.prompt});
        if (begin >= end || !context.model) {
            co_return false;
        }
        // The transcript the model reads must fit its window beside the prompt and the summary: half the
        // window, or, when the window is unknown, the target (a prompt that size is known to be taken).
        const std::int64_t room =
            (context.window ? *context.window / 2 : std::max<std::int64_t>(context.target, 1)) -
            options_.maxTokens;
        const auto maxCharacters = static_cast<std::size_t>(
            std::max<double>(0, static_cast<double>(room) * context.charactersPerToken));
        std::string transcript;
        std::size_t covered = begin;
        while (covered < end) {
            const std::size_t next = std::min(context.turnEnd(covered), end);
            std::string turn;
            for (std::size_t i = covered; i < next; ++i) {
                turn += detail::transcriptLine(context.messages[i], options_.maxToolResultCharacters);
            }
            if (transcript.size() + turn.size() > maxCharacters) {
                break;  // the rest waits for the next compaction
            }
            transcript += turn;
            covered = next;
        }
        // Nothing new to condense (only an earlier summary fits): a summary of it would be a paid call for
        // nothing.
        if (covered == begin || (covered == begin + 1 && detail::isSummary(context.messages[begin]))) {
            co_return false;
        }
        llm::ModelRequest request;
        request.messages.push_back(llm::Message::system(
            options_.prompt.empty() ? std::string(detail::kSummaryPrompt) : options_.prompt));
        request.messages.push_back(llm::Message::user(std::move(transcript)));
        request.maxTokens = static_cast<int>(std::min<std::int64_t>(options_.maxTokens, 1 << 30));
        auto reply = co_await context.model(std::move(request));
        if (!reply) {
            co_return fail(AgentError{AgentErrc::provider_failed,
                                      "the summary's model call failed: " + reply.error().describe()});
        }
        if (reply->text.empty()) {
            co_return fail(AgentError{AgentErrc::provider_failed, "the model gave an empty summary"});
        }
        auto& messages = context.messages;
        messages.erase(messages.begin() + static_cast<std::ptrdiff_t>(begin),
                       messages.begin() + static_cast<std::ptrdiff_t>(covered));
        messages.insert(messages.begin() + static_cast<std::ptrdiff_t>(begin),
                        llm::Message::user(std::string(detail::kSummaryHeading) + reply->text));
        context.recent -= covered - begin - 1;
        if (context.prompt != CompactionContext::kNoPrompt) {
            context.prompt -= covered - begin - 1;
        }
        co_return true;
    }

  private:
    SummaryOptions options_;
};

class DropOldestTurns final : public CompactionStrategy {
  public:
    std::string name() const override { return "drop-oldest"; }

    Task<expected<bool, AgentError>> compact(CompactionContext& context) override { co_return drop(context); }

  private:
    static bool drop(CompactionContext& context) {
        auto& messages = context.messages;
        if (messages.size() <= context.pinned) {
            return false;
        }
        const std::size_t last = context.turnStart(messages.size() - 1);  // the last turn always stays
        std::vector<bool> dropped(messages.size(), false);
        std::int64_t total = context.tokens();
        // Turns oldest first, an earlier summary only once no other turn is left.
        for (const bool summaries : {false, true}) {
            for (std::size_t at = context.pinned; at < last && total > context.target;) {
                const std::size_t next = std::min(context.turnEnd(at), last);
                if (!dropped[at] && at != context.prompt && detail::isSummary(messages[at]) == summaries) {
                    for (std::size_t i = at; i < next; ++i) {
                        dropped[i] = true;
                        total -= context.tokensOf(messages[i]);
                    }
                }
                at = next;
            }
        }
        std::size_t kept = 0;
        std::size_t recent = context.recent;
        std::size_t prompt = context.prompt;
        for (std::size_t i = 0; i < messages.size(); ++i) {
            if (dropped[i]) {
                recent -= i < context.recent ? 1 : 0;
                prompt -= i < context.prompt && prompt != CompactionContext::kNoPrompt ? 1 : 0;
                continue;
            }
            if (kept != i) {
                messages[kept] = std::move(messages[i]);
            }
            ++kept;
        }
        const bool changed = kept != messages.size();
        messages.resize(kept);
        context.recent = std::max(std::min(recent, messages.size()), context.pinned);
        context.prompt = prompt;
        return changed;
    }
};

}  // namespace

std::shared_ptr<CompactionStrategy> clearToolResults() {
    return std::make_shared<ClearToolResults>();
}

std::shared_ptr<CompactionStrategy> summarizeTurns(SummaryOptions options) {
    return std::make_shared<SummarizeTurns>(std::move(options));
}

std::shared_ptr<CompactionStrategy> dropOldestTurns() {
    return std::make_shared<DropOldestTurns>();
}

}  // namespace reagent::agent
