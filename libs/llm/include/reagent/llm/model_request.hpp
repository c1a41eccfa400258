#pragma once
/// \file
/// \brief `ModelRequest` and `ModelReply`: one round trip to a model.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "reagent/llm/message.hpp"

namespace reagent::llm {

/// \brief A tool as offered to the model.
struct ToolSpec {
    std::string name;
    std::string description;
    nlohmann::json inputSchema;
};

/// \brief What the model is asked.
struct ModelRequest {
    /// The conversation so far; a leading system message, if any, carries the system prompt.
    std::vector<Message> messages;
    std::vector<ToolSpec> tools;
    /// Sampling temperature; the provider's default when unset.
    std::optional<double> temperature;
    /// Upper bound of tokens in the reply; the provider's default when unset.
    std::optional<int> maxTokens;
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
