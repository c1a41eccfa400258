#include "reagent/a2a/a2a_error.hpp"

namespace reagent::a2a {

std::string_view toString(A2aErrc code) noexcept {
    switch (code) {
        case A2aErrc::unreachable:
            return "unreachable";
        case A2aErrc::timeout:
            return "timeout";
        case A2aErrc::cancelled:
            return "cancelled";
        case A2aErrc::malformed_card:
            return "malformed_card";
        case A2aErrc::protocol_error:
            return "protocol_error";
        case A2aErrc::remote_error:
            return "remote_error";
        case A2aErrc::task_failed:
            return "task_failed";
        case A2aErrc::task_canceled:
            return "task_canceled";
    }
    return "unknown";
}

}  // namespace reagent::a2a
