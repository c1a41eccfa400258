#pragma once
/// \file
/// \brief Turning provider error responses into `ProviderError`: status codes, error bodies, Retry-After.

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "reagent/http/http_headers.hpp"
#include "reagent/http/retry_after.hpp"
#include "reagent/llm/provider_error.hpp"

namespace reagent::providers {

/// \brief The error code for an HTTP status: 429 `rate_limited`; 401 and 403 `authentication`; 402
/// `quota_exceeded`; 408 `timeout`; other 4xx (400, 404, 413, 422, ...) `invalid_request`; 5xx (and
/// Anthropic's 529) `server_error`; anything else `server_error`.
[[nodiscard]] llm::ProviderErrc errcForStatus(int httpStatus) noexcept;

/// \brief The error code for a provider's own error type, for errors that arrive inside a stream without
/// a status: Anthropic types (`overloaded_error`, `rate_limit_error`, ...), OpenAI types, Gemini statuses
/// (`RESOURCE_EXHAUSTED`, `UNAVAILABLE`, ...). Unknown types give `fallback`.
[[nodiscard]] llm::ProviderErrc errcForErrorType(std::string_view type, llm::ProviderErrc fallback) noexcept;

/// \brief Parses a `Retry-After` value (`http::parseRetryAfter`, kept here for the providers' users).
using http::parseRetryAfter;

/// \brief The delay response headers ask for: `retry-after-ms` (milliseconds, possibly fractional, sent
/// by OpenAI) if valid, else `Retry-After` measured from `now` (when the response arrived), else nothing.
[[nodiscard]] std::optional<std::chrono::milliseconds> retryDelay(const http::HttpHeaders& headers,
                                                                  std::chrono::system_clock::time_point now);

/// \brief The error for a non-2xx response.
///
/// The code comes from the status (`errcForStatus`), except that a type or code saying the quota or
/// credit is spent (`insufficient_quota`, `billing_error`) gives `quota_exceeded` whatever the status
/// (OpenAI sends it with 429: it must not pass for a rate limit and be retried). The provider's type and
/// message are read from any
/// of the error bodies the four wire formats use: `{"type":"error","error":{"type","message"}}`
/// (Anthropic), `{"error":{"message","type","code"}}` (OpenAI), `{"error":{"code","message","status"}}`
/// (Gemini, also wrapped in an array), `{"error":"..."}` (Ollama). A body that is none of these (a proxy's
/// HTML page) is quoted, shortened, in the message. `retryAfter` comes from the headers (`retryDelay`),
/// else from a Gemini `RetryInfo.retryDelay` in the body. The message starts with `provider`
/// ("anthropic: ..."). A 3xx is a `configuration` error naming its `Location` (credentials masked):
/// redirects are not followed, the base URL is wrong.
[[nodiscard]] llm::ProviderError httpError(
    std::string_view provider, int httpStatus, std::string_view body, const http::HttpHeaders& headers,
    std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

/// \brief The error for an error object received inside a successful stream (an Anthropic `error`
/// event, an OpenAI or Gemini chunk with `error`, an Ollama line with `error`); the code comes from the
/// provider's type (`errcForErrorType`, default `server_error`).
[[nodiscard]] llm::ProviderError streamError(std::string_view provider, const nlohmann::json& body);

/// \brief A `connection_failed` error for a stream that ended before its reply was complete; `missing`
/// says what never arrived ("no stop_reason arrived").
[[nodiscard]] llm::ProviderError incompleteStream(std::string_view provider, std::string_view missing);

/// \brief A `malformed_response` error: "<provider>: <what>".
[[nodiscard]] llm::ProviderError malformedResponse(std::string_view provider, std::string_view what);

}  // namespace reagent::providers
