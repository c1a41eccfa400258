#include "provider_exchange.hpp"

#include <optional>
#include <utility>

#include "reagent/core/settle.hpp"

namespace reagent::providers::detail {

namespace {

// "1.5 s", "90 s": a wait as a person reads it.
std::string secondsText(std::chrono::milliseconds wait) {
    const auto ms = wait.count();
    std::string text = std::to_string(ms / 1000);
    if (ms % 1000 != 0) {
        std::string fraction = std::to_string(ms % 1000);
        fraction.insert(0, 3 - fraction.size(), '0');
        while (fraction.back() == '0') {
            fraction.pop_back();
        }
        text += "." + fraction;
    }
    return text + " s";
}

}  // namespace

std::string withoutTrailingSlash(std::string url) {
    while (!url.empty() && url.back() == '/') {
        url.pop_back();
    }
    return url;
}

http::HttpClientConfig clientConfig(const ProviderConfig& config) {
    http::HttpClientConfig httpConfig;
    httpConfig.connectTimeout = config.connectTimeout;
    httpConfig.requestTimeout = config.requestTimeout;
    httpConfig.readTimeout = config.readTimeout;
    httpConfig.maxBodyBytes = config.maxResponseBytes;
    httpConfig.maxIdlePerHost = config.maxIdleConnections;
    httpConfig.caFile = config.caFile;
    httpConfig.proxy = config.proxy;
    return httpConfig;
}

llm::ProviderError transportError(std::string_view provider, const http::HttpError& error) {
    llm::ProviderErrc code = llm::ProviderErrc::connection_failed;
    switch (error.code) {
        case http::HttpErrc::timeout:
            code = llm::ProviderErrc::timeout;
            break;
        case http::HttpErrc::cancelled:
            code = llm::ProviderErrc::cancelled;
            break;
        case http::HttpErrc::invalid_url:
        case http::HttpErrc::invalid_request:
            code = llm::ProviderErrc::configuration;
            break;
        case http::HttpErrc::response_too_large: {
            // Not retried: the same request would get the same body.
            return llm::ProviderError{
                llm::ProviderErrc::malformed_response,
                std::string(provider) + ": " + error.describe() + " (ProviderConfig::maxResponseBytes)",
                std::nullopt,
                {},
                std::nullopt};
        }
        default:
            break;
    }
    return llm::ProviderError{
        code, std::string(provider) + ": " + error.describe(), std::nullopt, {}, std::nullopt};
}

// Retried: what a later attempt may well not hit, after the wait the server asked for when it is within
// `maxRetryWait` (else `capRetryWait` already said why not). Timeouts are not retried: a slow model would
// make the caller wait maxAttempts times the deadline.
RetryDecision decideRetry(const llm::ProviderError& error, bool deltaDelivered, const RetryPolicy& policy,
                          std::chrono::milliseconds maxWait, int number,
                          const std::function<void(const llm::RetryNotice&)>& onRetry) {
    if (deltaDelivered || !error.retryable() || (error.retryAfter && *error.retryAfter > maxWait)) {
        return RetryDecision::stop();
    }
    llm::RetryNotice notice;
    notice.attempt = number;
    notice.maxAttempts = policy.maxAttempts;
    notice.serverAsked = error.retryAfter.has_value();
    notice.wait = error.retryAfter ? *error.retryAfter : backoffDelay(policy, number - 1, jitterSample());
    notice.error = error;
    if (onRetry) {
        (void)settleCall(onRetry, notice);  // a subscriber must not be able to break the call
    }
    return RetryDecision::afterDelay(notice.wait);
}

void maskSecret(std::string& text, std::string_view secret) {
    if (secret.size() < 4) {
        return;
    }
    for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at + 3)) {
        text.replace(at, secret.size(), "***");
    }
}

void capRetryWait(llm::ProviderError& error, std::chrono::milliseconds maxWait) {
    if (error.retryable() && error.retryAfter && *error.retryAfter > maxWait) {
        error.message += " (the server asked to wait " + secondsText(*error.retryAfter) +
                         " before a retry, more than ProviderConfig::maxRetryWait of " +
                         secondsText(maxWait) + ": not retried)";
    }
}

}  // namespace reagent::providers::detail
