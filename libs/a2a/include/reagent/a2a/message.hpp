#pragma once
/// \file
/// \brief `Message` and `Part`: what A2A agents say to each other, and the protocol versions spoken.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reagent/a2a/a2a_error.hpp"
#include "reagent/core/expected.hpp"

namespace reagent::a2a {

/// \brief The A2A JSON shapes and method names: 0.3 (`message/send`, `kind` discriminators, lowercase
/// enums) or 1.0 (`SendMessage`, proto-JSON: oneof members, `TASK_STATE_*` and `ROLE_*` enums).
enum class ProtocolVersion { v0_3, v1_0 };

/// \brief `"0.3"` or `"1.0"`.
[[nodiscard]] std::string_view toString(ProtocolVersion version) noexcept;

/// \brief Who wrote a message.
enum class Role { user, agent };

/// \brief One piece of content. Text from a remote agent is untrusted.
struct Part {
    enum class Kind { text, data, file };
    Kind kind = Kind::text;
    /// Kind::text: the text.
    std::string text;
    /// Kind::data: any JSON value.
    nlohmann::json data = nullptr;
    /// Kind::file: a URL to fetch it from, or (exclusive) its bytes in base64.
    std::string fileUri;
    std::string fileBytes;
    /// Optional media type and file name.
    std::string mediaType;
    std::string filename;

    [[nodiscard]] static Part fromText(std::string text);
};

/// \brief One message of a conversation between a client (user) and a remote agent.
struct Message {
    std::string messageId;
    Role role = Role::user;
    std::vector<Part> parts;
    /// Optional: the conversation and task it belongs to.
    std::string contextId;
    std::string taskId;

    /// \brief A user message of one text part with a fresh random id.
    [[nodiscard]] static Message userText(std::string text);
    /// \brief The text parts joined with '\n'.
    [[nodiscard]] std::string text() const;
};

/// \brief A fresh random identifier (UUID v4 form).
[[nodiscard]] std::string newId();

/// \brief The JSON of a part or message in `version`'s shape.
[[nodiscard]] nlohmann::json toJson(const Part& part, ProtocolVersion version);
[[nodiscard]] nlohmann::json toJson(const Message& message, ProtocolVersion version);

/// \brief Reads a part or message in either version's shape.
///
/// \par Errors
/// `protocol_error` naming the field that is missing or of the wrong type.
[[nodiscard]] expected<Part, A2aError> parsePart(const nlohmann::json& json);
[[nodiscard]] expected<Message, A2aError> parseMessage(const nlohmann::json& json);

}  // namespace reagent::a2a
