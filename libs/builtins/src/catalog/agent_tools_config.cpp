#include "reagent/builtins/agent_tools_config.hpp"

namespace reagent::builtins {

std::string_view toString(StartupErrc code) noexcept {
    switch (code) {
        case StartupErrc::missing_workspace:
            return "missing_workspace";
        case StartupErrc::not_a_directory:
            return "not_a_directory";
        case StartupErrc::out_of_range:
            return "out_of_range";
        case StartupErrc::invalid_setting:
            return "invalid_setting";
        case StartupErrc::unavailable:
            return "unavailable";
    }
    return "unknown";
}

}  // namespace reagent::builtins
