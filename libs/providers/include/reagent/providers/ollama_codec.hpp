#pragma once
/// \file
/// \brief The Ollama native chat wire format (`POST /api/chat`), without I/O.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/http/http_headers.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/llm/stream_delta.hpp"
#include "reagent/providers/codec_options.hpp"
#include "reagent/providers/encoded_request.hpp"
#include "reagent/providers/reply_assembler.hpp"

/// \brief The Ollama `/api/chat` codec: request encoding, response and NDJSON stream decoding.
namespace reagent::providers::ollama {

/// \brief Encodes `request` as an `/api/chat` body.
///
/// Messages keep their roles; an assistant message carries `tool_calls` [{function: {name, arguments}}]
/// with the arguments as a JSON object; a tool result is a `tool` message with `tool_name`. Tools are
/// declared as OpenAI does. `stream` is always sent (Ollama streams by default); `options` carries
/// `temperature` and `num_predict` when the request sets them. Tool names go through a `ToolNameMap`
/// with `standard` rules.
[[nodiscard]] EncodedRequest encodeRequest(const llm::ModelRequest& request, const CodecOptions& options);

/// \brief As above, with the request's tools already encoded: `tools` must be
/// `encodeTools(request.tools, options)`, made once for every request offering that list.
[[nodiscard]] EncodedRequest encodeRequest(const llm::ModelRequest& request, const CodecOptions& options,
                                           const EncodedTools& tools);

/// \brief The tool declarations of `tools` and their name map (see `encodeRequest`).
[[nodiscard]] EncodedTools encodeTools(const llm::ToolList& tools, const CodecOptions& options);

/// \brief Decodes a non-streamed response: `message` {content, tool_calls}, `done_reason` (`stop` is
/// `end_turn`, or `tool_use` with calls; `length` is `max_tokens`; else `other`), `prompt_eval_count`
/// and `eval_count` as usage. Calls get Ollama's `id` when it sends one, else a synthesized one.
///
/// \par Errors
/// A non-2xx status gives `httpError` with Ollama's `error` text (a missing model is 404,
/// `invalid_request`). A body with `error` gives `server_error`; one without `message`,
/// `malformed_response`.
[[nodiscard]] expected<llm::ModelReply, llm::ProviderError> decodeResponse(
    int httpStatus, std::string_view body, const ToolNameMap& names, const http::HttpHeaders& headers = {});

/// \brief Decodes a streamed response: newline-delimited JSON objects, the last one with `done: true`,
/// `done_reason` and the counts. Tool calls arrive whole, in one line.
///
/// \par Errors
/// `feedLine`/`feed` fail with the stream's error for a line carrying `error`, or `malformed_response`
/// for a line that is not JSON; after a failure every call returns that error. `finish` fails with
/// `connection_failed` if no line had `done: true`.
class StreamDecoder {
  public:
    explicit StreamDecoder(ToolNameMap names);

    /// \brief Consumes one line (without its newline; a trailing CR and blank lines are ignored).
    [[nodiscard]] expected<std::vector<llm::StreamDelta>, llm::ProviderError> feedLine(std::string_view line);
    /// \brief Consumes raw body bytes, split anywhere; complete lines are decoded as `feedLine` does.
    [[nodiscard]] expected<std::vector<llm::StreamDelta>, llm::ProviderError> feed(std::string_view bytes);
    /// \brief Bytes of the line in progress, not yet terminated (a caller bounds it).
    [[nodiscard]] std::size_t pendingBytes() const noexcept { return pending_.size(); }
    /// \brief Lines that were not blank, so far.
    [[nodiscard]] std::size_t linesSeen() const noexcept { return lines_; }
    /// \brief True once a line with `done: true` arrived.
    [[nodiscard]] bool complete() const noexcept { return done_; }
    /// \brief Decodes a last line left without a newline, then returns the assembled reply.
    [[nodiscard]] expected<llm::ModelReply, llm::ProviderError> finish();

  private:
    ReplyAssembler assembler_;
    std::string pending_;
    std::size_t lines_ = 0;
    bool done_ = false;
    std::optional<llm::ProviderError> failure_;
};

}  // namespace reagent::providers::ollama
