#include "reagent/mcp/mcp_error.hpp"

#include "reagent/core/enum_name.hpp"

namespace reagent::mcp {

std::string_view toString(McpErrc code) noexcept {
    return enumName(code);
}

}  // namespace reagent::mcp
