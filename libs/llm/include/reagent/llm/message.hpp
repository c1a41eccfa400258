#pragma once
/// \file
/// \brief The chat message model: system, user, assistant (text and tool calls), tool results.

#include <boost/describe/enum.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/llm/attachment.hpp"

namespace reagent::llm {

enum class Role { system, user, assistant, tool };
BOOST_DESCRIBE_ENUM(Role, system, user, assistant, tool)

[[nodiscard]] std::string_view toString(Role role) noexcept;

/// \brief Tool-call arguments that are not valid JSON (malformed model output, or a reply cut by the
/// token limit). Both texts are untrusted.
struct InvalidArguments {
    /// The arguments as the provider sent them.
    std::string text;
    /// What is wrong, for the model to repair the call: "arguments are not valid JSON: ... at byte N; the
    /// reply was cut by the token limit".
    std::string problem;

    friend bool operator==(const InvalidArguments&, const InvalidArguments&) = default;
};

/// \brief A call the model asked for. `arguments` is untrusted model output.
struct ToolCall {
    /// Provider-assigned id; tool results refer to it.
    std::string id;
    std::string name;
    nlohmann::json arguments = nlohmann::json::object();
    /// Opaque token the provider attached to this call and wants back verbatim when the call is replayed
    /// in the history (Gemini's `thoughtSignature`); empty when none. Never interpreted.
    std::string signature{};
    /// Set when the provider's arguments were not valid JSON; `arguments` is then an empty object. The
    /// call is still a call: the tool executor answers it with an `invalid_arguments` error naming the
    /// problem, so the model can send it again, repaired.
    std::optional<InvalidArguments> invalidArguments{};

    friend bool operator==(const ToolCall&, const ToolCall&) = default;
};

/// \brief One message of a conversation.
///
/// Assistant messages carry `text` and/or `toolCalls`; tool messages carry the result of one call in
/// `text`, with `toolCallId`, `toolName` and `isError` set. User messages and tool results may also carry
/// images and documents (`attachments`), which providers send as their API's content parts.
struct Message {
    Role role = Role::user;
    std::string text;
    std::vector<ToolCall> toolCalls;
    std::string toolCallId;
    std::string toolName;
    bool isError = false;
    /// Images and documents beside the text, in order (user messages and tool results only; a provider
    /// refuses a request with an attachment elsewhere, or one its API cannot take).
    std::vector<Attachment> attachments{};

    [[nodiscard]] static Message system(std::string text);
    [[nodiscard]] static Message user(std::string text, std::vector<Attachment> attachments = {});
    [[nodiscard]] static Message assistant(std::string text, std::vector<ToolCall> calls = {});
    [[nodiscard]] static Message toolResult(std::string callId, std::string toolName, std::string text,
                                            bool isError = false);

    friend bool operator==(const Message&, const Message&) = default;
};

}  // namespace reagent::llm
