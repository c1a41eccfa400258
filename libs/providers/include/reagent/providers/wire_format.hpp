#pragma once
/// \file
/// \brief `WireFormat`: what one model API's HTTP exchange consists of, as a value, and the four formats
/// reagent speaks (`wire::anthropic()`, `wire::openai()`, `wire::gemini()`, `wire::ollama()`).

#include <cstddef>
#include <cstdint>
#include <memory>
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
#include "reagent/providers/provider_config.hpp"

namespace reagent::providers {

/// \brief Turns the raw bytes of a streamed 2xx body into deltas, then into the assembled reply.
class StreamDecoding {
  public:
    virtual ~StreamDecoding() = default;
    /// \brief Consumes the next body bytes (split anywhere). After a failure every call fails alike.
    [[nodiscard]] virtual expected<std::vector<llm::StreamDelta>, llm::ProviderError> feed(
        std::string_view bytes) = 0;
    /// \brief Bytes held for the event or line in progress (bounded by `ProviderConfig::maxEventBytes`).
    [[nodiscard]] virtual std::size_t pendingBytes() const noexcept = 0;
    /// \brief Events (SSE) or lines (NDJSON) seen so far: none in a whole body means it was no stream.
    [[nodiscard]] virtual std::size_t framesSeen() const noexcept = 0;
    /// \brief The usage the stream has reported so far (input from its first event, with some APIs), for
    /// a stream that fails before its end. The default reports none.
    [[nodiscard]] virtual llm::Usage usageSoFar() const { return {}; }
    /// \brief The body ended: the assembled reply, or why it is incomplete (`connection_failed` when the
    /// end of the reply never arrived).
    [[nodiscard]] virtual expected<llm::ModelReply, llm::ProviderError> finish() = 0;
};

/// \brief One model API's wire format: names, defaults and the sans-io steps of an exchange, as plain
/// function pointers. `HttpProvider` runs any of them; a fifth API is one more value.
///
/// Every function must be safe to call from several threads at once (the built-in ones keep no state),
/// and none may throw except `std::bad_alloc`.
struct WireFormat {
    /// The API's name, as `Provider::name()` returns it and error messages begin ("anthropic").
    std::string name;
    /// The base URL used when `ProviderConfig::baseUrl` is empty: the API's root, its version included
    /// ("https://api.anthropic.com/v1"). Request paths are relative to it.
    std::string defaultBaseUrl;
    /// The model used when `ProviderConfig::model` is empty.
    std::string defaultModel;
    /// Encodes the declarations of a tool list and the name map they use. `HttpProvider` calls it once
    /// per distinct list and reuses the result for every request offering that list.
    EncodedTools (*encodeTools)(const llm::ToolList& tools, const CodecOptions& options) = nullptr;
    /// Encodes `request` with its tools as `encodeTools` gave them: the body, the path relative to the
    /// base URL (with a query if any: `/models/m:streamGenerateContent?alt=sse`), and the name map.
    EncodedRequest (*encodeRequest)(const llm::ModelRequest& request, const CodecOptions& options,
                                    const EncodedTools& tools) = nullptr;
    /// Says why the API cannot take `request` (an attachment it has no form for: "ollama cannot take a PDF
    /// document (message 2, 'report.pdf')"), before anything is sent: `HttpProvider` then fails the call
    /// with `invalid_request` and this text. None when it can. Null: the format takes every request.
    std::optional<std::string> (*refuse)(const llm::ModelRequest& request,
                                         const CodecOptions& options) = nullptr;
    /// Decodes a whole response of any status: a non-2xx status is the error its body describes
    /// (`httpError`), a 2xx body the reply.
    expected<llm::ModelReply, llm::ProviderError> (*decodeReply)(int status, std::string_view body,
                                                                 const ToolNameMap& names,
                                                                 const http::HttpHeaders& headers) = nullptr;
    /// A decoder for a streamed 2xx body (SSE or NDJSON, as the API streams).
    std::unique_ptr<StreamDecoding> (*streamDecoder)(ToolNameMap names) = nullptr;
    /// Adds the authentication header fields for `apiKey`, which may be empty.
    void (*authenticate)(http::HttpHeaders& headers, const std::string& apiKey) = nullptr;
    /// Encodes `request` for the API's token-counting endpoint: the prompt as `encodeRequest` sends it
    /// (messages, system prompt, tools), without the reply's options. Null: the API has none.
    EncodedRequest (*encodeCount)(const llm::ModelRequest& request, const CodecOptions& options,
                                  const EncodedTools& tools) = nullptr;
    /// Decodes the counting endpoint's response of any status: the prompt's tokens, or the error a
    /// non-2xx status describes. Set with `encodeCount`.
    expected<std::int64_t, llm::ProviderError> (*decodeCount)(int status, std::string_view body,
                                                              const http::HttpHeaders& headers) = nullptr;
};

/// \brief The wire formats reagent speaks, one value each.
namespace wire {

/// \brief Anthropic Messages API: `POST {base}/messages`, base `https://api.anthropic.com/v1`, model
/// `claude-sonnet-4-5`; `x-api-key` and `anthropic-version: 2023-06-01` headers; SSE streams.
///
/// System messages become the top-level `system` string. User text is a string `content`; an assistant
/// message with tool calls has `text` and `tool_use` blocks {id, name, input}; consecutive tool results
/// become ONE user message of `tool_result` blocks {tool_use_id, content, is_error (only when true)}, as
/// parallel tool use requires. Tools are {name, description, input_schema}. `max_tokens` is always sent
/// (`request.maxTokens`, else `CodecOptions::defaultMaxTokens`); `temperature` only when set; `stream`
/// always. Empty assistant messages are skipped (the API rejects empty content). With
/// `CodecOptions::promptCaching` (the default) the last tool, the system prompt (then a text block) and
/// the last message's last block carry `cache_control: {type: "ephemeral"}`. An output schema goes in
/// `output_config.format` {type: "json_schema", schema} as the API accepts it (objects closed, unenforced
/// constraints moved into descriptions; a recursive schema is not sent), or, for Claude models without
/// structured outputs (`NativeOutput::tool`), as a forced answer tool whose call is read back as the
/// reply's text. Replies: Anthropic's
/// `error.type` is the `providerType` of errors (529 is `server_error`); a stream's `error` event fails
/// it with its own error; thinking and server-tool blocks are ignored, as the API asks clients to
/// tolerate new ones.
[[nodiscard]] const WireFormat& anthropic();

/// \brief OpenAI Chat Completions, also spoken by compatible servers (vLLM, llama.cpp, Ollama's /v1,
/// ...): `POST {base}/chat/completions`, base `https://api.openai.com/v1`, model `gpt-4.1`;
/// `Authorization: Bearer` (only when a key is set); SSE streams.
///
/// System messages stay in place as `system` messages. An assistant message carries `content` (null when
/// it only calls tools) and `tool_calls` [{id, type: "function", function: {name, arguments}}] with the
/// arguments as a JSON string; each tool result is a `tool` message with `tool_call_id`. Tools are
/// [{type: "function", function: {name, description, parameters}}]. `temperature` and the token limit
/// (`max_tokens`, or `max_completion_tokens` per `CodecOptions`) only when the request sets them.
/// Streaming adds `stream_options: {include_usage: true}`. An output schema is `response_format`
/// {type: "json_schema", json_schema: {name, schema, strict}}, strict when the schema meets strict mode's
/// rules. Replies: the first choice; `finish_reason`
/// `stop` is `end_turn`, `tool_calls` (and the legacy `function_call`) `tool_use`, `length`
/// `max_tokens`, anything else `other`; a `refusal` is appended to the text; OpenAI's `error.type` (such
/// as `insufficient_quota`) is the `providerType` of errors.
[[nodiscard]] const WireFormat& openai();

/// \brief Gemini API `generateContent`: `POST {base}/models/{model}:generateContent` (streamed:
/// `:streamGenerateContent?alt=sse`), base `https://generativelanguage.googleapis.com/v1beta`, model
/// `gemini-2.5-flash`; `x-goog-api-key` header; SSE streams.
///
/// System messages become `systemInstruction`. `contents` alternate roles `user` and `model`; an
/// assistant message is a `model` turn of a text part and `functionCall` {name, args} parts, each with the
/// `thoughtSignature` its call carried (Gemini 3 rejects replayed calls without it); consecutive tool
/// results become one `user` turn of `functionResponse` {name, response: {result} or {error}} parts, in
/// call order (a result without a tool name takes the name of the call with its id). Tools are one
/// `functionDeclarations` entry; `generationConfig` carries `temperature` and `maxOutputTokens` when set,
/// and an output schema as `responseJsonSchema` with `responseMimeType: "application/json"` (by default
/// not beside tools on models before Gemini 3, which refuse it).
/// Replies: the first candidate; calls get Gemini's `id`, else a stable synthesized one; thought parts
/// are not text; `finishReason` STOP is `end_turn` (`tool_use` with calls), MAX_TOKENS `max_tokens`,
/// anything else `other`; output usage counts candidate and thought tokens. Errors take `error.status`
/// (`RESOURCE_EXHAUSTED`) as `providerType` and a `RetryInfo` delay as `retryAfter`; a blocked prompt is
/// `invalid_request` with the block reason as `providerType`.
[[nodiscard]] const WireFormat& gemini();

/// \brief Ollama native API: `POST {base}/chat`, base `http://127.0.0.1:11434/api`, model `qwen3`; no
/// authentication (`Authorization: Bearer` when a key is set); NDJSON streams.
///
/// Messages keep their roles; an assistant message carries `tool_calls` [{function: {name, arguments}}]
/// with the arguments as a JSON object; a tool result is a `tool` message with `tool_name`. Tools are
/// declared as OpenAI does, their `parameters` reduced to what Ollama reads. `stream` is always sent;
/// `options` carries `temperature` and `num_predict` when set; an output schema is `format`. Replies:
/// `done_reason` `stop` is `end_turn` (`tool_use` with calls), `length` `max_tokens`, else `other`;
/// `prompt_eval_count` and `eval_count` are the usage; a body or line with `error` fails with it.
[[nodiscard]] const WireFormat& ollama();

/// \brief The format of `kind`.
[[nodiscard]] const WireFormat& forKind(ProviderKind kind) noexcept;

}  // namespace wire

}  // namespace reagent::providers
