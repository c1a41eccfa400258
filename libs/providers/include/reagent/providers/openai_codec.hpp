#pragma once
/// \file
/// \brief The OpenAI Chat Completions wire format (`POST /chat/completions`), shared by OpenAI-compatible
/// servers (vLLM, llama.cpp, Ollama's /v1, ...), without I/O.

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

/// \brief The OpenAI Chat Completions codec: request encoding, response and stream decoding.
namespace reagent::providers::openai {

/// \brief Encodes `request` as a Chat Completions body; `path` is relative to a base URL that ends in
/// `/v1` ("https://api.openai.com/v1").
///
/// System messages stay in place as `system` messages. An assistant message carries `content` (null
/// when it only calls tools) and `tool_calls` [{id, type: "function", function: {name, arguments}}]
/// with the arguments as a JSON string; each tool result is a `tool` message with `tool_call_id`. Tools
/// are [{type: "function", function: {name, description, parameters}}]. `temperature` and the token
/// limit (`max_tokens`, or `max_completion_tokens` per `CodecOptions`) are sent only when the request
/// sets them. Streaming adds `stream_options: {include_usage: true}` so usage arrives at the end. Tool
/// names go through a `ToolNameMap` with `standard` rules.
[[nodiscard]] EncodedRequest encodeRequest(const llm::ModelRequest& request, const CodecOptions& options);

/// \brief As above, with the request's tools already encoded: `tools` must be
/// `encodeTools(request.tools, options)`, made once for every request offering that list.
[[nodiscard]] EncodedRequest encodeRequest(const llm::ModelRequest& request, const CodecOptions& options,
                                           const EncodedTools& tools);

/// \brief The tool declarations of `tools` and their name map (see `encodeRequest`).
[[nodiscard]] EncodedTools encodeTools(const llm::ToolList& tools, const CodecOptions& options);

/// \brief Decodes a non-streamed response (the first choice).
///
/// `finish_reason` maps `stop` to `end_turn`, `tool_calls` (and the legacy `function_call`) to
/// `tool_use`, `length` to `max_tokens`, anything else (`content_filter`) to `other`. A `refusal` is
/// appended to the text, streamed or not.
///
/// \par Errors
/// A non-2xx status gives `httpError` (OpenAI's `error.type`, such as `insufficient_quota`, as
/// `providerType`). A 2xx body without a choice gives `malformed_response`; so do tool-call arguments
/// that are not valid JSON (the message names the tool).
[[nodiscard]] expected<llm::ModelReply, llm::ProviderError> decodeResponse(
    int httpStatus, std::string_view body, const ToolNameMap& names, const http::HttpHeaders& headers = {});

/// \brief Decodes a streamed response (`stream: true`) chunk by chunk.
///
/// Text arrives in `delta.content`; tool calls in `delta.tool_calls[]`, assembled by their `index`: the
/// id and name come first, the `arguments` string in fragments across chunks. `finish_reason` arrives in
/// the last chunk with a choice, usage in a final chunk with no choices, then `data: [DONE]`.
///
/// \par Errors
/// `feed` fails with the stream's error for a chunk carrying `error`, or `malformed_response` for data
/// that is neither JSON nor `[DONE]`; after a failure every call returns that error. `finish` fails with
/// `connection_failed` if neither a `finish_reason` nor `[DONE]` arrived, and with `malformed_response`
/// for tool-call arguments that are not valid JSON.
class StreamDecoder {
  public:
    explicit StreamDecoder(ToolNameMap names);

    /// \brief Consumes one SSE event; returns the deltas it produced.
    [[nodiscard]] expected<std::vector<llm::StreamDelta>, llm::ProviderError> feed(
        const http::SseEvent& event);
    /// \brief True once the reply is complete (`finish_reason` or `[DONE]` arrived).
    [[nodiscard]] bool complete() const noexcept { return done_ || assembler_.stopReasonKnown(); }
    /// \brief The assembled reply, once the stream has ended.
    [[nodiscard]] expected<llm::ModelReply, llm::ProviderError> finish() const;

  private:
    ReplyAssembler assembler_;
    bool done_ = false;
    std::optional<llm::ProviderError> failure_;
};

}  // namespace reagent::providers::openai
