#include "reagent/tools/tool_error.hpp"

#include "reagent/core/enum_name.hpp"
#include "reagent/core/error.hpp"

namespace reagent::tools {

std::string_view toString(ToolErrc code) noexcept {
    return enumName(code);
}

ErrorCause ToolError::asCause() const {
    return ErrorCause{"tool", std::string(toString(code)), message, details, cause};
}

std::vector<const ErrorCause*> ToolError::causes() const {
    std::vector<const ErrorCause*> chain;
    for (const ErrorCause* next = cause.get(); next != nullptr; next = next->cause.get()) {
        chain.push_back(next);
    }
    return chain;
}

const ErrorCause* ToolError::rootCause() const {
    const ErrorCause* root = cause.get();
    while (root != nullptr && root->cause) {
        root = root->cause.get();
    }
    return root;
}

std::string ToolError::describe() const {
    return reagent::detail::describeError(toString(code), message);
}

}  // namespace reagent::tools
