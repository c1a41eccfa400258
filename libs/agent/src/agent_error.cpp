#include "reagent/agent/agent_error.hpp"

namespace reagent::agent {

std::string_view toString(AgentErrc code) noexcept {
    switch (code) {
        case AgentErrc::invalid_config:
            return "invalid_config";
        case AgentErrc::provider_failed:
            return "provider_failed";
        case AgentErrc::max_iterations:
            return "max_iterations";
        case AgentErrc::cancelled:
            return "cancelled";
        case AgentErrc::external_tool_call:
            return "external_tool_call";
        case AgentErrc::internal_error:
            return "internal_error";
        case AgentErrc::rollback_failed:
            return "rollback_failed";
        case AgentErrc::invalid_state:
            return "invalid_state";
        case AgentErrc::approval_required:
            return "approval_required";
    }
    return "unknown";
}

}  // namespace reagent::agent
