#include "reagent/core/effect_error.hpp"

#include "reagent/core/enum_name.hpp"

namespace reagent {

std::string_view toString(EffectErrc code) noexcept {
    return enumName(code);
}

}  // namespace reagent
