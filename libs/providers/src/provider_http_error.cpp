#include "reagent/providers/provider_http_error.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include "json_access.hpp"
#include "reagent/http/redacted_url.hpp"
#include "reagent/http/retry_after.hpp"
#include "stream_error.hpp"

namespace reagent::providers {

namespace {

using detail::Json;
using llm::ProviderErrc;
using std::chrono::milliseconds;

// What the four error-body shapes have in common.
struct ErrorBody {
    std::string type;
    std::string message;
    std::optional<std::int64_t> code;
    /// A textual `code` (OpenAI: "insufficient_quota", "invalid_api_key").
    std::string codeName;
    std::optional<milliseconds> retryDelay;
};

// A protobuf Duration in JSON ("37s", "1.5s"), as Gemini's RetryInfo carries it.
std::optional<milliseconds> parseDuration(std::string_view text) {
    if (text.size() < 2 || text.back() != 's') {
        return std::nullopt;
    }
    text.remove_suffix(1);
    double seconds = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (ec != std::errc() || end != text.data() + text.size() || !(seconds >= 0) || seconds > 1e9) {
        return std::nullopt;
    }
    return milliseconds(static_cast<std::int64_t>(std::llround(seconds * 1000)));
}

std::optional<milliseconds> geminiRetryInfo(const Json& error) {
    const auto* details = detail::arrayMember(error, "details");
    if (details == nullptr) {
        return std::nullopt;
    }
    for (const Json& entry : *details) {
        if (detail::stringOr(entry, "@type") == "type.googleapis.com/google.rpc.RetryInfo") {
            if (const auto delay = detail::stringMember(entry, "retryDelay")) {
                return parseDuration(*delay);
            }
        }
    }
    return std::nullopt;
}

ErrorBody readErrorBody(const Json& body) {
    ErrorBody out;
    // Gemini's non-SSE streaming endpoint wraps responses, errors included, in an array.
    const Json& root = body.is_array() && !body.get_array().empty() ? body.get_array().front() : body;
    const Json* error = detail::member(root, "error");
    if (error == nullptr) {
        return out;
    }
    if (error->is_string()) {
        out.message = std::string(detail::text(*error));  // Ollama: {"error": "..."}
        return out;
    }
    out.message = detail::stringOr(*error, "message");
    if (auto type = detail::stringMember(*error, "type")) {
        out.type = std::move(*type);  // Anthropic, OpenAI
    } else if (auto status = detail::stringMember(*error, "status")) {
        out.type = std::move(*status);  // Gemini
    } else if (auto code = detail::stringMember(*error, "code")) {
        out.type = std::move(*code);
    }
    out.code = detail::integerMember(*error, "code");
    out.codeName = detail::stringOr(*error, "code");
    out.retryDelay = geminiRetryInfo(*error);
    return out;
}

// A spent quota or a billing problem is said by the type or the code, whatever the status: OpenAI sends
// `insufficient_quota` with 429, which would otherwise read as a rate limit and be retried in vain.
bool quotaExceeded(const ErrorBody& info) noexcept {
    return errcForErrorType(info.type, ProviderErrc::server_error) == ProviderErrc::quota_exceeded ||
           errcForErrorType(info.codeName, ProviderErrc::server_error) == ProviderErrc::quota_exceeded;
}

std::optional<milliseconds> parseRetryAfterMs(std::string_view text) {
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || !(value >= 0) || value > 1e15) {
        return std::nullopt;
    }
    return milliseconds(static_cast<std::int64_t>(std::llround(value)));
}

}  // namespace

ProviderErrc errcForStatus(int httpStatus) noexcept {
    if (httpStatus == 429) {
        return ProviderErrc::rate_limited;
    }
    if (httpStatus == 401 || httpStatus == 403) {
        return ProviderErrc::authentication;
    }
    if (httpStatus == 402) {
        return ProviderErrc::quota_exceeded;
    }
    if (httpStatus == 408) {
        return ProviderErrc::timeout;
    }
    if (httpStatus >= 400 && httpStatus < 500) {
        return ProviderErrc::invalid_request;
    }
    return ProviderErrc::server_error;
}

ProviderErrc errcForErrorType(std::string_view type, ProviderErrc fallback) noexcept {
    static constexpr std::array<std::pair<std::string_view, ProviderErrc>, 23> kTypes = {{
        // Anthropic
        {"overloaded_error", ProviderErrc::server_error},
        {"api_error", ProviderErrc::server_error},
        {"rate_limit_error", ProviderErrc::rate_limited},
        {"authentication_error", ProviderErrc::authentication},
        {"permission_error", ProviderErrc::authentication},
        {"billing_error", ProviderErrc::quota_exceeded},
        {"invalid_request_error", ProviderErrc::invalid_request},
        {"not_found_error", ProviderErrc::invalid_request},
        {"request_too_large", ProviderErrc::invalid_request},
        {"timeout_error", ProviderErrc::timeout},
        // OpenAI (invalid_request_error above is shared)
        {"server_error", ProviderErrc::server_error},
        {"rate_limit_exceeded", ProviderErrc::rate_limited},
        {"insufficient_quota", ProviderErrc::quota_exceeded},
        // Gemini (google.rpc.Code names)
        {"RESOURCE_EXHAUSTED", ProviderErrc::rate_limited},
        {"UNAVAILABLE", ProviderErrc::server_error},
        {"INTERNAL", ProviderErrc::server_error},
        {"UNKNOWN", ProviderErrc::server_error},
        {"DEADLINE_EXCEEDED", ProviderErrc::timeout},
        {"UNAUTHENTICATED", ProviderErrc::authentication},
        {"PERMISSION_DENIED", ProviderErrc::authentication},
        {"INVALID_ARGUMENT", ProviderErrc::invalid_request},
        {"FAILED_PRECONDITION", ProviderErrc::invalid_request},
        {"NOT_FOUND", ProviderErrc::invalid_request},
    }};
    for (const auto& [name, code] : kTypes) {
        if (name == type) {
            return code;
        }
    }
    return fallback;
}

std::optional<milliseconds> retryDelay(const http::HttpHeaders& headers,
                                       std::chrono::system_clock::time_point now) {
    if (const auto millis = headers.find("retry-after-ms")) {
        if (auto delay = parseRetryAfterMs(http::trimWhitespace(*millis))) {
            return delay;
        }
    }
    if (const auto value = headers.find("retry-after")) {
        return parseRetryAfter(*value, now);
    }
    return std::nullopt;
}

llm::ProviderError httpError(std::string_view provider, int httpStatus, std::string_view body,
                             const http::HttpHeaders& headers, std::chrono::system_clock::time_point now) {
    llm::ProviderError error;
    error.code = errcForStatus(httpStatus);
    error.httpStatus = httpStatus;
    if (httpStatus >= 300 && httpStatus < 400) {
        // Model APIs do not redirect: the base URL points somewhere else (an old host, a login page).
        error.code = ProviderErrc::configuration;
        const auto location = headers.find("location");
        error.message =
            std::string(provider) + ": HTTP " + std::to_string(httpStatus) + " redirect" +
            (location ? " to '" + http::redactedUrl(*location) + "'" : std::string(" without a Location")) +
            ": redirects are not followed; set the base URL to the API's address (not retried)";
        return error;
    }
    const detail::ParsedJson parsed(body);
    ErrorBody info = parsed ? readErrorBody(*parsed) : ErrorBody{};
    if (quotaExceeded(info)) {
        error.code = ProviderErrc::quota_exceeded;
    }
    error.providerType = std::move(info.type);
    error.message = std::string(provider) + ": ";
    if (!info.message.empty()) {
        error.message += info.message;
    } else if (!body.empty()) {
        error.message +=
            "HTTP " + std::to_string(httpStatus) + " with an unexpected body: " + detail::excerpt(body);
    } else {
        error.message += "HTTP " + std::to_string(httpStatus) + " with an empty body";
    }
    if (error.code == ProviderErrc::authentication) {
        error.message += " (check the API key and that it may use this model)";
    } else if (error.code == ProviderErrc::quota_exceeded) {
        error.message += " (not retried: add credit or raise the account's limits)";
    }
    error.retryAfter = retryDelay(headers, now);
    if (!error.retryAfter) {
        error.retryAfter = info.retryDelay;
    }
    return error;
}

llm::ProviderError streamError(std::string_view provider, const nlohmann::json& body) {
    const detail::ParsedJson parsed(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    return detail::streamError(provider, parsed ? *parsed : Json());
}

llm::ProviderError detail::streamError(std::string_view provider, const Json& body) {
    ErrorBody info = readErrorBody(body);
    llm::ProviderError error;
    const ProviderErrc byCode =
        info.code ? errcForStatus(static_cast<int>(*info.code)) : ProviderErrc::server_error;
    error.code = quotaExceeded(info) ? ProviderErrc::quota_exceeded : errcForErrorType(info.type, byCode);
    error.providerType = std::move(info.type);
    error.retryAfter = info.retryDelay;
    error.message = std::string(provider) + ": the stream reported an error: " +
                    (info.message.empty() ? detail::excerpt(detail::serialize(body)) : info.message);
    return error;
}

llm::ProviderError incompleteStream(std::string_view provider, std::string_view missing) {
    llm::ProviderError error;
    error.code = ProviderErrc::connection_failed;
    error.message = std::string(provider) + ": the stream ended before the reply was complete (" +
                    std::string(missing) + ")";
    return error;
}

llm::ProviderError malformedResponse(std::string_view provider, std::string_view what) {
    llm::ProviderError error;
    error.code = ProviderErrc::malformed_response;
    error.message = std::string(provider) + ": " + std::string(what);
    return error;
}

}  // namespace reagent::providers
