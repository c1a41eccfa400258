#include "reagent/mcp/json_rpc.hpp"

#include <utility>

namespace reagent::mcp {

expected<std::vector<Message>, McpError> parseFrame(std::string_view frame) {
    auto messages = jsonrpc::parseFrame(frame);
    if (!messages) {
        return fail(McpError{McpErrc::malformed_message, std::move(messages.error().message)});
    }
    return std::move(*messages);
}

}  // namespace reagent::mcp
