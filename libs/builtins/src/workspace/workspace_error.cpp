#include "reagent/builtins/workspace_error.hpp"

#include "reagent/core/enum_name.hpp"

namespace reagent::builtins {

std::string_view toString(WorkspaceErrc code) noexcept {
    return enumName(code);
}

}  // namespace reagent::builtins
