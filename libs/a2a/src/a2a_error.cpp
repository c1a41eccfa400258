#include "reagent/a2a/a2a_error.hpp"

#include "reagent/core/enum_name.hpp"

namespace reagent::a2a {

std::string_view toString(A2aErrc code) noexcept {
    return enumName(code);
}

}  // namespace reagent::a2a
