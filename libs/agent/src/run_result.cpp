#include "reagent/agent/run_result.hpp"

namespace reagent::agent {

std::string_view toString(TerminatedBy reason) noexcept {
    switch (reason) {
        case TerminatedBy::final_answer:
            return "final_answer";
        case TerminatedBy::end_turn:
            return "end_turn";
        case TerminatedBy::silent_tools:
            return "silent_tools";
        case TerminatedBy::max_iterations:
            return "max_iterations";
        case TerminatedBy::external_tool_calls:
            return "external_tool_calls";
        case TerminatedBy::provider_error:
            return "provider_error";
        case TerminatedBy::cancelled:
            return "cancelled";
        case TerminatedBy::internal_error:
            return "internal_error";
    }
    return "unknown";
}

}  // namespace reagent::agent
