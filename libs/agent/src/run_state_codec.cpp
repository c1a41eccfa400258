// JSON for the parts of a paused loop. Times are kept as microseconds since the epoch, so a state read back
// compares equal to the one saved.

#include "run_state_codec.hpp"

#include <boost/describe/enum_from_string.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <utility>

#include "reagent/core/base64.hpp"

namespace reagent::agent::detail {

using nlohmann::json;

namespace {

llm::Role roleFromString(const std::string& name, const std::string& path) {
    for (const llm::Role role : {llm::Role::system, llm::Role::user, llm::Role::assistant, llm::Role::tool}) {
        if (llm::toString(role) == name) {
            return role;
        }
    }
    throw StateError(path + ".role '" + name + "' is not system, user, assistant or tool");
}

tools::ToolErrc toolErrcFromString(const std::string& name, const std::string& path) {
    for (int code = 0; code <= static_cast<int>(tools::ToolErrc::approval_pending); ++code) {
        const auto candidate = static_cast<tools::ToolErrc>(code);
        if (tools::toString(candidate) == name) {
            return candidate;
        }
    }
    throw StateError(path + ".code '" + name + "' is not a tool error code");
}

std::int64_t micros(std::chrono::system_clock::time_point at) {
    return std::chrono::duration_cast<std::chrono::microseconds>(at.time_since_epoch()).count();
}

std::chrono::system_clock::time_point fromMicros(std::int64_t value) {
    return std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::microseconds(value)));
}

// An attachment as saved: its URL; or its bytes by reference (`sha256`, `size`) when the store takes them;
// else inline, in base64 (`data`).
json toJson(const llm::Attachment& attachment, const AttachmentStorage& storage) {
    json out = {{"kind", llm::toString(attachment.kind)}, {"mediaType", attachment.mediaType}};
    if (!attachment.name.empty()) {
        out["name"] = attachment.name;
    }
    if (!attachment.url.empty()) {
        out["url"] = attachment.url;
        return out;
    }
    const std::string_view bytes =
        attachment.bytes ? std::string_view(*attachment.bytes) : std::string_view();
    if (storage.store && bytes.size() >= storage.inlineBelow) {
        std::string hash = llm::contentHash(bytes);
        if (storage.store->put(hash, bytes)) {
            out["sha256"] = std::move(hash);
            out["size"] = bytes.size();
            return out;
        }
    }
    out["data"] = base64Encode(bytes);
    return out;
}

// The attachment a saved state holds, checked as a new one is: what the bytes are, not what the state
// says they are.
llm::Attachment attachmentFromJson(const json& value, const std::string& path,
                                   const AttachmentStorage& storage) {
    const std::string mediaType = field<std::string>(value, "mediaType", path);
    const std::string name = optionalField<std::string>(value, "name", path, {});
    expected<llm::Attachment, llm::AttachmentError> attachment = fail(llm::AttachmentError{});
    if (value.contains("url")) {
        attachment = llm::Attachment::fromUrl(field<std::string>(value, "url", path), mediaType);
        if (attachment) {
            attachment->name = name;
        }
    } else if (value.contains("sha256")) {
        const std::string hash = field<std::string>(value, "sha256", path);
        if (!isContentHash(hash)) {  // it cannot name a path in a store
            throw StateError(path + ".sha256 '" + hash.substr(0, 80) + "' is not a SHA-256 in lowercase hex");
        }
        if (!storage.store) {
            throw StateError(path + " is kept by reference (sha256 " + hash.substr(0, 80) +
                             ") and no attachment store was given to read it from");
        }
        auto bytes = storage.store->get(hash);
        if (!bytes) {
            throw StateError(path + ": " + bytes.error().message);
        }
        if (llm::contentHash(**bytes) != hash) {
            throw StateError(path + ": the attachment kept under " + hash + " is not those bytes any more");
        }
        attachment = llm::Attachment::fromBytes(std::string(**bytes), name);
    } else {
        auto bytes = base64Decode(field<std::string>(value, "data", path));
        if (!bytes) {
            throw StateError(path + ".data is not base64");
        }
        attachment = llm::Attachment::fromBytes(std::move(*bytes), name);
    }
    if (!attachment) {
        throw StateError(path + ": " + attachment.error().message);
    }
    if (attachment->mediaType != mediaType) {
        throw StateError(path + ".mediaType '" + mediaType + "' does not match the bytes (" +
                         attachment->mediaType + ")");
    }
    return std::move(*attachment);
}

}  // namespace

json toJson(const llm::ToolCall& call) {
    json out = {{"id", call.id}, {"name", call.name}, {"arguments", call.arguments}};
    if (!call.signature.empty()) {
        out["signature"] = call.signature;
    }
    if (call.invalidArguments) {
        out["invalidArguments"] = {{"text", call.invalidArguments->text},
                                   {"problem", call.invalidArguments->problem}};
    }
    return out;
}

llm::ToolCall toolCallFromJson(const json& value, const std::string& path) {
    llm::ToolCall call;
    call.id = field<std::string>(value, "id", path);
    call.name = field<std::string>(value, "name", path);
    call.arguments = optionalField<json>(value, "arguments", path, json::object());
    call.signature = optionalField<std::string>(value, "signature", path, {});
    if (value.contains("invalidArguments")) {
        const json invalid = value["invalidArguments"];
        call.invalidArguments =
            llm::InvalidArguments{field<std::string>(invalid, "text", path + ".invalidArguments"),
                                  field<std::string>(invalid, "problem", path + ".invalidArguments")};
    }
    return call;
}

json toJson(const llm::Message& message, const AttachmentStorage& storage) {
    json out = {{"role", llm::toString(message.role)}, {"text", message.text}};
    if (!message.toolCalls.empty()) {
        json calls = json::array();
        for (const llm::ToolCall& call : message.toolCalls) {
            calls.push_back(toJson(call));
        }
        out["toolCalls"] = std::move(calls);
    }
    if (!message.toolCallId.empty()) {
        out["toolCallId"] = message.toolCallId;
    }
    if (!message.toolName.empty()) {
        out["toolName"] = message.toolName;
    }
    if (message.isError) {
        out["isError"] = true;
    }
    if (!message.attachments.empty()) {
        json attachments = json::array();
        for (const llm::Attachment& attachment : message.attachments) {
            attachments.push_back(toJson(attachment, storage));
        }
        out["attachments"] = std::move(attachments);
    }
    return out;
}

llm::Message messageFromJson(const json& value, const std::string& path, const AttachmentStorage& storage) {
    llm::Message message;
    message.role = roleFromString(field<std::string>(value, "role", path), path);
    message.text = field<std::string>(value, "text", path);
    if (value.contains("toolCalls")) {
        message.toolCalls = arrayField(value, "toolCalls", path, toolCallFromJson);
    }
    message.toolCallId = optionalField<std::string>(value, "toolCallId", path, {});
    message.toolName = optionalField<std::string>(value, "toolName", path, {});
    message.isError = optionalField<bool>(value, "isError", path, false);
    if (value.contains("attachments")) {
        message.attachments = arrayField(
            value, "attachments", path,
            [&](const json& item, const std::string& at) { return attachmentFromJson(item, at, storage); });
    }
    return message;
}

json toJson(const tools::ToolCallRequest& call) {
    json out = {{"id", call.id}, {"name", call.name}, {"arguments", call.arguments}};
    if (call.argumentsProblem) {
        out["argumentsProblem"] = *call.argumentsProblem;
    }
    if (call.preApproved) {
        out["preApproved"] = true;
    }
    return out;
}

tools::ToolCallRequest callFromJson(const json& value, const std::string& path) {
    tools::ToolCallRequest call{field<std::string>(value, "id", path),
                                field<std::string>(value, "name", path),
                                optionalField<json>(value, "arguments", path, json::object())};
    if (value.contains("argumentsProblem")) {
        call.argumentsProblem = field<std::string>(value, "argumentsProblem", path);
    }
    call.preApproved = optionalField<bool>(value, "preApproved", path, false);
    return call;
}

json toJson(const tools::ErrorCause& cause) {
    json out = {{"domain", cause.domain}, {"code", cause.code}, {"message", cause.message}};
    if (!cause.details.is_null()) {
        out["details"] = cause.details;
    }
    if (cause.cause) {
        out["cause"] = toJson(*cause.cause);
    }
    return out;
}

std::shared_ptr<const tools::ErrorCause> causeFromJson(const json& value, const std::string& path) {
    tools::ErrorCause cause{
        field<std::string>(value, "domain", path), field<std::string>(value, "code", path),
        field<std::string>(value, "message", path), optionalField<json>(value, "details", path, nullptr)};
    if (value.contains("cause")) {
        cause.cause = causeFromJson(field<json>(value, "cause", path), path + ".cause");
    }
    return std::make_shared<const tools::ErrorCause>(std::move(cause));
}

json toJson(const tools::ToolError& error) {
    json out = {{"code", tools::toString(error.code)}, {"message", error.message}};
    if (!error.details.is_null()) {
        out["details"] = error.details;
    }
    if (!error.tool.empty()) {
        out["tool"] = error.tool;
        out["tripIndex"] = error.tripIndex;
    }
    if (error.cause) {
        out["cause"] = toJson(*error.cause);
    }
    return out;
}

tools::ToolError toolErrorFromJson(const json& value, const std::string& path) {
    tools::ToolError error;
    error.code = toolErrcFromString(field<std::string>(value, "code", path), path);
    error.message = field<std::string>(value, "message", path);
    error.details = optionalField<json>(value, "details", path, nullptr);
    error.tool = optionalField<std::string>(value, "tool", path, std::string());
    error.tripIndex = optionalField<int>(value, "tripIndex", path, -1);
    if (value.contains("cause")) {
        error.cause = causeFromJson(field<json>(value, "cause", path), path + ".cause");
    }
    return error;
}

json toJson(const tools::ToolCallRecord& record) {
    json out = {{"id", record.id},
                {"tripIndex", record.tripIndex},
                {"name", record.name},
                {"input", record.input},
                {"startedAt", micros(record.startedAt)},
                {"endedAt", micros(record.endedAt)},
                {"durationUs", record.duration.count()},
                {"mode", tools::toString(record.mode)},
                {"artifacts", record.artifacts}};
    if (record.outcome) {
        out["output"] = *record.outcome;
    } else {
        out["error"] = toJson(record.outcome.error());
    }
    if (!record.memoryKey.empty()) {
        out["memoryKey"] = record.memoryKey;
    }
    if (record.transform) {
        out["transform"] = *record.transform;
    }
    if (!record.content.empty()) {
        out["content"] = record.content;  // images and documents beside the text: a replay shows them too
    }
    if (!record.structured.is_null()) {
        out["structured"] = record.structured;
    }
    return out;
}

tools::ToolCallRecord recordFromJson(const json& value, const std::string& path) {
    tools::ToolCallRecord record;
    record.id = field<std::string>(value, "id", path);
    record.tripIndex = field<int>(value, "tripIndex", path);
    record.name = field<std::string>(value, "name", path);
    record.input = optionalField<json>(value, "input", path, json::object());
    if (value.contains("error")) {
        record.outcome = unexpected(toolErrorFromJson(value["error"], path + ".error"));
    } else {
        record.outcome = field<std::string>(value, "output", path);
    }
    record.memoryKey = optionalField<std::string>(value, "memoryKey", path, {});
    if (value.contains("transform")) {
        record.transform = field<std::string>(value, "transform", path);
    }
    record.startedAt = fromMicros(optionalField<std::int64_t>(value, "startedAt", path, 0));
    record.endedAt = fromMicros(optionalField<std::int64_t>(value, "endedAt", path, 0));
    record.duration = std::chrono::microseconds(optionalField<std::int64_t>(value, "durationUs", path, 0));
    const auto mode = optionalField<std::string>(value, "mode", path, "feedback");
    if (mode != "feedback" && mode != "silent") {
        throw StateError(path + ".mode '" + mode + "' is not feedback or silent");
    }
    record.mode = mode == "silent" ? tools::ToolMode::silent : tools::ToolMode::feedback;
    record.artifacts = optionalField<json>(value, "artifacts", path, json::object());
    if (const auto content = value.find("content"); content != value.end()) {
        if (!content->is_array()) {
            throw StateError(path + ".content must be an array");
        }
        record.content = content->get<std::vector<json>>();
    }
    record.structured = optionalField<json>(value, "structured", path, nullptr);
    return record;
}

json toJson(const CheckpointMark& mark) {
    return json{{"id", mark.id},
                {"toolCallId", mark.toolCallId},
                {"toolName", mark.toolName},
                {"tripIndex", mark.tripIndex},
                {"messageIndex", mark.messageIndex}};
}

CheckpointMark checkpointFromJson(const json& value, const std::string& path) {
    return CheckpointMark{field<std::string>(value, "id", path),
                          field<std::string>(value, "toolCallId", path),
                          field<std::string>(value, "toolName", path), field<int>(value, "tripIndex", path),
                          field<std::size_t>(value, "messageIndex", path)};
}

json toJson(const FinalAnswer& answer) {
    json out = {{"output", answer.output}, {"format", answer.format}, {"summary", answer.summary}};
    if (answer.confidence) {
        out["confidence"] = *answer.confidence;
    }
    return out;
}

FinalAnswer finalAnswerFromJson(const json& value, const std::string& path) {
    FinalAnswer answer;
    answer.output = field<std::string>(value, "output", path);
    answer.format = optionalField<std::string>(value, "format", path, "text");
    answer.summary = optionalField<std::string>(value, "summary", path, {});
    if (value.contains("confidence")) {
        answer.confidence = field<double>(value, "confidence", path);
    }
    return answer;
}

json toJson(const llm::Usage& usage) {
    json out = {{"input", usage.inputTokens}, {"output", usage.outputTokens}};
    if (usage.cacheReadTokens != 0) {
        out["cacheRead"] = usage.cacheReadTokens;
    }
    if (usage.cacheWriteTokens != 0) {
        out["cacheWrite"] = usage.cacheWriteTokens;
    }
    if (usage.reasoningTokens != 0) {
        out["reasoning"] = usage.reasoningTokens;
    }
    return out;
}

llm::Usage usageFromJson(const json& value, const std::string& path) {
    llm::Usage usage;
    usage.inputTokens = field<std::int64_t>(value, "input", path);
    usage.outputTokens = field<std::int64_t>(value, "output", path);
    usage.cacheReadTokens = optionalField<std::int64_t>(value, "cacheRead", path, 0);
    usage.cacheWriteTokens = optionalField<std::int64_t>(value, "cacheWrite", path, 0);
    usage.reasoningTokens = optionalField<std::int64_t>(value, "reasoning", path, 0);
    return usage;
}

json toJson(const RunCost& cost) {
    return {{"amount", cost.amount}, {"currency", cost.currency}, {"unpricedCalls", cost.unpricedCalls}};
}

RunCost costFromJson(const json& value, const std::string& path) {
    return RunCost{field<double>(value, "amount", path), field<std::string>(value, "currency", path),
                   field<int>(value, "unpricedCalls", path)};
}

json toJson(const Spending& spent) {
    return {{"usage", toJson(spent.usage)},
            {"cost", spent.cost},
            {"unpricedCalls", spent.unpricedCalls},
            {"modelCalls", spent.modelCalls},
            {"toolCalls", spent.toolCalls}};
}

Spending spendingFromJson(const json& value, const std::string& path) {
    Spending spent;
    spent.usage = usageFromJson(field<json>(value, "usage", path), path + ".usage");
    spent.cost = field<double>(value, "cost", path);
    spent.unpricedCalls = field<int>(value, "unpricedCalls", path);
    spent.modelCalls = field<int>(value, "modelCalls", path);
    spent.toolCalls = field<int>(value, "toolCalls", path);
    if (spent.cost < 0 || spent.unpricedCalls < 0 || spent.modelCalls < 0 || spent.toolCalls < 0) {
        throw StateError(path + " holds a negative figure");
    }
    return spent;
}

}  // namespace reagent::agent::detail

namespace reagent::agent::detail {

json toJson(const Compaction& compaction) {
    json value{{"reason", toString(compaction.reason)},    {"iteration", compaction.iteration},
               {"strategies", compaction.strategies},      {"tokensBefore", compaction.tokensBefore},
               {"tokensAfter", compaction.tokensAfter},    {"messagesBefore", compaction.messagesBefore},
               {"messagesAfter", compaction.messagesAfter}};
    if (!compaction.notes.empty()) {
        value["notes"] = compaction.notes;
    }
    if (compaction.modelCalls > 0) {
        value["modelCalls"] = compaction.modelCalls;
    }
    return value;
}

CompactionReason compactionReasonFromJson(const json& value, const std::string& path) {
    const auto reason = field<std::string>(value, "reason", path);
    for (const CompactionReason known :
         {CompactionReason::threshold, CompactionReason::context_error, CompactionReason::manual}) {
        if (toString(known) == reason) {
            return known;
        }
    }
    throw StateError(path + ".reason '" + reason + "' is not threshold, context_error or manual");
}

Compaction compactionFromJson(const json& value, const std::string& path) {
    Compaction compaction;
    compaction.reason = compactionReasonFromJson(value, path);
    compaction.iteration = field<int>(value, "iteration", path);
    compaction.strategies = field<std::vector<std::string>>(value, "strategies", path);
    compaction.tokensBefore = field<std::int64_t>(value, "tokensBefore", path);
    compaction.tokensAfter = field<std::int64_t>(value, "tokensAfter", path);
    compaction.messagesBefore = field<std::size_t>(value, "messagesBefore", path);
    compaction.messagesAfter = field<std::size_t>(value, "messagesAfter", path);
    compaction.notes = optionalField<std::vector<std::string>>(value, "notes", path, {});
    compaction.modelCalls = optionalField<int>(value, "modelCalls", path, 0);
    if (compaction.modelCalls < 0) {
        throw StateError(path + ".modelCalls must not be negative");
    }
    if (compaction.tokensBefore < 0 || compaction.tokensAfter < 0) {
        throw StateError(path + " holds a negative count");
    }
    return compaction;
}

json toJson(const expected<llm::ModelReply, llm::ProviderError>& outcome) {
    if (outcome) {
        const llm::ModelReply& reply = *outcome;
        json calls = json::array();
        for (const llm::ToolCall& call : reply.toolCalls) {
            calls.push_back(toJson(call));
        }
        return {{"reply",
                 {{"text", reply.text},
                  {"toolCalls", std::move(calls)},
                  {"stopReason", llm::toString(reply.stopReason)},
                  {"usage", toJson(reply.usage)},
                  {"model", reply.model},
                  {"id", reply.id}}}};
    }
    const llm::ProviderError& error = outcome.error();
    json out = {{"code", llm::toString(error.code)},
                {"message", error.message},
                {"providerType", error.providerType},
                {"usage", toJson(error.usage)}};
    if (error.httpStatus) {
        out["httpStatus"] = *error.httpStatus;
    }
    if (error.retryAfter) {
        out["retryAfterMs"] = error.retryAfter->count();
    }
    return {{"error", std::move(out)}};
}

expected<llm::ModelReply, llm::ProviderError> modelOutcomeFromJson(const json& value,
                                                                   const std::string& path) {
    if (value.contains("reply")) {
        const json reply = field<json>(value, "reply", path);
        const std::string at = path + ".reply";
        llm::ModelReply out;
        out.text = field<std::string>(reply, "text", at);
        out.toolCalls = arrayField(reply, "toolCalls", at, toolCallFromJson);
        const std::string reason = field<std::string>(reply, "stopReason", at);
        if (!boost::describe::enum_from_string(reason.c_str(), out.stopReason)) {
            throw StateError(at + ".stopReason '" + reason + "' is not a stop reason");
        }
        out.usage = usageFromJson(field<json>(reply, "usage", at), at + ".usage");
        out.model = field<std::string>(reply, "model", at);
        out.id = field<std::string>(reply, "id", at);
        return out;
    }
    const json error = field<json>(value, "error", path);
    const std::string at = path + ".error";
    llm::ProviderError out;
    const std::string code = field<std::string>(error, "code", at);
    if (!boost::describe::enum_from_string(code.c_str(), out.code)) {
        throw StateError(at + ".code '" + code + "' is not a provider error code");
    }
    out.message = field<std::string>(error, "message", at);
    out.providerType = field<std::string>(error, "providerType", at);
    out.usage = usageFromJson(field<json>(error, "usage", at), at + ".usage");
    if (error.contains("httpStatus")) {
        out.httpStatus = field<int>(error, "httpStatus", at);
    }
    if (error.contains("retryAfterMs")) {
        out.retryAfter = std::chrono::milliseconds(field<std::int64_t>(error, "retryAfterMs", at));
    }
    return unexpected(std::move(out));
}

}  // namespace reagent::agent::detail
