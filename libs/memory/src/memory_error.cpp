#include "reagent/memory/memory_error.hpp"

#include "reagent/core/enum_name.hpp"

namespace reagent::memory {

std::string_view toString(MemoryErrc code) noexcept {
    return enumName(code);
}

}  // namespace reagent::memory
