#pragma once
/// \file
/// \brief `AgentTask` (A2A's Task), its states, artifacts and the streaming update events.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "reagent/a2a/message.hpp"

namespace reagent::a2a {

/// \brief The life cycle of a remote task.
enum class TaskState {
    submitted,
    working,
    input_required,
    completed,
    failed,
    canceled,
    rejected,
    auth_required,
    unknown
};

/// \brief `"completed"`, `"input-required"`, ... (the 0.3 spelling).
[[nodiscard]] std::string_view toString(TaskState state) noexcept;
/// \brief True for completed, failed, canceled and rejected: the task will not change again.
[[nodiscard]] bool isTerminal(TaskState state) noexcept;

/// \brief A task's state, with the agent's message about it, if any.
struct TaskStatus {
    TaskState state = TaskState::submitted;
    std::optional<Message> message;
    /// ISO 8601, UTC.
    std::string timestamp;
};

/// \brief A result the task produced.
struct Artifact {
    std::string artifactId;
    std::string name;
    std::vector<Part> parts;
};

/// \brief A2A's Task: an id, a status and the artifacts produced so far.
struct AgentTask {
    std::string id;
    std::string contextId;
    TaskStatus status;
    std::vector<Artifact> artifacts;
    std::vector<Message> history;

    /// \brief The answer: the artifacts' text parts, else the status message's text.
    [[nodiscard]] std::string text() const;
};

/// \brief A change of a task's status, sent while streaming.
struct StatusUpdate {
    std::string taskId;
    std::string contextId;
    TaskStatus status;
    /// 0.3 only: the last event of the stream (1.0 ends the stream instead).
    bool final = false;
};

/// \brief An artifact (or a chunk of one), sent while streaming.
struct ArtifactUpdate {
    std::string taskId;
    std::string contextId;
    Artifact artifact;
    bool append = false;
    bool lastChunk = false;
};

/// \brief What `message/send` returns: a task, or a direct message for a trivial exchange.
using SendResult = std::variant<AgentTask, Message>;
/// \brief One event of `message/stream`.
using StreamEvent = std::variant<AgentTask, Message, StatusUpdate, ArtifactUpdate>;

/// \brief The JSON of each, in `version`'s shape (0.3 with `kind`, 1.0 as proto-JSON).
[[nodiscard]] nlohmann::json toJson(const TaskStatus& status, ProtocolVersion version);
[[nodiscard]] nlohmann::json toJson(const Artifact& artifact, ProtocolVersion version);
[[nodiscard]] nlohmann::json toJson(const AgentTask& task, ProtocolVersion version);
/// \brief A `message/send` result: 0.3 the object itself, 1.0 wrapped as `{task}` or `{message}`.
[[nodiscard]] nlohmann::json toJson(const SendResult& result, ProtocolVersion version);
/// \brief A stream event: 0.3 with `kind`, 1.0 wrapped (`{statusUpdate}`, `{artifactUpdate}`, ...).
[[nodiscard]] nlohmann::json toJson(const StreamEvent& event, ProtocolVersion version);

/// \brief Readers accepting both versions' shapes. Errors: `protocol_error` naming the bad field.
[[nodiscard]] expected<TaskState, A2aError> parseTaskState(const nlohmann::json& json);
[[nodiscard]] expected<AgentTask, A2aError> parseTask(const nlohmann::json& json);
[[nodiscard]] expected<SendResult, A2aError> parseSendResult(const nlohmann::json& json);
[[nodiscard]] expected<StreamEvent, A2aError> parseStreamEvent(const nlohmann::json& json);

}  // namespace reagent::a2a
