#include "reagent/builtins/agent_tools_config.hpp"

#include "reagent/core/enum_name.hpp"

namespace reagent::builtins {

std::string_view toString(StartupErrc code) noexcept {
    return enumName(code);
}

}  // namespace reagent::builtins
