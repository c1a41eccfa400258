#include "reagent/mcp/mcp_error.hpp"

namespace reagent::mcp {

std::string_view toString(McpErrc code) noexcept {
    switch (code) {
        case McpErrc::malformed_message:
            return "malformed_message";
        case McpErrc::message_too_large:
            return "message_too_large";
        case McpErrc::remote_error:
            return "remote_error";
        case McpErrc::unsupported_version:
            return "unsupported_version";
        case McpErrc::invalid_config:
            return "invalid_config";
        case McpErrc::connect_failed:
            return "connect_failed";
        case McpErrc::connection_closed:
            return "connection_closed";
        case McpErrc::protocol_error:
            return "protocol_error";
        case McpErrc::session_expired:
            return "session_expired";
        case McpErrc::timeout:
            return "timeout";
        case McpErrc::cancelled:
            return "cancelled";
        case McpErrc::unauthorized:
            return "unauthorized";
    }
    return "unknown";
}

}  // namespace reagent::mcp
