#include "reagent/durable/durable_error.hpp"

#include "reagent/core/enum_name.hpp"

namespace reagent::durable {

std::string_view toString(DurableErrc code) noexcept {
    return enumName(code);
}

}  // namespace reagent::durable
