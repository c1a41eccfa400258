#include "reagent/agent/agent_error.hpp"

#include "reagent/core/enum_name.hpp"

namespace reagent::agent {

std::string_view toString(AgentErrc code) noexcept {
    return enumName(code);
}

}  // namespace reagent::agent
