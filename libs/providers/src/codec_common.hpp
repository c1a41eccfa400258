#pragma once
// Pieces of request encoding and reply decoding that several wire formats share. Internal to the providers
// library.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json_access.hpp"
#include "json_writer.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/http/http_headers.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/llm/stream_delta.hpp"
#include "reagent/providers/codec_options.hpp"
#include "reagent/providers/encoded_request.hpp"
#include "reagent/providers/reply_assembler.hpp"
#include "reagent/providers/tool_name_map.hpp"

namespace reagent::providers::detail {

/// Writes the members of a request body that sort before `tools`, in sorted key order (see `JsonWriter`),
/// the tool names as `names` maps them.
using FieldWriter = void (*)(JsonWriter& out, const llm::ModelRequest& request, const CodecOptions& options,
                             const ToolNameMap& names);

/// A request as every format encodes it: a JSON object of `write`'s members, then `tools` (every
/// format's last key) when there are any, to be sent to `path`.
[[nodiscard]] EncodedRequest encodeBody(std::string path, const llm::ModelRequest& request,
                                        const CodecOptions& options, const EncodedTools& tools,
                                        FieldWriter write);

/// A token-counting request: `encoded`'s body (a JSON object) keeping only the fields `keep` names
/// (Anthropic's `count_tokens` refuses the reply's options), or wrapped as `{wrap: {model, ...}}` (Gemini's
/// `countTokens` takes a whole `generateContentRequest`), sent to `path`.
[[nodiscard]] EncodedRequest countRequest(EncodedRequest encoded, std::string path,
                                          std::initializer_list<std::string_view> keep);
[[nodiscard]] EncodedRequest countRequest(EncodedRequest encoded, std::string path, std::string_view wrap,
                                          std::string_view model);
/// A counting endpoint's response: the integer `field` of a 2xx body, else the error its status and body
/// describe (`httpError`).
[[nodiscard]] expected<std::int64_t, llm::ProviderError> decodeCount(std::string_view provider, int status,
                                                                     std::string_view body,
                                                                     const http::HttpHeaders& headers,
                                                                     std::string_view field);

/// Every system message's text, joined by a blank line (for formats with one top-level system prompt).
[[nodiscard]] std::string systemPrompt(const llm::ModelRequest& request);

/// The tool's input schema, or an empty object schema when it has none (providers require one).
[[nodiscard]] const nlohmann::json& toolSchema(const llm::ToolSpec& tool);

/// `schema` with only what Ollama's tool declaration reads: at the top `type`, `$defs`, `items`,
/// `required` and `properties`; in each property `type`, `items`, `description` and `enum`. Ollama's
/// server decodes parameters into fixed structures and drops everything else (`default`, `minimum`,
/// `additionalProperties`, ...) before the model sees it, and its SDK's types declare exactly these.
[[nodiscard]] nlohmann::json ollamaSchema(const nlohmann::json& schema);

/// How a function tool's `parameters` are written.
enum class SchemaDialect {
    json_schema,  ///< the tool's JSON Schema as it is (OpenAI and compatible servers)
    ollama,       ///< `ollamaSchema` of it
};

/// Tools as OpenAI and Ollama declare them: [{type: "function", function: {name, description, parameters}}].
[[nodiscard]] EncodedTools functionTools(const llm::ToolList& tools, SchemaDialect dialect);

/// A call's arguments as sent back to a provider: an object (a non-object value from a broken reply is
/// wrapped as {"value": ...}, since every format wants an object).
[[nodiscard]] nlohmann::json argumentsObject(const nlohmann::json& arguments);

/// `argumentsObject(arguments)` as JSON text, without copying an object.
[[nodiscard]] std::string argumentsJson(const nlohmann::json& arguments);

/// Sets `Authorization: Bearer <key>`, unless `key` is empty (OpenAI-compatible servers and Ollama often
/// need none).
void setBearer(http::HttpHeaders& headers, const std::string& key);

/// The part of decoding a whole reply that is the format's own: reads the parsed `reply` into `assembler`
/// (`deltas` takes what the assembler reports, unused here) and returns the error it carries or is, if
/// any. `body` is the raw text, to quote in messages.
using ReplyReader = std::optional<llm::ProviderError> (*)(const Json& reply, std::string_view body,
                                                          ReplyAssembler& assembler,
                                                          std::vector<llm::StreamDelta>& deltas);

/// Decodes a whole (not streamed) response, as every format begins: a non-2xx status gives the error its
/// body describes (`httpError`); a 2xx body must be a JSON object, parsed leniently (`ParsedJson`), else
/// `malformed_response` ("the response is not a JSON object: ..."); `read` then reads it into a
/// `ReplyAssembler` for `provider`, whose `finish` gives the reply.
[[nodiscard]] expected<llm::ModelReply, llm::ProviderError> decodeReply(std::string_view provider, int status,
                                                                        std::string_view body,
                                                                        const ToolNameMap& names,
                                                                        const http::HttpHeaders& headers,
                                                                        ReplyReader read);

}  // namespace reagent::providers::detail
