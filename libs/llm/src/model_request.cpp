#include "reagent/llm/model_request.hpp"

namespace reagent::llm {

std::string_view toString(StopReason reason) noexcept {
    switch (reason) {
        case StopReason::end_turn:
            return "end_turn";
        case StopReason::tool_use:
            return "tool_use";
        case StopReason::max_tokens:
            return "max_tokens";
        case StopReason::stop_sequence:
            return "stop_sequence";
        case StopReason::other:
            return "other";
    }
    return "unknown";
}

}  // namespace reagent::llm
