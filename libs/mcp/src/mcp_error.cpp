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
    }
    return "unknown";
}

std::string RpcError::describe() const {
    return message + " (JSON-RPC " + std::to_string(code) + ")";
}

}  // namespace reagent::mcp
