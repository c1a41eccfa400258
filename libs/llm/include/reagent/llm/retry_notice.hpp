#pragma once
/// \file
/// \brief `RetryNotice`: a provider is about to wait and try a failed model call again.

#include <chrono>

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

}  // namespace reagent::llm
