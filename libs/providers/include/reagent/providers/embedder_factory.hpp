#pragma once
/// \file
/// \brief `makeEmbedder`: an embedding model over HTTP (OpenAI, Gemini, Ollama), configured as a provider.

#include <memory>

#include "reagent/core/expected.hpp"
#include "reagent/llm/embedder.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/providers/provider_config.hpp"

namespace reagent::providers {

/// \brief The embedding API of `config.kind`, over HTTP.
///
/// - `openai`: `POST {base}/embeddings` with `{model, input: [texts], encoding_format: "float"}` and
///   `Authorization: Bearer` (only with a key); default model `text-embedding-3-small`; `maxBatch()` 128.
/// - `gemini`: `POST {base}/models/{model}:batchEmbedContents` with `{requests: [{model: "models/{model}",
///   content: {parts: [{text}]}, taskType}]}` and `x-goog-api-key`; default model `gemini-embedding-001`;
///   `maxBatch()` 100 (the API's limit).
/// - `ollama`: `POST {base}/embed` with `{model, input: [texts]}` (`Authorization: Bearer` only with a key);
///   default model `nomic-embed-text`; `maxBatch()` 64.
///
/// The base URL is the chat API's (`ProviderConfig::baseUrl`, else the same default as `makeProvider`);
/// an empty `ProviderConfig::model` takes the embedding default above, not the chat one. Gemini's
/// `taskType` is `RETRIEVAL_DOCUMENT` or `RETRIEVAL_QUERY` after the call's `llm::EmbeddingPurpose`; the
/// other APIs have no such field. OpenAI's vectors are ordered by their `index`; the usage is OpenAI's
/// `usage.prompt_tokens` or Ollama's `prompt_eval_count` (`inputTokens`), none for Gemini.
///
/// Read from `config`: kind, model, base URL, API key, the timeouts, `maxResponseBytes`,
/// `maxIdleConnections`, `retry` and `maxRetryWait`, `extraHeaders`, `caFile`, `proxy`. Not read: the
/// chat options and `rateLimits` (an embedder is not throttled by the provider's limiter).
///
/// \par Errors of makeEmbedder
/// `configuration`: the kind has no embeddings API (anthropic: the message suggests an embedding provider),
/// or `validateConfig` refuses `config` (no API key where the kind requires one, a bad base URL).
///
/// \par Errors of embed
/// `invalid_request` without any request for more texts than `maxBatch()` (callers split longer lists);
/// an empty list gives empty `llm::Embeddings` without any request. HTTP errors map as for chat
/// (`httpError`: 401 `authentication`, 429 `rate_limited`, ...), and rate limits, server errors and broken
/// connections are retried as `HttpProvider` retries them (`ProviderConfig::retry`, a server's
/// `retry-after` obeyed up to `maxRetryWait`). `malformed_response` (not retried) for a reply that is not
/// the API's JSON, a count of vectors other than the texts', an empty vector, vectors of different
/// dimensions, or a value that is no number a float can hold. The API key never appears in a message.
///
/// \par Cancellation
/// Cancelling the awaiting coroutine closes the connection and returns `cancelled`, also during a backoff.
///
/// \par Thread safety and lifetime
/// As `HttpProvider`: one embedder may serve several executors and threads at once; it must outlive the
/// calls it makes.
[[nodiscard]] expected<std::shared_ptr<llm::Embedder>, llm::ProviderError> makeEmbedder(
    ProviderConfig config);

}  // namespace reagent::providers
