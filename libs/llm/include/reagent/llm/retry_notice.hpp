#pragma once
/// \file
/// \brief `RetryNotice`: a provider is about to wait and try a failed model call again.

#include <chrono>
#include <string>

#include "reagent/llm/provider_error.hpp"

namespace reagent::llm {

/// \brief Sent to `ModelRequest::onRetry` before each retry's wait, so a caller can show it (a CLI trace
/// line "rate limited, retrying in 2.0 s (attempt 2 of 3)").
struct RetryNotice {
    /// The attempt that failed, 1-based.
    int attempt = 1;
    /// Attempts allowed in total (`RetryPolicy::maxAttempts`).
    int maxAttempts = 1;
    /// How long the provider waits before the next attempt.
    std::chrono::milliseconds wait{0};
    /// True when `wait` is what the server asked for (`Retry-After`, `retry-after-ms`, Gemini's
    /// `RetryInfo`), false when it is the computed backoff.
    bool serverAsked = false;
    /// Why the attempt failed (its message never holds the API key).
    ProviderError error;
};

/// \brief Sent to `ModelRequest::onThrottle` when a provider holds a request back to keep to its rate
/// limits (`providers::RateLimits`), before the wait.
struct ThrottleNotice {
    std::chrono::milliseconds wait{0};
    /// Which limit: "60 requests per minute", "8 requests in flight (maxConcurrent)", "the API said
    /// x-ratelimit-remaining-requests: 0", ...
    std::string reason;
    /// True when the wait lasts until a request in flight ends (`wait` is then zero).
    bool untilRelease = false;
};

/// \brief Sent to `ModelRequest::onFallback` when a `FallbackProvider` gives a failed request to the next
/// provider of its chain.
struct FallbackNotice {
    /// The provider that failed and the one that takes the request, as "name:model" ("anthropic:claude-
    /// sonnet-4-5"; the name alone when the provider does not say its model).
    std::string from;
    std::string to;
    /// Why: the failure, after the failed provider's own retries.
    ProviderError error;
};

}  // namespace reagent::llm
