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

}  // namespace reagent
