#include "reagent/llm/message.hpp"

#include <utility>

#include "reagent/core/enum_name.hpp"

namespace reagent::llm {

std::string_view toString(Role role) noexcept {
    return enumName(role);
}

Message Message::system(std::string text) {
    Message message;
    message.role = Role::system;
    message.text = std::move(text);
    return message;
}

Message Message::user(std::string text, std::vector<Attachment> attachments) {
    Message message;
    message.role = Role::user;
    message.text = std::move(text);
    message.attachments = std::move(attachments);
    return message;
}

Message Message::assistant(std::string text, std::vector<ToolCall> calls) {
    Message message;
    message.role = Role::assistant;
    message.text = std::move(text);
    message.toolCalls = std::move(calls);
    return message;
}

Message Message::toolResult(std::string callId, std::string toolName, std::string text, bool isError) {
    Message message;
    message.role = Role::tool;
    message.text = std::move(text);
    message.toolCallId = std::move(callId);
    message.toolName = std::move(toolName);
    message.isError = isError;
    return message;
}

}  // namespace reagent::llm
