#pragma once
// An answer's JSON Schema (`ModelRequest::output`) as each API's structured-output mode accepts it.
// Internal to the providers library.
//
// The APIs constrain decoding with a subset of JSON Schema and refuse (400) a schema outside it. These
// functions adapt a schema to a subset, or say it cannot be: the caller then sends it in a looser mode or
// not at all. The run validates the answer against the original schema either way, so what an adaptation
// drops is still enforced, by a re-ask instead of by the decoder.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "reagent/llm/model_request.hpp"
#include "reagent/providers/codec_options.hpp"

namespace reagent::providers::detail {

/// `schema` without the root's `$schema` and `$id`, which name a dialect and an identity and constrain
/// nothing (Gemini and Ollama take the rest as it is).
[[nodiscard]] nlohmann::json withoutRootMetadata(const nlohmann::json& schema);

/// OpenAI's strict mode: `schema` with `additionalProperties: false` made explicit on every object, when
/// the schema meets the strict rules (an object at the root; every object closed, with all its
/// properties required; no keyword strict mode refuses, such as `allOf`, `oneOf`, `not`, `if`,
/// `patternProperties`, `uniqueItems`). None otherwise: the schema is then sent with `strict: false`.
[[nodiscard]] std::optional<nlohmann::json> openAiStrictSchema(const nlohmann::json& schema);

/// Anthropic's structured outputs: `schema` with every object closed (`additionalProperties: false`),
/// `oneOf` read as `anyOf`, and the constraints the API does not enforce (`minimum`, `maxLength`,
/// `pattern`, `minItems` above 1, unknown string formats, ...) moved into the node's `description` so the
/// model still reads them. None when the API cannot take the schema at all: a recursive `$ref`, or a node
/// with no `type`, `enum`, `const`, `$ref` or `anyOf`/`oneOf`/`allOf`.
[[nodiscard]] std::optional<nlohmann::json> anthropicSchema(const nlohmann::json& schema);

/// True when `request` asks for an output form and `options` do not keep it out of the API's field
/// (`NativeOutput::never`). Formats add their own `automatic` rules.
[[nodiscard]] bool sendsOutput(const llm::ModelRequest& request, const CodecOptions& options) noexcept;

/// The OpenAI `json_schema` name for `format`: its name when valid, else "output".
[[nodiscard]] std::string outputName(const llm::OutputFormat& format);

}  // namespace reagent::providers::detail
