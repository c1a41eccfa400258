#include "reagent/core/effect_error.hpp"

namespace reagent {

std::string_view toString(EffectErrc code) noexcept {
    switch (code) {
        case EffectErrc::timeout:
            return "timeout";
        case EffectErrc::cancelled:
            return "cancelled";
        case EffectErrc::exception:
            return "exception";
    }
    return "unknown";
}

std::string detail::describeError(std::string_view code, std::string_view message) {
    std::string text;
    text.reserve(code.size() + 2 + message.size());
    text.append(code).append(": ").append(message);
    return text;
}

}  // namespace reagent
