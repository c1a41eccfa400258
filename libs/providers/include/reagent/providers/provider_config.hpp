#pragma once
/// \file
/// \brief `ProviderConfig`: which model API to call and how, and reading it from the environment.

#include <boost/describe/enum.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "reagent/core/expected.hpp"
#include "reagent/core/retry.hpp"
#include "reagent/http/http_headers.hpp"
#include "reagent/http/proxy_settings.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/providers/codec_options.hpp"

namespace reagent::providers {

/// \brief The wire formats reagent speaks.
enum class ProviderKind {
    /// Anthropic Messages API (`wire::anthropic()`).
    anthropic,
    /// OpenAI Chat Completions, also any OpenAI-compatible server (`wire::openai()`).
    openai,
    /// Gemini API (`wire::gemini()`).
    gemini,
    /// Ollama native API (`wire::ollama()`).
    ollama,
};
BOOST_DESCRIBE_ENUM(ProviderKind, anthropic, openai, gemini, ollama)

/// \brief `"anthropic"`, `"openai"`, `"gemini"` or `"ollama"`.
[[nodiscard]] std::string_view toString(ProviderKind kind) noexcept;
/// \brief The kind named `name` (as `toString` spells it), or nothing.
[[nodiscard]] std::optional<ProviderKind> parseProviderKind(std::string_view name) noexcept;

/// \brief Limits a provider object keeps to for all the requests it sends, so that many concurrent runs
/// wait their turn instead of failing with 429s. Requests wait (cancellably, told to
/// `ModelRequest::onThrottle`) until they fit; each rate is spread evenly, with bursts of at most a tenth
/// of a second's share.
struct RateLimits {
    /// Requests in flight at once; 0: no limit.
    int maxConcurrent = 0;
    /// Requests started per minute; 0: no limit.
    int requestsPerMinute = 0;
    /// Tokens per minute, each request counted at its estimate (body bytes / 4 + its reply limit), then
    /// corrected by its reported usage; 0: no limit.
    std::int64_t tokensPerMinute = 0;
    /// Obey the API's own rate-limit headers (`anthropic-ratelimit-requests-remaining` with its `-reset`,
    /// `x-ratelimit-remaining-requests` with `x-ratelimit-reset-requests`, and the same for tokens): when
    /// one says nothing remains, later requests wait for its reset; and a 429's `retry-after` holds every
    /// request of the provider. Default true.
    bool fromHeaders = true;
};

/// \brief Everything an HTTP provider needs; a plain struct, every field but `apiKey` has a default.
struct ProviderConfig {
    /// The wire format. Default `openai`.
    ProviderKind kind = ProviderKind::openai;
    /// Model id; empty: the wire format's `WireFormat::defaultModel`.
    std::string model;
    /// The API's base URL, its version included (`https://api.anthropic.com/v1`,
    /// `http://127.0.0.1:8080/v1`, `https://generativelanguage.googleapis.com/v1beta`,
    /// `http://127.0.0.1:11434/api`); empty: the format's `WireFormat::defaultBaseUrl`. Request paths
    /// (`/messages`, `/chat/completions`, ...) are appended to it as it is (`joinUrl`): a trailing '/' is
    /// ignored and a query string is kept after the path. Checked by `validateConfig`.
    std::string baseUrl;
    /// API key. Required for anthropic, openai and gemini; ollama sends it as a bearer token if set.
    std::string apiKey;
    /// Sampling temperature used when the request sets none; unset: the provider's default.
    std::optional<double> temperature;
    /// Reply token limit used when the request sets none; unset: the provider's default (Anthropic,
    /// which requires one, gets 4096).
    std::optional<int> maxTokens;
    /// Deadline of one attempt, streamed body included (default 600 s).
    std::chrono::milliseconds requestTimeout{600'000};
    /// Deadline of resolving and connecting (default 10 s).
    std::chrono::milliseconds connectTimeout{10'000};
    /// Longest silence inside a reply body, streamed or not: no byte for this long fails the attempt
    /// with `timeout` (default 120 s; zero disables it). See `http::HttpClientConfig::readTimeout`.
    std::chrono::milliseconds readTimeout{120'000};
    /// Most idle keep-alive connections kept open to the provider per `io_context` (count; default 100,
    /// the keep-alive limit of the official OpenAI Python SDK; 0 disables reuse). Runs in flight beyond it
    /// still proceed, each on a connection of its own; only the surplus is closed when they finish.
    std::size_t maxIdleConnections = 100;
    /// Largest reply body accepted, streamed or not (bytes; default 64 MiB; zero removes the limit). A
    /// larger body fails the call with `malformed_response`, not retried. See
    /// `http::HttpClientConfig::maxBodyBytes`.
    std::uint64_t maxResponseBytes = 64ULL * 1024 * 1024;
    /// Largest single event of a streamed reply: one SSE line or event, one NDJSON line (bytes; default
    /// 16 MiB; zero removes the limit). A longer one fails the call with `malformed_response`, not retried.
    std::size_t maxEventBytes = 16ULL * 1024 * 1024;
    /// Retries of rate limits, server errors and broken connections (default: 3 attempts, 200 ms
    /// doubling with 20% jitter; a server's `retry-after` replaces the computed delay).
    RetryPolicy retry{};
    /// Longest wait a server may ask for before a retry (`Retry-After`, `retry-after-ms`, Gemini's
    /// `RetryInfo`) (milliseconds; default 60 s). A longer request is not obeyed: the call fails at once
    /// with the server's error (`rate_limited`, `server_error`), its message saying what was asked.
    std::chrono::milliseconds maxRetryWait{60'000};
    /// Stream replies when the request has an `onDelta` subscriber (default true).
    bool stream = true;
    /// OpenAI format: send the token limit as `max_completion_tokens`, OpenAI's current name, which its
    /// reasoning models require, instead of `max_tokens`, which OpenAI-compatible servers read (default
    /// false). See `CodecOptions::openAiMaxCompletionTokens`.
    bool openAiMaxCompletionTokens = false;
    /// Gemini: declare tool schemas as `parametersJsonSchema` (default true); false sends them as
    /// `parameters`, for models without JSON Schema support. See `CodecOptions::geminiJsonSchemaParameters`.
    bool geminiJsonSchemaParameters = true;
    /// Whether a request's output schema goes in the API's structured-output field (OpenAI
    /// `response_format`, Anthropic `output_config`, Gemini `responseJsonSchema`, Ollama `format`).
    /// Default `automatic`; see `CodecOptions::nativeOutput`.
    NativeOutput nativeOutput = NativeOutput::automatic;
    /// Anthropic's cache breakpoints, placed automatically (default true); see `CodecOptions::promptCaching`.
    bool promptCaching = true;
    /// OpenAI `prompt_cache_key` (default empty: not sent); see `CodecOptions::promptCacheKey`.
    std::string promptCacheKey;
    /// Limits every request of this provider object keeps to, whichever agent or conversation sends it
    /// (see `RateLimits`). Default: none set, but the API's rate-limit headers are still obeyed.
    RateLimits rateLimits;
    /// Extra header fields sent with every request (after the authentication headers).
    http::HttpHeaders extraHeaders;
    /// PEM file of extra trusted CA certificates (default: none; the system store is always used).
    std::string caFile;
    /// HTTP proxies; unset (the default): read from the environment as curl does
    /// (`http::ProxySettings::fromEnvironment`). `ProxySettings{}` connects directly.
    std::optional<http::ProxySettings> proxy;
};

/// \brief Checks what `makeProvider` needs of `config`: an API key where the kind requires one, and a
/// base URL (when set) that is an absolute `http://` or `https://` URL with a host, a valid port and no
/// fragment. A query string is allowed (Azure's `?api-version=`): it is kept after the API path.
///
/// \par Errors
/// `configuration`, the message naming the problem (the missing variable; what is wrong with the URL,
/// which is quoted with its credentials masked).
[[nodiscard]] expected<void, llm::ProviderError> validateConfig(const ProviderConfig& config);

/// \brief Checks a base URL as `validateConfig` does; `provider` begins the message.
///
/// \par Errors
/// `configuration`, saying what is wrong with the URL, which is quoted with its credentials masked.
[[nodiscard]] expected<void, llm::ProviderError> validateBaseUrl(std::string_view provider,
                                                                 std::string_view url);

/// \brief `base` (a base URL, trailing '/' ignored) with the API `path` appended; a query string of
/// either is kept after the path, the base's first:
/// `https://x/openai/deployments/d?api-version=2024-10-21` + `/chat/completions` gives
/// `https://x/openai/deployments/d/chat/completions?api-version=2024-10-21`.
[[nodiscard]] std::string joinUrl(std::string_view base, std::string_view path);

/// \brief A `configuration` error with `message`.
[[nodiscard]] llm::ProviderError configurationError(std::string message);

/// \brief The configuration of `kind` from the environment.
///
/// Each variable keeps the meaning its own SDK or CLI gives it, and the base URL is made from it by one
/// rule: the variable names the API's root, versioned or not as its convention has it, and what the
/// convention leaves out of it is appended. anthropic: `ANTHROPIC_API_KEY` (required),
/// `ANTHROPIC_BASE_URL` (the host, as the Anthropic SDKs take it: `/v1` is appended). openai:
/// `OPENAI_API_KEY` (required), `OPENAI_BASE_URL` (up to and including `/v1`, as the OpenAI SDKs take
/// it: used as it is). gemini: `GEMINI_API_KEY` (required), `GEMINI_BASE_URL` (including the version,
/// `.../v1beta`: used as it is). ollama: `OLLAMA_HOST` (`host`, `host:port`, or a URL, as the ollama CLI
/// reads it; default `127.0.0.1:11434`: `/api` is appended, see `ollamaBaseUrl`), `OLLAMA_API_KEY`
/// (optional). Empty values count as unset; unset base URLs stay empty (the format's default).
///
/// \par Errors
/// `configuration` when a required key is missing; the message names the variable.
[[nodiscard]] expected<ProviderConfig, llm::ProviderError> configFromEnvironment(ProviderKind kind);

/// \brief The first provider configured in the environment, in the order anthropic, openai, gemini, then
/// ollama only if `OLLAMA_HOST` is set; nothing when none is.
[[nodiscard]] std::optional<ProviderConfig> detectProvider();

/// \brief The base URL of the Ollama API on the host `OLLAMA_HOST` denotes, as the ollama CLI parses it,
/// with `/api` appended (`"example:1234"` -> `http://example:1234/api`, `""` ->
/// `http://127.0.0.1:11434/api`, `https://h` -> `https://h:443/api`).
[[nodiscard]] std::string ollamaBaseUrl(std::string_view host);

}  // namespace reagent::providers
