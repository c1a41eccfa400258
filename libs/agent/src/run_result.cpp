#include "reagent/agent/run_result.hpp"

#include <algorithm>
#include <cstddef>

#include "reagent/core/enum_name.hpp"

namespace reagent::agent {

std::string_view toString(TerminatedBy reason) noexcept {
    return enumName(reason);
}

bool isSuccess(TerminatedBy reason) noexcept {
    return !errorCode(reason);
}

std::optional<AgentErrc> errorCode(TerminatedBy reason) noexcept {
    switch (reason) {
        case TerminatedBy::final_answer:
        case TerminatedBy::task_complete:
        case TerminatedBy::end_turn:
        case TerminatedBy::silent_tools:
            return std::nullopt;
        case TerminatedBy::max_iterations:
            return AgentErrc::max_iterations;
        case TerminatedBy::external_tool_calls:
            return AgentErrc::external_tool_call;
        case TerminatedBy::provider_error:
            return AgentErrc::provider_failed;
        case TerminatedBy::cancelled:
            return AgentErrc::cancelled;
        case TerminatedBy::internal_error:
            return AgentErrc::internal_error;
        case TerminatedBy::approval_required:
            return AgentErrc::approval_required;
        case TerminatedBy::output_invalid:
            return AgentErrc::output_invalid;
        case TerminatedBy::budget_exceeded:
            return AgentErrc::budget_exceeded;
        case TerminatedBy::context_overflow:
            return AgentErrc::context_overflow;
    }
    return AgentErrc::internal_error;
}

std::optional<AgentError> RunResult::error() const {
    if (const auto code = errorCode(terminatedBy)) {
        return AgentError{*code, errorMessage};
    }
    return std::nullopt;
}

std::optional<std::vector<llm::Message>> RunResult::messagesBefore(std::string_view checkpointId) const {
    for (const CheckpointMark& mark : checkpoints) {
        if (mark.id == checkpointId) {
            const std::size_t end = std::min(mark.messageIndex, messages.size());
            return std::vector<llm::Message>(messages.begin(),
                                             messages.begin() + static_cast<std::ptrdiff_t>(end));
        }
    }
    return std::nullopt;
}

}  // namespace reagent::agent
