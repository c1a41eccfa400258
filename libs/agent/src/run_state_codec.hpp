#pragma once
// Private to libs/agent: the JSON form of what a paused loop holds (messages, calls, records, usage), for
// ReactLoop::save and ReactLoop::restore. Readers throw `StateError` naming the path at fault; restore
// turns it into an AgentError.

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "reagent/agent/attachment_store.hpp"
#include "reagent/agent/run_result.hpp"
#include "reagent/llm/message.hpp"
#include "reagent/llm/model_request.hpp"
#include "reagent/llm/provider_error.hpp"
#include "reagent/tools/tool_call.hpp"

namespace reagent::agent::detail {

/// A saved state that cannot be read: `what()` names the field and the problem.
class StateError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// A message as saved: attachments inline (base64), or by reference (`{"sha256", "size"}`, the bytes put
/// in `storage.store`) at or above `storage.inlineBelow` bytes. An attachment the store cannot take stays
/// inline: nothing is lost.
[[nodiscard]] nlohmann::json toJson(const llm::Message& message, const AttachmentStorage& storage = {});
/// A saved message; an attachment by reference is read from `storage.store`, its hash checked.
[[nodiscard]] llm::Message messageFromJson(const nlohmann::json& value, const std::string& path,
                                           const AttachmentStorage& storage = {});

[[nodiscard]] nlohmann::json toJson(const llm::ToolCall& call);
[[nodiscard]] llm::ToolCall toolCallFromJson(const nlohmann::json& value, const std::string& path);

[[nodiscard]] nlohmann::json toJson(const tools::ToolCallRequest& call);
[[nodiscard]] tools::ToolCallRequest callFromJson(const nlohmann::json& value, const std::string& path);

[[nodiscard]] nlohmann::json toJson(const tools::ToolCallRecord& record);
[[nodiscard]] tools::ToolCallRecord recordFromJson(const nlohmann::json& value, const std::string& path);

[[nodiscard]] nlohmann::json toJson(const tools::ToolError& error);
[[nodiscard]] tools::ToolError toolErrorFromJson(const nlohmann::json& value, const std::string& path);

[[nodiscard]] nlohmann::json toJson(const CheckpointMark& mark);
[[nodiscard]] CheckpointMark checkpointFromJson(const nlohmann::json& value, const std::string& path);

/// Usage as saved: {"input", "output"}, and "cacheRead", "cacheWrite", "reasoning" when not zero.
[[nodiscard]] nlohmann::json toJson(const llm::Usage& usage);
/// A saved usage; the parts written only when not zero default to zero.
[[nodiscard]] llm::Usage usageFromJson(const nlohmann::json& value, const std::string& path);

/// Cost as saved: {"amount", "currency", "unpricedCalls"}.
[[nodiscard]] nlohmann::json toJson(const RunCost& cost);
[[nodiscard]] RunCost costFromJson(const nlohmann::json& value, const std::string& path);
/// Spending as saved: {"usage", "cost", "unpricedCalls", "modelCalls", "toolCalls"}.
[[nodiscard]] nlohmann::json toJson(const Spending& spent);
[[nodiscard]] Spending spendingFromJson(const nlohmann::json& value, const std::string& path);

/// A compaction as saved (and as `run --json` shows it): {"reason", "iteration", "strategies",
/// "tokensBefore", "tokensAfter", "messagesBefore", "messagesAfter", "notes"?}.
[[nodiscard]] nlohmann::json toJson(const Compaction& compaction);
[[nodiscard]] Compaction compactionFromJson(const nlohmann::json& value, const std::string& path);
/// The "reason" field of `value`.
[[nodiscard]] CompactionReason compactionReasonFromJson(const nlohmann::json& value, const std::string& path);

/// A model call's outcome, as a run's journal keeps it (`model:N` steps).
[[nodiscard]] nlohmann::json toJson(const expected<llm::ModelReply, llm::ProviderError>& outcome);
[[nodiscard]] expected<llm::ModelReply, llm::ProviderError> modelOutcomeFromJson(const nlohmann::json& value,
                                                                                 const std::string& path);

[[nodiscard]] nlohmann::json toJson(const FinalAnswer& answer);
[[nodiscard]] FinalAnswer finalAnswerFromJson(const nlohmann::json& value, const std::string& path);

/// Reads field `key` of object `value` as T; `path` names `value` in messages.
template <class T>
T field(const nlohmann::json& value, const char* key, const std::string& path) {
    if (!value.is_object()) {
        throw StateError(path + " must be an object");
    }
    const auto found = value.find(key);
    if (found == value.end()) {
        throw StateError(path + "." + key + " is missing");
    }
    try {
        return found->get<T>();
    } catch (const nlohmann::json::exception&) {
        throw StateError(path + "." + key + " has the wrong type");
    }
}

/// As `field`, with `fallback` when the key is absent.
template <class T>
T optionalField(const nlohmann::json& value, const char* key, const std::string& path, T fallback) {
    if (!value.is_object() || !value.contains(key)) {
        return fallback;
    }
    return field<T>(value, key, path);
}

/// Reads an array field with `read(element, elementPath)` for each element.
template <class Read>
auto arrayField(const nlohmann::json& value, const char* key, const std::string& path, Read read)
    -> std::vector<decltype(read(value, path))> {
    std::vector<decltype(read(value, path))> out;
    const auto items = field<nlohmann::json>(value, key, path);
    if (!items.is_array()) {
        throw StateError(path + "." + key + " must be an array");
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
        out.push_back(read(items[i], path + "." + key + "[" + std::to_string(i) + "]"));
    }
    return out;
}

}  // namespace reagent::agent::detail
