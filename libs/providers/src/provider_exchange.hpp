#pragma once
// What every HTTP exchange with a model API shares, whatever it asks for (a reply, a token count, vectors):
// the client's configuration, transport failures in the provider's terms, the retry decision, and the
// clean-up of error messages. Internal to the providers library; `HttpProvider` and the HTTP embedders
// both run `reagent::retry` with these.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "reagent/core/retry.hpp"
#include "reagent/core/task.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/http/http_client_config.hpp"
#include "reagent/http/http_error.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/llm/retry_notice.hpp"
#include "reagent/providers/provider_config.hpp"

namespace reagent::providers::detail {

/// `url` without its trailing '/'s.
[[nodiscard]] std::string withoutTrailingSlash(std::string url);

/// The HTTP client's settings taken from `config`: timeouts, body limit, idle connections, CA file, proxy.
[[nodiscard]] http::HttpClientConfig clientConfig(const ProviderConfig& config);

/// A failure of the transport, in the provider's terms: `timeout`, `cancelled`, `configuration` (a bad
/// URL or request), `malformed_response` for a body past `maxResponseBytes` (not retried: the same request
/// would get the same body), else `connection_failed`. The message starts with `provider`.
[[nodiscard]] llm::ProviderError transportError(std::string_view provider, const http::HttpError& error);

/// Whether attempt `number` (1-based), which failed with `error`, is followed by another: only retryable
/// errors, none after a delta was delivered, and none when the server asked to wait longer than `maxWait`.
/// The wait is the server's `retryAfter`, else the policy's backoff; it is announced to `onRetry` (may be
/// empty; whatever it throws is dropped) before it starts.
[[nodiscard]] RetryDecision decideRetry(const llm::ProviderError& error, bool deltaDelivered,
                                        const RetryPolicy& policy, std::chrono::milliseconds maxWait,
                                        int number,
                                        const std::function<void(const llm::RetryNotice&)>& onRetry);

/// Every occurrence of `secret` in `text` becomes "***" (keys shorter than 4 bytes are left alone: masking
/// them would mangle ordinary words without protecting anything).
void maskSecret(std::string& text, std::string_view secret);

/// A retryable error whose server asked for a wait longer than `maxWait` says so in its message (it is
/// not retried: `decideRetry`).
void capRetryWait(llm::ProviderError& error, std::chrono::milliseconds maxWait);

/// One attempt of a whole (not streamed) exchange: `request` sent with `client`, the reply given to
/// `decode(status, body, headers)`; a transport failure as `transportError`; an error's message without
/// the key, its wait capped (`maskSecret`, `capRetryWait`).
template <class T, class Decode>
Task<expected<T, llm::ProviderError>> attemptExchange(std::shared_ptr<http::HttpClient> client,
                                                      std::shared_ptr<const http::HttpRequest> request,
                                                      std::string provider, std::string apiKey,
                                                      std::chrono::milliseconds maxWait, Decode decode) {
    auto sending = client->send(*request);  // started outside the co_await: no temporary in its frame
    auto response = co_await std::move(sending);
    expected<T, llm::ProviderError> outcome =
        response ? decode(response->status, response->body, response->headers)
                 : expected<T, llm::ProviderError>(fail(transportError(provider, response.error())));
    if (!outcome) {
        maskSecret(outcome.error().message, apiKey);
        capRetryWait(outcome.error(), maxWait);
    }
    co_return outcome;
}

/// A whole exchange (a token count, vectors) with the retries of `config`: `attemptExchange` again while
/// `decideRetry` says so, each retry announced to `onRetry` (may be empty).
template <class T, class Decode>
Task<expected<T, llm::ProviderError>> exchangeWithRetries(
    std::shared_ptr<http::HttpClient> client, std::shared_ptr<const http::HttpRequest> request,
    std::string provider, const ProviderConfig& config, Decode decode,
    std::function<void(const llm::RetryNotice&)> onRetry) {
    // A plain lambda making a fresh coroutine per attempt; the request is what the attempts share.
    auto once = [client, request, provider, apiKey = config.apiKey, maxWait = config.maxRetryWait, decode] {
        return attemptExchange<T>(client, request, provider, apiKey, maxWait, decode);
    };
    auto decide = [policy = config.retry, maxWait = config.maxRetryWait, onRetry = std::move(onRetry)](
                      const llm::ProviderError& error, int number) {
        return decideRetry(error, false, policy, maxWait, number, onRetry);
    };
    co_return co_await retry(config.retry, std::move(once), std::move(decide));
}

}  // namespace reagent::providers::detail
