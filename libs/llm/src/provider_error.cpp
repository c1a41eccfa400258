#include "reagent/llm/provider_error.hpp"

#include "reagent/core/error.hpp"

namespace reagent::llm {

std::string_view toString(ProviderErrc code) noexcept {
    switch (code) {
        case ProviderErrc::rate_limited:
            return "rate_limited";
        case ProviderErrc::server_error:
            return "server_error";
        case ProviderErrc::connection_failed:
            return "connection_failed";
        case ProviderErrc::timeout:
            return "timeout";
        case ProviderErrc::invalid_request:
            return "invalid_request";
        case ProviderErrc::authentication:
            return "authentication";
        case ProviderErrc::quota_exceeded:
            return "quota_exceeded";
        case ProviderErrc::malformed_response:
            return "malformed_response";
        case ProviderErrc::empty_reply:
            return "empty_reply";
        case ProviderErrc::cancelled:
            return "cancelled";
        case ProviderErrc::configuration:
            return "configuration";
    }
    return "unknown";
}

bool ProviderError::retryable() const noexcept {
    switch (code) {
        case ProviderErrc::rate_limited:
        case ProviderErrc::server_error:
        case ProviderErrc::connection_failed:
            return true;
        default:
            return false;
    }
}

std::string ProviderError::describe() const {
    std::string text = reagent::detail::describeError(toString(code), message);
    // The provider's own words help when reporting an issue upstream: "(HTTP 529, overloaded_error)".
    if (httpStatus || !providerType.empty()) {
        text += " (";
        if (httpStatus) {
            text += "HTTP " + std::to_string(*httpStatus);
        }
        if (!providerType.empty()) {
            text += httpStatus ? ", " : "";
            text += providerType;
        }
        text += ")";
    }
    return text;
}

}  // namespace reagent::llm
