// The A2A data model in both wire shapes: 0.3 (JSON Schema: `kind` discriminators, lowercase enums) and
// 1.0 (proto-JSON: oneof members, `TASK_STATE_*`, `ROLE_*`). Readers accept either; writers take a version.

#include <array>
#include <random>

#include "reagent/a2a/agent_card.hpp"
#include "reagent/a2a/agent_task.hpp"
#include "reagent/a2a/message.hpp"
#include "reagent/core/json_fields.hpp"

namespace reagent::a2a {

namespace {

using nlohmann::json;

[[nodiscard]] A2aError bad(std::string what) {
    return A2aError{A2aErrc::protocol_error, std::move(what)};
}

// A field that cannot be read is a protocol error, with core's message naming the field.
template <class T>
[[nodiscard]] expected<T, A2aError> checked(expected<T, JsonFieldError> field) {
    if (!field) {
        return fail(bad(std::move(field.error().message)));
    }
    return std::move(*field);
}

// A string member, or empty when absent or null; an error when present with another type.
[[nodiscard]] expected<std::string, A2aError> optionalText(const json& j, const char* key) {
    auto text = checked(optionalString(j, key));
    if (!text) {
        return fail(std::move(text.error()));
    }
    return std::move(*text).value_or(std::string());
}

[[nodiscard]] std::string nowIso() {
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::array<char, 32> buffer{};
    const std::size_t n = std::strftime(buffer.data(), buffer.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return std::string(buffer.data(), n);
}

constexpr std::array<std::pair<TaskState, std::string_view>, 9> kStates{{
    {TaskState::submitted, "submitted"},
    {TaskState::working, "working"},
    {TaskState::input_required, "input-required"},
    {TaskState::completed, "completed"},
    {TaskState::failed, "failed"},
    {TaskState::canceled, "canceled"},
    {TaskState::rejected, "rejected"},
    {TaskState::auth_required, "auth-required"},
    {TaskState::unknown, "unknown"},
}};

// "input-required" -> "TASK_STATE_INPUT_REQUIRED"
[[nodiscard]] std::string protoState(std::string_view legacy) {
    std::string out = "TASK_STATE_";
    for (const char c : legacy) {
        out += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return out;
}

[[nodiscard]] expected<std::vector<Part>, A2aError> parseParts(const json& j) {
    const auto items = checked(requiredArray(j, "parts"));
    if (!items) {
        return fail(items.error());
    }
    std::vector<Part> parts;
    for (const auto& item : **items) {
        auto part = parsePart(item);
        if (!part) {
            return fail(part.error());
        }
        parts.push_back(std::move(*part));
    }
    return parts;
}

[[nodiscard]] json partsJson(const std::vector<Part>& parts, ProtocolVersion version) {
    json out = json::array();
    for (const auto& part : parts) {
        out.push_back(toJson(part, version));
    }
    return out;
}

[[nodiscard]] std::string joinText(const std::vector<Part>& parts, std::string& out) {
    for (const auto& part : parts) {
        if (part.kind == Part::Kind::text) {
            out += out.empty() ? "" : "\n";
            out += part.text;
        }
    }
    return out;
}

[[nodiscard]] expected<TaskStatus, A2aError> parseStatus(const json& j) {
    if (!j.is_object()) {
        return fail(bad("field 'status' is not an object"));
    }
    TaskStatus status;
    auto state = parseTaskState(j.value("state", json()));
    if (!state) {
        return fail(state.error());
    }
    status.state = *state;
    if (const auto it = j.find("message"); it != j.end() && !it->is_null()) {
        auto message = parseMessage(*it);
        if (!message) {
            return fail(message.error());
        }
        status.message = std::move(*message);
    }
    status.timestamp = stringOr(j, "timestamp");
    return status;
}

[[nodiscard]] expected<Artifact, A2aError> parseArtifact(const json& j) {
    if (!j.is_object()) {
        return fail(bad("an artifact is not an object"));
    }
    Artifact artifact;
    auto id = optionalText(j, "artifactId");
    auto name = optionalText(j, "name");
    auto parts = parseParts(j);
    if (!id || !name || !parts) {
        return fail(!id ? id.error() : !name ? name.error() : parts.error());
    }
    artifact.artifactId = std::move(*id);
    artifact.name = std::move(*name);
    artifact.parts = std::move(*parts);
    return artifact;
}

[[nodiscard]] expected<StatusUpdate, A2aError> parseStatusUpdate(const json& j) {
    StatusUpdate update;
    auto taskId = checked(requiredString(j, "taskId"));
    if (!taskId) {
        return fail(taskId.error());
    }
    update.taskId = std::move(*taskId);
    update.contextId = stringOr(j, "contextId");
    auto status = parseStatus(j.value("status", json()));
    if (!status) {
        return fail(status.error());
    }
    update.status = std::move(*status);
    update.final = boolOr(j, "final", false);
    return update;
}

[[nodiscard]] expected<ArtifactUpdate, A2aError> parseArtifactUpdate(const json& j) {
    ArtifactUpdate update;
    auto taskId = checked(requiredString(j, "taskId"));
    if (!taskId) {
        return fail(taskId.error());
    }
    update.taskId = std::move(*taskId);
    update.contextId = stringOr(j, "contextId");
    auto artifact = parseArtifact(j.value("artifact", json()));
    if (!artifact) {
        return fail(artifact.error());
    }
    update.artifact = std::move(*artifact);
    update.append = boolOr(j, "append", false);
    update.lastChunk = boolOr(j, "lastChunk", false);
    return update;
}

}  // namespace

std::string_view toString(ProtocolVersion version) noexcept {
    return version == ProtocolVersion::v0_3 ? "0.3" : "1.0";
}

Part Part::fromText(std::string text) {
    Part part;
    part.text = std::move(text);
    return part;
}

Message Message::userText(std::string text) {
    Message message;
    message.messageId = newId();
    message.parts.push_back(Part::fromText(std::move(text)));
    return message;
}

std::string Message::text() const {
    std::string out;
    return joinText(parts, out);
}

std::string newId() {
    thread_local std::mt19937_64 engine{std::random_device{}()};
    const std::uint64_t a = engine();
    const std::uint64_t b = engine();
    std::array<char, 40> buffer{};
    std::snprintf(buffer.data(), buffer.size(), "%08x-%04x-4%03x-%04x-%012llx",
                  static_cast<unsigned>(a >> 32U), static_cast<unsigned>((a >> 16U) & 0xffffU),
                  static_cast<unsigned>(a & 0xfffU), static_cast<unsigned>(((b >> 48U) & 0x3fffU) | 0x8000U),
                  static_cast<unsigned long long>(b & 0xffffffffffffULL));
    return std::string(buffer.data());
}

json toJson(const Part& part, ProtocolVersion version) {
    json out = json::object();
    if (version == ProtocolVersion::v1_0) {
        switch (part.kind) {
            case Part::Kind::text:
                out["text"] = part.text;
                break;
            case Part::Kind::data:
                out["data"] = part.data;
                break;
            case Part::Kind::file:
                if (!part.fileUri.empty()) {
                    out["url"] = part.fileUri;
                } else {
                    out["raw"] = part.fileBytes;
                }
                break;
        }
        if (!part.mediaType.empty()) {
            out["mediaType"] = part.mediaType;
        }
        if (!part.filename.empty()) {
            out["filename"] = part.filename;
        }
        return out;
    }
    switch (part.kind) {
        case Part::Kind::text:
            out["kind"] = "text";
            out["text"] = part.text;
            break;
        case Part::Kind::data:
            out["kind"] = "data";
            // 0.3 data parts are objects: other values travel wrapped, as the JS SDK does.
            out["data"] = part.data.is_object() ? part.data : json{{"value", part.data}};
            break;
        case Part::Kind::file: {
            json file = json::object();
            if (!part.fileUri.empty()) {
                file["uri"] = part.fileUri;
            } else {
                file["bytes"] = part.fileBytes;
            }
            if (!part.mediaType.empty()) {
                file["mimeType"] = part.mediaType;
            }
            if (!part.filename.empty()) {
                file["name"] = part.filename;
            }
            out["kind"] = "file";
            out["file"] = std::move(file);
            break;
        }
    }
    return out;
}

expected<Part, A2aError> parsePart(const json& j) {
    if (!j.is_object()) {
        return fail(bad("a part is not an object"));
    }
    Part part;
    part.mediaType = stringOr(j, "mediaType");
    part.filename = stringOr(j, "filename");
    const std::string kind = stringOr(j, "kind");
    if (kind == "text" || (kind.empty() && j.contains("text"))) {
        auto text = checked(requiredString(j, "text"));
        if (!text) {
            return fail(text.error());
        }
        part.text = std::move(*text);
        return part;
    }
    if (kind == "data" || (kind.empty() && j.contains("data"))) {
        part.kind = Part::Kind::data;
        part.data = j.contains("data") ? j["data"] : json();
        return part;
    }
    if (kind == "file") {
        part.kind = Part::Kind::file;
        const json file = j.value("file", json::object());
        if (!file.is_object()) {
            return fail(bad("field 'file' is not an object"));
        }
        part.fileUri = stringOr(file, "uri");
        part.fileBytes = stringOr(file, "bytes");
        part.mediaType = stringOr(file, "mimeType");
        part.filename = stringOr(file, "name");
        return part;
    }
    if (kind.empty() && (j.contains("url") || j.contains("raw"))) {
        part.kind = Part::Kind::file;
        part.fileUri = stringOr(j, "url");
        part.fileBytes = stringOr(j, "raw");
        return part;
    }
    return fail(bad("a part has no text, data or file content"));
}

json toJson(const Message& message, ProtocolVersion version) {
    json out = json::object();
    const bool v1 = version == ProtocolVersion::v1_0;
    if (!v1) {
        out["kind"] = "message";
    }
    out["messageId"] = message.messageId;
    out["role"] = message.role == Role::user ? (v1 ? "ROLE_USER" : "user") : (v1 ? "ROLE_AGENT" : "agent");
    out["parts"] = partsJson(message.parts, version);
    if (!message.contextId.empty()) {
        out["contextId"] = message.contextId;
    }
    if (!message.taskId.empty()) {
        out["taskId"] = message.taskId;
    }
    return out;
}

expected<Message, A2aError> parseMessage(const json& j) {
    if (!j.is_object()) {
        return fail(bad("a message is not an object"));
    }
    Message message;
    auto id = checked(requiredString(j, "messageId"));
    auto role = checked(requiredString(j, "role"));
    auto contextId = optionalText(j, "contextId");
    auto taskId = optionalText(j, "taskId");
    if (!id || !role || !contextId || !taskId) {
        return fail(!id          ? id.error()
                    : !role      ? role.error()
                    : !contextId ? contextId.error()
                                 : taskId.error());
    }
    if (*role == "user" || *role == "ROLE_USER") {
        message.role = Role::user;
    } else if (*role == "agent" || *role == "ROLE_AGENT") {
        message.role = Role::agent;
    } else {
        return fail(bad("unknown message role '" + *role + "'"));
    }
    auto parts = parseParts(j);
    if (!parts) {
        return fail(parts.error());
    }
    message.messageId = std::move(*id);
    message.contextId = std::move(*contextId);
    message.taskId = std::move(*taskId);
    message.parts = std::move(*parts);
    return message;
}

std::string_view toString(TaskState state) noexcept {
    for (const auto& [value, name] : kStates) {
        if (value == state) {
            return name;
        }
    }
    return "unknown";
}

bool isTerminal(TaskState state) noexcept {
    return state == TaskState::completed || state == TaskState::failed || state == TaskState::canceled ||
           state == TaskState::rejected;
}

expected<TaskState, A2aError> parseTaskState(const json& j) {
    if (!j.is_string()) {
        return fail(bad("the task state is not a string"));
    }
    const auto text = j.get<std::string>();
    for (const auto& [value, name] : kStates) {
        if (text == name || text == protoState(name)) {
            return value;
        }
    }
    if (text == "TASK_STATE_UNSPECIFIED") {
        return TaskState::unknown;
    }
    return fail(bad("unknown task state '" + text + "'"));
}

std::string AgentTask::text() const {
    std::string out;
    for (const auto& artifact : artifacts) {
        (void)joinText(artifact.parts, out);
    }
    if (out.empty() && status.message) {
        out = status.message->text();
    }
    return out;
}

json toJson(const TaskStatus& status, ProtocolVersion version) {
    const std::string name(toString(status.state));
    json out = {{"state", version == ProtocolVersion::v1_0 ? protoState(name) : name},
                {"timestamp", status.timestamp.empty() ? nowIso() : status.timestamp}};
    if (status.message) {
        out["message"] = toJson(*status.message, version);
    }
    return out;
}

json toJson(const Artifact& artifact, ProtocolVersion version) {
    json out = {{"artifactId", artifact.artifactId}, {"parts", partsJson(artifact.parts, version)}};
    if (!artifact.name.empty()) {
        out["name"] = artifact.name;
    }
    return out;
}

json toJson(const AgentTask& task, ProtocolVersion version) {
    json out = json::object();
    if (version == ProtocolVersion::v0_3) {
        out["kind"] = "task";
    }
    out["id"] = task.id;
    out["contextId"] = task.contextId;
    out["status"] = toJson(task.status, version);
    json artifacts = json::array();
    for (const auto& artifact : task.artifacts) {
        artifacts.push_back(toJson(artifact, version));
    }
    out["artifacts"] = std::move(artifacts);
    json history = json::array();
    for (const auto& message : task.history) {
        history.push_back(toJson(message, version));
    }
    out["history"] = std::move(history);
    return out;
}

json toJson(const SendResult& result, ProtocolVersion version) {
    const bool v1 = version == ProtocolVersion::v1_0;
    if (const auto* task = std::get_if<AgentTask>(&result)) {
        return v1 ? json{{"task", toJson(*task, version)}} : toJson(*task, version);
    }
    const auto& message = std::get<Message>(result);
    return v1 ? json{{"message", toJson(message, version)}} : toJson(message, version);
}

json toJson(const StreamEvent& event, ProtocolVersion version) {
    const bool v1 = version == ProtocolVersion::v1_0;
    if (const auto* task = std::get_if<AgentTask>(&event)) {
        return toJson(SendResult(*task), version);
    }
    if (const auto* message = std::get_if<Message>(&event)) {
        return toJson(SendResult(*message), version);
    }
    if (const auto* status = std::get_if<StatusUpdate>(&event)) {
        json out = {{"taskId", status->taskId},
                    {"contextId", status->contextId},
                    {"status", toJson(status->status, version)}};
        if (v1) {
            return json{{"statusUpdate", std::move(out)}};
        }
        out["kind"] = "status-update";
        out["final"] = status->final;
        return out;
    }
    const auto& artifact = std::get<ArtifactUpdate>(event);
    json out = {{"taskId", artifact.taskId},
                {"contextId", artifact.contextId},
                {"artifact", toJson(artifact.artifact, version)},
                {"append", artifact.append},
                {"lastChunk", artifact.lastChunk}};
    if (v1) {
        return json{{"artifactUpdate", std::move(out)}};
    }
    out["kind"] = "artifact-update";
    return out;
}

expected<AgentTask, A2aError> parseTask(const json& j) {
    if (!j.is_object()) {
        return fail(bad("a task is not an object"));
    }
    AgentTask task;
    auto id = checked(requiredString(j, "id"));
    auto contextId = optionalText(j, "contextId");
    if (!id || !contextId) {
        return fail(!id ? id.error() : contextId.error());
    }
    task.id = std::move(*id);
    task.contextId = std::move(*contextId);
    auto status = parseStatus(j.value("status", json()));
    if (!status) {
        return fail(status.error());
    }
    task.status = std::move(*status);
    for (const auto& item : j.value("artifacts", json::array())) {
        auto artifact = parseArtifact(item);
        if (!artifact) {
            return fail(artifact.error());
        }
        task.artifacts.push_back(std::move(*artifact));
    }
    for (const auto& item : j.value("history", json::array())) {
        auto message = parseMessage(item);
        if (!message) {
            return fail(message.error());
        }
        task.history.push_back(std::move(*message));
    }
    return task;
}

expected<SendResult, A2aError> parseSendResult(const json& j) {
    auto event = parseStreamEvent(j);
    if (!event) {
        return fail(event.error());
    }
    if (auto* task = std::get_if<AgentTask>(&*event)) {
        return SendResult(std::move(*task));
    }
    if (auto* message = std::get_if<Message>(&*event)) {
        return SendResult(std::move(*message));
    }
    return fail(bad("a send result is neither a task nor a message"));
}

expected<StreamEvent, A2aError> parseStreamEvent(const json& j) {
    if (!j.is_object()) {
        return fail(bad("the result is not an object"));
    }
    const std::string kind = stringOr(j, "kind");
    const auto wrap = [](auto parsed) -> expected<StreamEvent, A2aError> {
        if (!parsed) {
            return fail(parsed.error());
        }
        return StreamEvent(std::move(*parsed));
    };
    if (kind == "task") {
        return wrap(parseTask(j));
    }
    if (kind == "message") {
        return wrap(parseMessage(j));
    }
    if (kind == "status-update") {
        return wrap(parseStatusUpdate(j));
    }
    if (kind == "artifact-update") {
        return wrap(parseArtifactUpdate(j));
    }
    if (!kind.empty()) {
        return fail(bad("unknown event kind '" + kind + "'"));
    }
    if (j.contains("task")) {
        return wrap(parseTask(j["task"]));
    }
    if (j.contains("message")) {
        return wrap(parseMessage(j["message"]));
    }
    if (j.contains("statusUpdate")) {
        return wrap(parseStatusUpdate(j["statusUpdate"]));
    }
    if (j.contains("artifactUpdate")) {
        return wrap(parseArtifactUpdate(j["artifactUpdate"]));
    }
    return fail(
        bad("the result has neither 'kind' (0.3) nor a task, message, statusUpdate or artifactUpdate "
            "member (1.0)"));
}

// ---- Agent Card ----

const AgentInterface& AgentCard::preferred() const {
    for (const auto& interface : interfaces) {
        if (interface.version == ProtocolVersion::v1_0) {
            return interface;
        }
    }
    return interfaces.front();
}

json toJson(const AgentCard& card, bool legacyOnly) {
    json skills = json::array();
    for (const auto& skill : card.skills) {
        skills.push_back({{"id", skill.id},
                          {"name", skill.name},
                          {"description", skill.description},
                          {"tags", skill.tags}});
    }
    std::string legacyUrl;
    json additional = json::array();
    json supported = json::array();
    for (const auto& interface : card.interfaces) {
        if (interface.version == ProtocolVersion::v0_3) {
            if (legacyUrl.empty()) {
                legacyUrl = interface.url;
            }
            additional.push_back({{"url", interface.url}, {"transport", "JSONRPC"}});
        }
        supported.push_back({{"url", interface.url},
                             {"protocolBinding", "JSONRPC"},
                             {"protocolVersion", std::string(toString(interface.version))}});
    }
    if (legacyUrl.empty() && !card.interfaces.empty()) {
        legacyUrl = card.interfaces.front().url;
    }
    json out = {{"name", card.name},
                {"description", card.description},
                {"version", card.version},
                {"capabilities", {{"streaming", card.streaming}, {"pushNotifications", false}}},
                {"defaultInputModes", {"text/plain"}},
                {"defaultOutputModes", {"text/plain"}},
                {"skills", std::move(skills)},
                {"url", legacyUrl},
                {"protocolVersion", "0.3.0"},
                {"preferredTransport", "JSONRPC"},
                {"additionalInterfaces", std::move(additional)}};
    if (!legacyOnly) {
        out["supportedInterfaces"] = std::move(supported);
    }
    return out;
}

expected<AgentCard, A2aError> parseAgentCard(const json& j) {
    const auto malformed = [](std::string why) {
        return A2aError{A2aErrc::malformed_card, "malformed Agent Card: " + std::move(why)};
    };
    if (!j.is_object()) {
        return fail(malformed("not a JSON object"));
    }
    AgentCard card;
    card.name = stringOr(j, "name");
    if (card.name.empty()) {
        return fail(malformed("missing string field 'name'"));
    }
    card.description = stringOr(j, "description");
    card.version = stringOr(j, "version", card.version);
    if (const auto it = j.find("capabilities"); it != j.end()) {
        if (!it->is_object()) {
            return fail(malformed("field 'capabilities' is not an object"));
        }
        card.streaming = boolOr(*it, "streaming", false);
    }
    const auto usableUrl = [](const json& url) {
        if (!url.is_string()) {
            return false;
        }
        const auto text = url.get<std::string>();
        return text.rfind("http://", 0) == 0 || text.rfind("https://", 0) == 0;
    };
    if (const auto it = j.find("supportedInterfaces"); it != j.end()) {
        if (!it->is_array()) {
            return fail(malformed("field 'supportedInterfaces' is not an array"));
        }
        for (const auto& item : *it) {
            if (!item.is_object() || stringOr(item, "protocolBinding") != "JSONRPC") {
                continue;
            }
            if (!usableUrl(item.value("url", json()))) {
                return fail(malformed("an interface of 'supportedInterfaces' has no http(s) 'url'"));
            }
            const std::string version = stringOr(item, "protocolVersion", "1.0");
            card.interfaces.push_back(
                AgentInterface{item["url"].get<std::string>(),
                               version.rfind("0.", 0) == 0 ? ProtocolVersion::v0_3 : ProtocolVersion::v1_0});
        }
    }
    // The 0.3 fields: the main url with its preferred transport, then the additional interfaces.
    if (const auto it = j.find("url"); it != j.end() && !it->is_null()) {
        if (!usableUrl(*it)) {
            return fail(malformed("field 'url' is not an http(s) URL"));
        }
        if (stringOr(j, "preferredTransport", "JSONRPC") == "JSONRPC") {
            card.interfaces.push_back(AgentInterface{it->get<std::string>(), ProtocolVersion::v0_3});
        }
    }
    if (const auto it = j.find("additionalInterfaces"); it != j.end() && it->is_array()) {
        for (const auto& item : *it) {
            if (item.is_object() && stringOr(item, "transport") == "JSONRPC" &&
                usableUrl(item.value("url", json()))) {
                card.interfaces.push_back(
                    AgentInterface{item["url"].get<std::string>(), ProtocolVersion::v0_3});
            }
        }
    }
    if (card.interfaces.empty()) {
        return fail(
            malformed("no JSON-RPC interface ('supportedInterfaces' with protocolBinding JSONRPC, or "
                      "'url' with preferredTransport JSONRPC)"));
    }
    if (const auto it = j.find("skills"); it != j.end() && it->is_array()) {
        for (const auto& item : *it) {
            if (item.is_object()) {
                card.skills.push_back(AgentSkill{
                    stringOr(item, "id"), stringOr(item, "name"), stringOr(item, "description"), {}});
            }
        }
    }
    return card;
}

}  // namespace reagent::a2a
