#pragma once
// EmbeddingFormat: one embedding API's exchange as a value (the request's path and body, the reply's
// vectors), as `WireFormat` is for chat; `makeEmbedder` runs them over HTTP. Sans-io. Internal to the
// providers library.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/http/http_headers.hpp"
#include "reagent/llm/embedder.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/providers/provider_config.hpp"

namespace reagent::providers::detail {

/// One embedding request: where to send it and what.
struct EmbeddingRequest {
    /// Path relative to the versioned base URL ("/embeddings", "/models/m:batchEmbedContents").
    std::string path;
    /// Compact JSON, object keys in sorted order; invalid UTF-8 in the texts has become U+FFFD.
    std::string body;
};

/// One embedding API. Every function is stateless and safe to call from several threads at once.
struct EmbeddingFormat {
    /// The API's name: `Embedder::name()`, and the start of every message ("openai").
    std::string_view name;
    /// The model used when `ProviderConfig::model` is empty.
    std::string_view defaultModel;
    /// The most texts one request carries (`Embedder::maxBatch()`). At least 1.
    std::size_t maxBatch = 1;
    /// The request embedding `texts` (1 to `maxBatch` of them) with `model`, for `purpose`.
    EmbeddingRequest (*encode)(const std::vector<std::string>& texts, llm::EmbeddingPurpose purpose,
                               std::string_view model) = nullptr;
    /// A whole response of any status: the `count` vectors it must hold, in the texts' order (their
    /// `model` is `model` when the reply names none); else the error its status and body describe
    /// (`httpError`), or `malformed_response` (not JSON, a count of vectors other than `count`, an empty
    /// vector, vectors of different dimensions, a value that is no number in a float's range).
    expected<llm::Embeddings, llm::ProviderError> (*decode)(int status, std::string_view body,
                                                            const http::HttpHeaders& headers,
                                                            std::size_t count,
                                                            std::string_view model) = nullptr;
};

/// The embedding API of `kind` (OpenAI `/embeddings`, Gemini `:batchEmbedContents`, Ollama `/embed`); null
/// for an API without one (Anthropic).
[[nodiscard]] const EmbeddingFormat* embeddingFormat(ProviderKind kind) noexcept;

}  // namespace reagent::providers::detail
