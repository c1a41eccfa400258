#pragma once
/// \file
/// \brief The Anthropic Messages API wire format (`POST /v1/messages`), without I/O.

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

/// \brief The Anthropic Messages codec: request encoding, response and stream decoding.
namespace reagent::providers::anthropic {

/// \brief The `anthropic-version` header value this codec speaks.
inline constexpr std::string_view kApiVersion = "2023-06-01";

/// \brief Encodes `request` as a Messages API body.
///
/// System messages become the top-level `system` string. User text is a string `content`; an assistant
/// message with tool calls has `text` and `tool_use` blocks {id, name, input}; consecutive tool results
/// become ONE user message of `tool_result` blocks {tool_use_id, content, is_error (only when true)}, as
/// parallel tool use requires. Tools are {name, description, input_schema}. `max_tokens` is always sent
/// (`request.maxTokens`, else `options.defaultMaxTokens`); `temperature` only when set; `stream` always.
/// Empty assistant messages are skipped (the API rejects empty content). Tool names go through a
/// `ToolNameMap` with `standard` rules.
[[nodiscard]] EncodedRequest encodeRequest(const llm::ModelRequest& request, const CodecOptions& options);

/// \brief As above, with the request's tools already encoded: `tools` must be
/// `encodeTools(request.tools, options)`, made once for every request offering that list.
[[nodiscard]] EncodedRequest encodeRequest(const llm::ModelRequest& request, const CodecOptions& options,
                                           const EncodedTools& tools);

/// \brief The tool declarations of `tools` and their name map (see `encodeRequest`).
[[nodiscard]] EncodedTools encodeTools(const llm::ToolList& tools, const CodecOptions& options);

/// \brief Decodes a non-streamed response.
///
/// \par Errors
/// A non-2xx status gives `httpError` (Anthropic's `error.type` as `providerType`, 529 as
/// `server_error`). A 2xx body that is not a Messages response gives `malformed_response`.
[[nodiscard]] expected<llm::ModelReply, llm::ProviderError> decodeResponse(
    int httpStatus, std::string_view body, const ToolNameMap& names, const http::HttpHeaders& headers = {});

/// \brief Decodes a streamed response (`stream: true`) event by event.
///
/// Handles `message_start` (model, input usage), `content_block_start` (text, tool_use),
/// `content_block_delta` (`text_delta`, `input_json_delta`), `message_delta` (stop reason, cumulative
/// output usage), `message_stop`, `ping`, and `error`. Other events and block types (thinking, server
/// tools) are ignored, as the API asks clients to tolerate new ones.
///
/// \par Errors
/// `feed` fails with the stream's own error for an `error` event (code from its type:
/// `overloaded_error` is `server_error`, ...), or `malformed_response` for data that is not JSON. After a
/// failure every call returns that error. `finish` fails with `connection_failed` if the stream ended
/// before the stop reason arrived, and with `malformed_response` for a tool call whose arguments are not
/// valid JSON.
class StreamDecoder {
  public:
    explicit StreamDecoder(ToolNameMap names);

    /// \brief Consumes one SSE event; returns the deltas it produced.
    [[nodiscard]] expected<std::vector<llm::StreamDelta>, llm::ProviderError> feed(
        const http::SseEvent& event);
    /// \brief True once the reply is complete (its stop reason arrived).
    [[nodiscard]] bool complete() const noexcept { return assembler_.stopReasonKnown(); }
    /// \brief The assembled reply, once the stream has ended.
    [[nodiscard]] expected<llm::ModelReply, llm::ProviderError> finish() const;

  private:
    ReplyAssembler assembler_;
    std::optional<llm::ProviderError> failure_;
};

}  // namespace reagent::providers::anthropic
