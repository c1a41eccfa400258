#include "reagent/memory/memory_error.hpp"

namespace reagent::memory {

std::string_view toString(MemoryErrc code) noexcept {
    switch (code) {
        case MemoryErrc::invalid_key:
            return "invalid_key";
        case MemoryErrc::not_found:
            return "not_found";
        case MemoryErrc::too_large:
            return "too_large";
        case MemoryErrc::storage_error:
            return "storage_error";
        case MemoryErrc::busy:
            return "busy";
        case MemoryErrc::not_a_store:
            return "not_a_store";
    }
    return "unknown";
}

}  // namespace reagent::memory
