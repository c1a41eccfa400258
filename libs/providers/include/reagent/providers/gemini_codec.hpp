#pragma once
/// \file
/// \brief The Gemini API `generateContent` wire format, without I/O.

#include <optional>
#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/http/http_headers.hpp"
#include "reagent/http/sse_parser.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/llm/stream_delta.hpp"
#include "reagent/providers/codec_options.hpp"
#include "reagent/providers/encoded_request.hpp"
#include "reagent/providers/reply_assembler.hpp"

/// \brief The Gemini `generateContent` codec: request encoding, response and stream decoding.
namespace reagent::providers::gemini {

/// \brief Encodes `request` as a `GenerateContentRequest`; `path` is
/// `/v1beta/models/<model>:generateContent`, or `:streamGenerateContent?alt=sse` when streaming.
///
/// System messages become `systemInstruction`. `contents` alternate roles `user` and `model`; an
/// assistant message is a `model` turn of a text part and `functionCall` {name, args} parts, each with
/// the `thoughtSignature` its call carried (Gemini 3 rejects replayed calls without it); consecutive tool
/// results become one `user` turn of `functionResponse` {name, response: {result} or {error}} parts, in
/// call order. Gemini has no call ids here: responses match calls by name and order (a result without a
/// tool name takes the name of the call with its id). Tools are one `functionDeclarations` entry;
/// `generationConfig` carries `temperature` and `maxOutputTokens` when set. Tool names go through a
/// `ToolNameMap` with `gemini` rules.
[[nodiscard]] EncodedRequest encodeRequest(const llm::ModelRequest& request, const CodecOptions& options);

/// \brief As above, with the request's tools already encoded: `tools` must be
/// `encodeTools(request.tools, options)`, made once for every request offering that list.
[[nodiscard]] EncodedRequest encodeRequest(const llm::ModelRequest& request, const CodecOptions& options,
                                           const EncodedTools& tools);

/// \brief The tool declarations of `tools` and their name map (see `encodeRequest`).
[[nodiscard]] EncodedTools encodeTools(const llm::ToolList& tools, const CodecOptions& options);

/// \brief Decodes a non-streamed `GenerateContentResponse` (the first candidate).
///
/// Calls get the `id` Gemini sent, if any, else a stable synthesized one (`ReplyAssembler`). Thought
/// parts (`thought: true`) are not part of the text. `finishReason` STOP is `end_turn` (`tool_use` with
/// calls), MAX_TOKENS `max_tokens`, anything else (SAFETY, RECITATION, MALFORMED_FUNCTION_CALL, ...)
/// `other`. Output usage counts candidate and thought tokens.
///
/// \par Errors
/// A non-2xx status gives `httpError` (the `error.status`, such as `RESOURCE_EXHAUSTED`, as
/// `providerType`; a `RetryInfo` delay as `retryAfter`). A blocked prompt (no candidate, a
/// `promptFeedback.blockReason`) gives `invalid_request` with the reason as `providerType`; a body that
/// is not a response gives `malformed_response`.
[[nodiscard]] expected<llm::ModelReply, llm::ProviderError> decodeResponse(
    int httpStatus, std::string_view body, const ToolNameMap& names, const http::HttpHeaders& headers = {});

/// \brief Decodes `streamGenerateContent?alt=sse`: each event's data is a whole `GenerateContentResponse`
/// carrying the next parts; the last one has the `finishReason` and the final usage.
///
/// \par Errors
/// As `decodeResponse`, per chunk; after a failure every call returns that error. `finish` fails with
/// `connection_failed` if no `finishReason` arrived.
class StreamDecoder {
  public:
    explicit StreamDecoder(ToolNameMap names);

    /// \brief Consumes one SSE event; returns the deltas it produced.
    [[nodiscard]] expected<std::vector<llm::StreamDelta>, llm::ProviderError> feed(
        const http::SseEvent& event);
    /// \brief True once a `finishReason` arrived.
    [[nodiscard]] bool complete() const noexcept { return assembler_.stopReasonKnown(); }
    /// \brief The assembled reply, once the stream has ended.
    [[nodiscard]] expected<llm::ModelReply, llm::ProviderError> finish() const;

  private:
    ReplyAssembler assembler_;
    std::optional<llm::ProviderError> failure_;
};

}  // namespace reagent::providers::gemini
