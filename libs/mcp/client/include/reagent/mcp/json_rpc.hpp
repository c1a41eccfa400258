#pragma once
/// \file
/// \brief JSON-RPC 2.0 for MCP: reagent::jsonrpc's messages, and a frame reader with MCP's error.

#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"
#include "reagent/jsonrpc/message.hpp"
#include "reagent/mcp/mcp_error.hpp"

namespace reagent::mcp {

using jsonrpc::encode;
using jsonrpc::Message;
using jsonrpc::Notification;
using jsonrpc::Request;
using jsonrpc::RequestId;
using jsonrpc::Response;
using jsonrpc::toString;

/// \brief `jsonrpc::parseFrame` (a single message, or an MCP 2025-03-26 batch), its error as
/// `malformed_message` with the same text.
[[nodiscard]] expected<std::vector<Message>, McpError> parseFrame(std::string_view frame);

}  // namespace reagent::mcp
