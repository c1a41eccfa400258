#include "reagent/llm/model_request.hpp"

#include "reagent/core/enum_name.hpp"

namespace reagent::llm {

std::string_view toString(StopReason reason) noexcept {
    return enumName(reason);
}

}  // namespace reagent::llm
