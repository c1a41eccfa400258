#pragma once
/// \file
/// \brief `ModelRequest` and `ModelReply`: one round trip to a model.

#include <boost/describe/enum.hpp>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/llm/message.hpp"
#include "reagent/llm/retry_notice.hpp"
#include "reagent/llm/stream_delta.hpp"
#include "reagent/llm/tool_list.hpp"

namespace reagent::llm {

/// \brief What the model is asked.
struct ModelRequest {
    /// The conversation so far; a leading system message, if any, carries the system prompt.
    std::vector<Message> messages;
    /// The tools offered, shared (not copied) between the requests of a run.
    ToolList tools;
    /// Sampling temperature; the provider's default when unset.
    std::optional<double> temperature;
    /// Upper bound of tokens in the reply; the provider's default when unset.
    std::optional<int> maxTokens;
    /// Receives the reply as it streams in (text pieces, tool calls taking shape), on the caller's
    /// executor, before `complete` returns the assembled reply. Empty (the default): nobody needs the
    /// deltas, and a provider may ask for the whole reply at once. Providers that cannot stream ignore it.
    /// A streamed reply that fails after a delta was delivered is not retried.
    std::function<void(const StreamDelta&)> onDelta{};
    /// Told before each retry of a failed attempt, on the caller's executor, with the wait that follows
    /// (see `RetryNotice`). Empty (the default): nobody is told. Providers that do not retry never call it.
    std::function<void(const RetryNotice&)> onRetry{};
};

/// \brief Why the model stopped.
enum class StopReason {
    /// It finished its answer.
    end_turn,
    /// It asked for tool calls.
    tool_use,
    /// It hit the token limit.
    max_tokens,
    /// It produced a stop sequence.
    stop_sequence,
    /// Anything else the provider reported.
    other,
};
BOOST_DESCRIBE_ENUM(StopReason, end_turn, tool_use, max_tokens, stop_sequence, other)

[[nodiscard]] std::string_view toString(StopReason reason) noexcept;

/// \brief Tokens spent, as the provider reports them.
struct Usage {
    std::int64_t inputTokens = 0;
    std::int64_t outputTokens = 0;

    [[nodiscard]] std::int64_t total() const noexcept { return inputTokens + outputTokens; }
    Usage& operator+=(const Usage& other) noexcept {
        inputTokens += other.inputTokens;
        outputTokens += other.outputTokens;
        return *this;
    }
    friend bool operator==(const Usage&, const Usage&) = default;
};

/// \brief The model's answer: text and/or tool calls. Its content is untrusted.
struct ModelReply {
    std::string text;
    std::vector<ToolCall> toolCalls;
    StopReason stopReason = StopReason::end_turn;
    Usage usage;
    /// The model that answered, when the provider says.
    std::string model;
};

}  // namespace reagent::llm
