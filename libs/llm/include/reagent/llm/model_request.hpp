#pragma once
/// \file
/// \brief `ModelRequest` and `ModelReply`: one round trip to a model.

#include <boost/describe/enum.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/core/trace_context.hpp"
#include "reagent/llm/message.hpp"
#include "reagent/llm/retry_notice.hpp"
#include "reagent/llm/stream_delta.hpp"
#include "reagent/llm/tool_list.hpp"
#include "reagent/llm/usage.hpp"

namespace reagent::telemetry {
class Tracer;
}  // namespace reagent::telemetry

namespace reagent::llm {

/// \brief The JSON value a final answer must be: a schema the API constrains the reply to, where it can
/// (structured output).
///
/// Providers send it in their API's own field (OpenAI `response_format`, Anthropic `output_config`,
/// Gemini `responseJsonSchema`, Ollama `format`), adapted to what that API accepts; the schema still
/// constrains only replies in text: the model may call tools first. A provider that cannot constrain a
/// reply ignores it. Whoever asked still validates the answer: an API's constraint is a help, not a proof.
struct OutputFormat {
    /// A name for the schema, `^[a-zA-Z0-9_-]{1,64}$` (OpenAI requires one): "output" by default.
    std::string name = "output";
    /// The JSON Schema of the answer.
    nlohmann::json schema;

    friend bool operator==(const OutputFormat&, const OutputFormat&) = default;
};

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
    /// The form of a final answer (see `OutputFormat`), shared (not copied) between the requests of a run;
    /// null (the default): any text.
    std::shared_ptr<const OutputFormat> output{};
    /// Receives the reply as it streams in (text pieces, tool calls taking shape), on the caller's
    /// executor, before `complete` returns the assembled reply. Empty (the default): nobody needs the
    /// deltas, and a provider may ask for the whole reply at once. Providers that cannot stream ignore it.
    /// A streamed reply that fails after a delta was delivered is not retried.
    std::function<void(const StreamDelta&)> onDelta{};
    /// Told before each retry of a failed attempt, on the caller's executor, with the wait that follows
    /// (see `RetryNotice`). Empty (the default): nobody is told. Providers that do not retry never call it.
    std::function<void(const RetryNotice&)> onRetry{};
    /// Told when a `FallbackProvider` moves the request to its next provider (see `FallbackNotice`).
    std::function<void(const FallbackNotice&)> onFallback{};
    /// Told when the provider holds the request back for its rate limits (see `ThrottleNotice`).
    std::function<void(const ThrottleNotice&)> onThrottle{};
    /// The span of this call (`chat {model}`), passed on to the API as W3C `traceparent` and
    /// `tracestate` headers by the HTTP providers; not valid (the default) when nothing is traced.
    SpanContext trace{};
    /// Where the HTTP providers' spans of this call's attempts come from (`POST`, kind client, under
    /// `trace`); null (the default): none, and `trace` itself is sent.
    telemetry::Tracer* tracer = nullptr;
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

/// \brief The model's answer: text and/or tool calls. Its content is untrusted.
struct ModelReply {
    std::string text;
    std::vector<ToolCall> toolCalls;
    StopReason stopReason = StopReason::end_turn;
    Usage usage;
    /// The model that answered, when the provider says.
    std::string model;
    /// The response's id, when the API gives one (OpenAI's and Anthropic's `id`, Gemini's `responseId`).
    std::string id{};
};

}  // namespace reagent::llm
