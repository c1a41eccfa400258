#pragma once
/// \file
/// \brief `ProviderError`: why a model call failed.

#include <boost/describe/enum.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "reagent/llm/usage.hpp"

namespace reagent::llm {

enum class ProviderErrc {
    /// The provider throttled the request (HTTP 429); `retryAfter` says when to try again, if known.
    rate_limited,
    /// The provider failed (HTTP 5xx, or overloaded).
    server_error,
    /// The connection could not be made or broke.
    connection_failed,
    /// The request took longer than its limit.
    timeout,
    /// The provider rejected the request as malformed (HTTP 400, 404, 422); or a `ScriptedProvider` turn's
    /// expectation did not match it (`providerType` `script_mismatch`).
    invalid_request,
    /// Missing or wrong credentials (HTTP 401, 403).
    authentication,
    /// The account may not spend more: no credit or quota left, or a billing problem (OpenAI's
    /// `insufficient_quota`, which comes with HTTP 429; Anthropic's `billing_error`; HTTP 402). Never
    /// retried: waiting does not help, a person has to add credit or raise the limit.
    quota_exceeded,
    /// The response could not be understood.
    malformed_response,
    /// The model answered with nothing: no text (empty, or null content) and no tool call, as a reply
    /// whose stream held only its end marker. Not retried: the same request tends to get the same
    /// answer; the message says why the model stopped.
    empty_reply,
    /// The caller cancelled the request.
    cancelled,
    /// The provider's configuration is incomplete (no API key, unknown provider name, ...); or a
    /// `ScriptedProvider` has no turn left for the request (`providerType` `script_exhausted`).
    configuration,
};
BOOST_DESCRIBE_ENUM(ProviderErrc, rate_limited, server_error, connection_failed, timeout, invalid_request,
                    authentication, quota_exceeded, malformed_response, empty_reply, cancelled, configuration)

[[nodiscard]] std::string_view toString(ProviderErrc code) noexcept;

/// \brief A failed model call: a code, a message a person can act on, and the provider's own words.
struct ProviderError {
    ProviderErrc code = ProviderErrc::server_error;
    std::string message;
    /// HTTP status, when the failure came from an HTTP response.
    std::optional<int> httpStatus;
    /// The provider's own error type (Anthropic `overloaded_error`, OpenAI `insufficient_quota`,
    /// `ScriptedProvider`'s `script_exhausted`, ...).
    std::string providerType;
    /// A delay the provider asked for before a retry.
    std::optional<std::chrono::milliseconds> retryAfter;
    /// What the failed call spent, as far as the API reported it before failing: a stream cut after its
    /// first event counts the input (and the output so far). The HTTP providers add the usage of attempts
    /// that failed before a retry, to the reply or to the last error. Zero when unknown.
    Usage usage{};

    /// \brief True for failures a later attempt may well not hit: rate limits, server errors, broken
    /// connections. The HTTP providers retry exactly these. Not timeouts (a slow model would make the
    /// caller wait the whole deadline once per attempt), never `quota_exceeded`.
    [[nodiscard]] bool retryable() const noexcept;
    /// \brief `"<code>: <message>"`, with the provider's type and status when known.
    [[nodiscard]] std::string describe() const;
};

}  // namespace reagent::llm
