#include "reagent/llm/provider_error.hpp"

#include "reagent/core/enum_name.hpp"
#include "reagent/core/error.hpp"

namespace reagent::llm {

std::string_view toString(ProviderErrc code) noexcept {
    return enumName(code);
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
