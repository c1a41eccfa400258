#pragma once
// The stream decoding every wire format shares: body bytes cut into frames (SSE events or NDJSON lines),
// each frame read by the format, the first failure kept. Internal to the providers library.

#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "reagent/llm/provider_error.hpp"
#include "reagent/llm/stream_delta.hpp"
#include "reagent/providers/reply_assembler.hpp"
#include "reagent/providers/wire_format.hpp"

namespace reagent::providers::detail {

/// How a streamed body is cut into frames.
enum class Framing {
    sse,     ///< server-sent events (`http::SseParser`): a frame is an event, its type and its data
    ndjson,  ///< newline-delimited JSON: a frame is a line that is not blank (a trailing CR dropped)
};

/// The format's part of decoding a stream: reads one frame (`type` is the SSE event type, empty for
/// NDJSON) into `assembler`, appending the deltas to `out`, and sets `done` when the frame ends the reply
/// without a stop reason (OpenAI's `[DONE]`). Returns the error the frame carries or is, if any.
using FrameReader = std::optional<llm::ProviderError> (*)(std::string_view type, std::string_view data,
                                                          ReplyAssembler& assembler, bool& done,
                                                          std::vector<llm::StreamDelta>& out);

/// How one format streams.
struct StreamRules {
    /// Begins error messages ("anthropic").
    std::string_view provider;
    Framing framing = Framing::sse;
    FrameReader read = nullptr;
    /// What never arrived when a body ends before the reply is complete ("no stop_reason arrived").
    std::string_view missing;
};

/// A stream decoder following `rules` (which must outlive it). A failed frame fails that `feed` and
/// every later one that reaches a frame, and `finish`; `finish` also fails with `incompleteStream`
/// when the body ended with neither a stop reason nor `done`.
[[nodiscard]] std::unique_ptr<StreamDecoding> decodeStream(const StreamRules& rules, ToolNameMap names);

}  // namespace reagent::providers::detail
