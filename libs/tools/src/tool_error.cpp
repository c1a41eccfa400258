#include "reagent/tools/tool_error.hpp"

#include "reagent/core/error.hpp"

namespace reagent::tools {

std::string_view toString(ToolErrc code) noexcept {
    switch (code) {
        case ToolErrc::invalid_arguments:
            return "invalid_arguments";
        case ToolErrc::unknown_tool:
            return "unknown_tool";
        case ToolErrc::timeout:
            return "timeout";
        case ToolErrc::failed:
            return "failed";
        case ToolErrc::exception:
            return "exception";
        case ToolErrc::cancelled:
            return "cancelled";
        case ToolErrc::approval_denied:
            return "approval_denied";
        case ToolErrc::approval_unavailable:
            return "approval_unavailable";
        case ToolErrc::not_executable:
            return "not_executable";
        case ToolErrc::invalid_definition:
            return "invalid_definition";
        case ToolErrc::duplicate_name:
            return "duplicate_name";
        case ToolErrc::init_failed:
            return "init_failed";
        case ToolErrc::not_run:
            return "not_run";
        case ToolErrc::approval_pending:
            return "approval_pending";
    }
    return "unknown";
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
