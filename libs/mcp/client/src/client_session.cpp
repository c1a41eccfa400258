#include "client_session.hpp"

#include <algorithm>
#include <utility>

#include "reagent/core/json_fields.hpp"
#include "reagent/mcp/envelope.hpp"
#include "reagent/mcp/protocol_version.hpp"

namespace reagent::mcp::detail {

namespace {

using nlohmann::json;

// A connection that stayed up this long resets the count of reconnections in a row.
constexpr std::chrono::seconds kStableConnection{30};

std::vector<std::string> stringList(const json& object, const char* key) {
    std::vector<std::string> out;
    if (!object.is_object()) {
        return out;
    }
    const auto it = object.find(key);
    if (it == object.end() || !it->is_array()) {
        return out;
    }
    for (const json& entry : *it) {
        if (entry.is_string()) {
            out.push_back(entry.get<std::string>());
        }
    }
    return out;
}

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& item : items) {
        out += out.empty() ? "" : ", ";
        out += item;
    }
    return out.empty() ? "none" : out;
}

// A server's hint of another type reads as no hint.
std::optional<bool> hint(const json& annotations, const char* key) {
    return optionalBool(annotations, key).value_or(std::nullopt);
}

std::int64_t idNumber(const RequestId& id) {
    return std::holds_alternative<std::int64_t>(id) ? std::get<std::int64_t>(id) : -1;
}

ToolInfo parseTool(const json& entry) {
    ToolInfo tool;
    tool.name = stringOr(entry, "name");
    tool.title = stringOr(entry, "title");
    tool.description = stringOr(entry, "description");
    if (entry.contains("inputSchema") && entry.at("inputSchema").is_object()) {
        tool.inputSchema = entry.at("inputSchema");
    } else {
        tool.inputSchema = json{{"type", "object"}};
    }
    if (entry.contains("outputSchema") && entry.at("outputSchema").is_object()) {
        tool.outputSchema = entry.at("outputSchema");
    }
    const json annotations = entry.value("annotations", json::object());
    tool.annotations.title = stringOr(annotations, "title");
    tool.annotations.readOnlyHint = hint(annotations, "readOnlyHint");
    tool.annotations.destructiveHint = hint(annotations, "destructiveHint");
    tool.annotations.idempotentHint = hint(annotations, "idempotentHint");
    tool.annotations.openWorldHint = hint(annotations, "openWorldHint");
    if (tool.title.empty()) {
        tool.title = tool.annotations.title;
    }
    return tool;
}

}  // namespace

json rootsResult(const std::vector<Root>& roots) {
    json list = json::array();
    for (const Root& root : roots) {
        json entry{{"uri", root.uri}};
        if (!root.name.empty()) {
            entry["name"] = root.name;
        }
        list.push_back(std::move(entry));
    }
    return json{{"roots", std::move(list)}};
}

ClientSession::ClientSession(ServerConfig config, Offer offer)
    : config_(std::move(config)), offer_(std::move(offer)), rpc_(config_.limits) {}

json ClientSession::capabilities() const {
    json capabilities = json::object();
    // In 2026-07-28 the questions come back as `input_required` results, answered by the same handlers;
    // roots have no list_changed notification there.
    if (offer_.roots) {
        capabilities["roots"] = era_ == Era::modern ? json::object() : json{{"listChanged", true}};
    }
    if (offer_.sampling) {
        capabilities["sampling"] = json::object();
    }
    if (offer_.elicitation) {
        capabilities["elicitation"] = json{{"form", json::object()}};
    }
    return capabilities;
}

json ClientSession::clientInfo() const {
    json info{{"name", offer_.clientInfo.name}, {"version", offer_.clientInfo.version}};
    if (!offer_.clientInfo.title.empty()) {
        info["title"] = offer_.clientInfo.title;
    }
    return info;
}

json ClientSession::initializeParams() const {
    return json{{"protocolVersion", std::string(kLatestProtocolVersion)},
                {"capabilities", capabilities()},
                {"clientInfo", clientInfo()}};
}

bool ClientSession::probes() const noexcept {
    if (config_.era == ProtocolEra::legacy || knownLegacy_) {
        return false;
    }
    return config_.transport == TransportKind::stdio || config_.transport == TransportKind::streamable_http;
}

void ClientSession::speakModern(std::string version) {
    era_ = Era::modern;
    modernVersion_ = std::move(version);
    envelope_ = nullptr;
}

ProbeVerdict ClientSession::handshake(std::string why, bool restart) {
    ProbeVerdict verdict;
    if (config_.era == ProtocolEra::modern) {
        verdict.kind = ProbeVerdict::Kind::failed;
        verdict.error = McpError{McpErrc::unsupported_version,
                                 label() + " does not speak MCP " + std::string(kModernProtocolVersion) +
                                     ", which its configuration requires (era modern): " + why};
        return verdict;
    }
    era_ = Era::legacy;
    modernVersion_.clear();
    knownLegacy_ = true;
    verdict.kind = ProbeVerdict::Kind::legacy;
    verdict.restart = restart;
    return verdict;
}

ProbeVerdict ClientSession::judgeProbe(const expected<json, RpcError>& answer, bool second) {
    if (answer) {
        const json& result = *answer;
        const std::vector<std::string> versions = stringList(result, "supportedVersions");
        if (std::find(versions.begin(), versions.end(), modernVersion_) == versions.end()) {
            return handshake("its server/discover names the versions " + joined(versions));
        }
        ProbeVerdict verdict;
        verdict.kind = ProbeVerdict::Kind::modern;
        ServerInfo& info = verdict.server;
        info.protocolVersion = modernVersion_;
        // The identity travels in the result's `_meta` since 2026-07-28; earlier drafts put it on top.
        json implementation = json::object();
        if (const json meta = result.value("_meta", json::object()); meta.is_object()) {
            implementation = meta.value(kMetaServerInfo, json::object());
        }
        if (!implementation.is_object() || implementation.empty()) {
            implementation = result.value("serverInfo", json::object());
        }
        info.implementation = {stringOr(implementation, "name"), stringOr(implementation, "version"),
                               stringOr(implementation, "title")};
        const json capabilities = result.value("capabilities", json::object());
        info.capabilities = capabilities.is_object() ? capabilities : json::object();
        info.instructions = stringOr(result, "instructions");
        return verdict;
    }
    const RpcError& error = answer.error();
    if (error.code != kUnsupportedProtocolVersion) {
        return handshake("it answered server/discover with " + error.describe());
    }
    const std::vector<std::string> supported = stringList(error.data, "supported");
    const std::string modern(kModernProtocolVersion);
    if (std::find(supported.begin(), supported.end(), modern) != supported.end()) {
        if (second) {
            ProbeVerdict verdict;
            verdict.kind = ProbeVerdict::Kind::failed;
            verdict.error = McpError{McpErrc::unsupported_version,
                                     label() + " refused version " + modern + " twice although it names it " +
                                         "among the versions it serves (" + joined(supported) + ")"};
            return verdict;
        }
        ProbeVerdict verdict;
        verdict.kind = ProbeVerdict::Kind::retry;
        verdict.version = modern;
        return verdict;
    }
    if (std::any_of(supported.begin(), supported.end(), isHandshakeVersion)) {
        return handshake("it serves " + joined(supported));
    }
    ProbeVerdict verdict;
    verdict.kind = ProbeVerdict::Kind::failed;
    verdict.error = McpError{McpErrc::unsupported_version,
                             label() + " serves the protocol versions " + joined(supported) +
                                 "; reagent speaks " + modern + " and the initialize handshake (" +
                                 std::string(kLatestProtocolVersion) + " and earlier)"};
    return verdict;
}

ProbeVerdict ClientSession::judgeProbeFailure(const McpError& error) {
    if (error.code == McpErrc::cancelled || error.code == McpErrc::unauthorized) {
        ProbeVerdict verdict;
        verdict.kind = ProbeVerdict::Kind::failed;
        verdict.error = error;
        return verdict;
    }
    if (config_.transport == TransportKind::stdio) {
        // Some servers of the handshake era ignore a request before `initialize`, and some exit on it:
        // the handshake then runs on the same process, or on a new one.
        const bool silent = error.code == McpErrc::timeout;
        return handshake(silent ? "it did not answer server/discover" : error.message, !silent);
    }
    if (error.code == McpErrc::timeout) {
        ProbeVerdict verdict;
        verdict.kind = ProbeVerdict::Kind::failed;
        verdict.error = McpError{McpErrc::timeout, label() + " did not answer server/discover in time"};
        return verdict;
    }
    // An HTTP refusal without a 2026 error: a server of the handshake era (the handshake reports the
    // refusal again if the server refuses everything).
    return handshake(error.message);
}

expected<ClientSession::ResultKind, McpError> ClientSession::checkResult(std::string_view method,
                                                                         const json& result) const {
    if (era_ != Era::modern || !result.is_object()) {
        return ResultKind::complete;
    }
    const auto type = result.find("resultType");
    if (type == result.end() || (type->is_string() && type->get_ref<const std::string&>() == "complete")) {
        return ResultKind::complete;  // an absent resultType reads as complete (servers of earlier drafts)
    }
    if (type->is_string() && type->get_ref<const std::string&>() == "input_required") {
        if (method != "tools/call" && method != "prompts/get" && method != "resources/read") {
            return fail(McpError{McpErrc::malformed_message,
                                 label() + " answered " + std::string(method) +
                                     " with input_required, which only tools/call, prompts/get and "
                                     "resources/read may return"});
        }
        const auto questions = result.find("inputRequests");
        const auto state = result.find("requestState");
        const bool asks = questions != result.end() && questions->is_object();
        const bool keeps = state != result.end() && state->is_string();
        if ((questions != result.end() && !asks) || (state != result.end() && !keeps) || (!asks && !keeps)) {
            return fail(McpError{McpErrc::malformed_message,
                                 label() + " answered " + std::string(method) +
                                     " with input_required but no inputRequests object or requestState "
                                     "string"});
        }
        return ResultKind::inputRequired;
    }
    return fail(McpError{McpErrc::malformed_message, label() + " answered " + std::string(method) +
                                                         " with the unknown resultType " + type->dump()});
}

expected<ServerInfo, McpError> ClientSession::acceptInitialize(const json& result) const {
    const std::string version = stringOr(result, "protocolVersion");
    auto accepted = acceptServerVersion(version);
    if (!accepted) {
        return fail(McpError{McpErrc::unsupported_version, label() + ": " + accepted.error().message});
    }
    ServerInfo info;
    info.protocolVersion = version;
    const json implementation = result.value("serverInfo", json::object());
    info.implementation = {stringOr(implementation, "name"), stringOr(implementation, "version"),
                           stringOr(implementation, "title")};
    info.capabilities = result.value("capabilities", json::object());
    info.instructions = stringOr(result, "instructions");
    return info;
}

std::string ClientSession::initializedNotification() const {
    return rpc_.notify("notifications/initialized");
}

McpError ClientSession::handshakeFailed(McpError error) const {
    if (error.code != McpErrc::cancelled && error.code != McpErrc::timeout &&
        error.code != McpErrc::unauthorized) {
        error.code = McpErrc::connect_failed;
    }
    error.message = label() + " did not initialise: " + error.message;
    return error;
}

void ClientSession::connected(ServerInfo info, Clock::time_point now) {
    server_ = std::move(info);
    connectedAt_ = now;
    phase_ = Phase::connected;
}

ClientSession::Outgoing ClientSession::startRequest(std::string_view method, json params, bool progress) {
    Pending entry;
    if (era_ == Era::modern) {
        if (!params.is_object()) {
            params = json::object();
        }
        if (envelope_.is_null()) {
            envelope_ = json::object();
            envelope_[kMetaProtocolVersion] = modernVersion_;
            envelope_[kMetaClientCapabilities] = capabilities();
            envelope_[kMetaClientInfo] = clientInfo();
            if (!offer_.logLevel.empty()) {
                envelope_[kMetaLogLevel] = offer_.logLevel;
            }
        }
        json& meta = params["_meta"];
        if (!meta.is_object()) {
            meta = envelope_;
        } else {
            for (const auto& [key, value] : envelope_.items()) {
                meta[key] = value;
            }
        }
    }
    if (progress) {
        entry.progressToken = "reagent-" + std::to_string(nextProgressToken_++);
        if (!params.is_object()) {
            params = json::object();
        }
        params["_meta"]["progressToken"] = entry.progressToken;
    }
    RpcSession::Outgoing outgoing = rpc_.request(std::string(method), std::move(params));
    const std::int64_t id = idNumber(outgoing.id);
    if (!entry.progressToken.empty()) {
        progressTokens_[entry.progressToken] = id;
    }
    pending_.emplace(id, std::move(entry));
    return Outgoing{id, std::move(outgoing.frame)};
}

void ClientSession::armDeadline(std::int64_t id, Clock::time_point deadline) {
    if (auto it = pending_.find(id); it != pending_.end()) {
        it->second.deadline = deadline;
    }
}

std::vector<std::int64_t> ClientSession::expired(Clock::time_point now) const {
    std::vector<std::int64_t> ids;
    for (const auto& [id, entry] : pending_) {
        if (entry.deadline <= now) {
            ids.push_back(id);
        }
    }
    return ids;
}

Clock::time_point ClientSession::nextDeadline(Clock::time_point now) const {
    auto next = Clock::time_point::max();
    for (const auto& [id, entry] : pending_) {
        if (entry.deadline > now) {
            next = std::min(next, entry.deadline);
        }
    }
    return next;
}

void ClientSession::forget(std::int64_t id) {
    if (auto it = pending_.find(id); it != pending_.end()) {
        if (!it->second.progressToken.empty()) {
            progressTokens_.erase(it->second.progressToken);
        }
        pending_.erase(it);
    }
    rpc_.forget(RequestId{id});
}

std::string ClientSession::abandon(std::int64_t id, bool cancelled) {
    forget(id);
    json params{{"requestId", id}, {"reason", cancelled ? "cancelled by the client" : "timed out"}};
    return rpc_.notify("notifications/cancelled", std::move(params));
}

McpError ClientSession::cancelledError(std::string_view method) const {
    return {McpErrc::cancelled, std::string(method) + " to " + label() + " was cancelled"};
}

McpError ClientSession::timeoutError(std::string_view method) const {
    return {McpErrc::timeout, std::string(method) + " to " + label() + " got no response in time"};
}

McpError ClientSession::remoteError(std::string_view method, const RpcError& error) {
    return {McpErrc::remote_error, std::string(method) + " failed: " + error.describe()};
}

ClientSession::Effects ClientSession::receive(std::string_view frame,
                                              const std::optional<std::vector<Root>>& roots) {
    Effects effects;
    RpcSession::Received received = rpc_.receive(frame);
    effects.replies = std::move(received.replies);
    for (RpcSession::Event& event : received.events) {
        if (auto* done = std::get_if<RpcSession::Completed>(&event)) {
            const std::int64_t id = idNumber(done->id);
            if (auto it = pending_.find(id); it != pending_.end()) {
                if (!it->second.progressToken.empty()) {
                    progressTokens_.erase(it->second.progressToken);
                }
                pending_.erase(it);
            }
            effects.completions.push_back(Completion{id, std::move(done->outcome)});
        } else if (auto* request = std::get_if<Request>(&event)) {
            if (request->method == "ping") {
                effects.replies.push_back(rpc_.respond(request->id, json::object()));
            } else if (request->method == "roots/list" && offer_.roots && roots) {
                effects.replies.push_back(rpc_.respond(request->id, rootsResult(*roots)));
            } else if ((request->method == "sampling/createMessage" && offer_.sampling) ||
                       (request->method == "elicitation/create" && offer_.elicitation)) {
                effects.serve.push_back(std::move(*request));
            } else {
                effects.replies.push_back(
                    rpc_.respond(request->id, unexpected(RpcError{kMethodNotFound,
                                                                  "Method not found: this client does not "
                                                                  "handle '" +
                                                                      request->method + "'"})));
            }
        } else if (auto* note = std::get_if<Notification>(&event)) {
            const json& params = note->params;
            if (note->method == "notifications/progress") {
                const json token = params.is_object() ? params.value("progressToken", json()) : json();
                const std::string key = token.is_string() ? token.get<std::string>() : token.dump();
                auto it = progressTokens_.find(key);
                if (it == progressTokens_.end()) {
                    continue;
                }
                Progress progress;
                if (params.contains("progress") && params.at("progress").is_number()) {
                    progress.progress = params.at("progress").get<double>();
                }
                if (params.contains("total") && params.at("total").is_number()) {
                    progress.total = params.at("total").get<double>();
                }
                progress.message = stringOr(params, "message");
                effects.progress.push_back(ProgressFor{it->second, std::move(progress)});
            } else if (note->method == "notifications/message") {
                effects.logs.push_back(
                    LogMessage{stringOr(params, "level"), stringOr(params, "logger"),
                               params.is_object() ? params.value("data", json()) : json()});
            } else if (note->method == "notifications/tools/list_changed") {
                effects.toolsChanged = true;
            } else if (note->method == "notifications/cancelled") {
                const json id = params.is_object() ? params.value("requestId", json()) : json();
                effects.cancelInbound.push_back(id.is_string() ? "\"" + id.get<std::string>() + "\""
                                                               : id.dump());
            }
        } else if (auto* problem = std::get_if<RpcSession::Problem>(&event)) {
            effects.problems.push_back(std::move(problem->error));
        }
    }
    return effects;
}

std::string ClientSession::respond(const RequestId& id, expected<json, RpcError> outcome) const {
    return rpc_.respond(id, std::move(outcome));
}

std::string ClientSession::notify(std::string_view method, json params) const {
    return rpc_.notify(std::string(method), std::move(params));
}

std::optional<ClientSession::Drop> ClientSession::dropped(std::uint64_t generation, const McpError& cause) {
    if (generation != generation_) {
        return std::nullopt;
    }
    const bool up = phase_ == Phase::connected;
    if (!up && phase_ != Phase::connecting && phase_ != Phase::reconnecting) {
        return std::nullopt;
    }
    Drop drop;
    drop.error = McpError{McpErrc::connection_closed, cause.message.find(label()) == std::string::npos
                                                          ? label() + " disconnected: " + cause.message
                                                          : cause.message};
    // A handshake in progress: its `initialize` fails, and the connecting code reports it.
    drop.failed = failAll();
    if (up) {
        phase_ = Phase::reconnecting;
        drop.reconnect = true;
    }
    return drop;
}

std::vector<std::int64_t> ClientSession::failAll() {
    std::vector<std::int64_t> ids;
    ids.reserve(pending_.size());
    for (const auto& [id, entry] : pending_) {
        ids.push_back(id);
        rpc_.forget(RequestId{id});
    }
    pending_.clear();
    progressTokens_.clear();
    return ids;
}

void ClientSession::beginReconnect(Clock::time_point now) {
    if (now - connectedAt_ > kStableConnection) {
        attemptsInARow_ = 0;
    }
    nextDelay_ = config_.reconnectDelay;
}

std::variant<ClientSession::Attempt, McpError> ClientSession::nextAttempt(const McpError& last) {
    if (attemptsInARow_ >= config_.maxReconnects) {
        lastError_ =
            McpError{McpErrc::connection_closed, label() + " is unavailable: gave up after " +
                                                     std::to_string(config_.maxReconnects) +
                                                     " reconnection(s); last error: " + last.message};
        phase_ = Phase::failed;
        return *lastError_;
    }
    ++attemptsInARow_;
    Attempt attempt;
    attempt.delay = nextDelay_;
    nextDelay_ *= 2;
    attempt.notice = McpError{McpErrc::connection_closed,
                              label() + " reconnecting (attempt " + std::to_string(attemptsInARow_) + " of " +
                                  std::to_string(config_.maxReconnects) + ") after: " + last.message};
    return attempt;
}

expected<ToolPage, McpError> ClientSession::readToolPage(const json& result) {
    const json list = result.value("tools", json::array());
    if (!list.is_array()) {
        return fail(McpError{McpErrc::malformed_message, label() + ": tools/list result has no tools array"});
    }
    ToolPage page;
    for (const json& entry : list) {
        ToolInfo tool = parseTool(entry);
        if (tool.name.empty()) {
            page.problems.push_back(
                McpError{McpErrc::malformed_message, label() + " listed a tool without a name"});
            continue;
        }
        annotations_[tool.name] = tool.annotations;
        page.tools.push_back(std::move(tool));
    }
    page.nextCursor = stringOr(result, "nextCursor");
    if (const auto ttl = result.find("ttlMs"); ttl != result.end() && ttl->is_number_unsigned()) {
        page.ttl = std::chrono::milliseconds(ttl->get<std::uint64_t>());
    }
    return page;
}

bool ClientSession::mayResend(const std::string& tool) const {
    auto it = annotations_.find(tool);
    return it != annotations_.end() && it->second.safeToRetry();
}

CallResult ClientSession::readCallResult(json result) {
    // The result is ours: its members are moved out, not copied.
    CallResult out;
    if (auto content = result.find("content"); content != result.end() && content->is_array()) {
        out.content = std::move(*content);
    }
    if (auto structured = result.find("structuredContent"); structured != result.end()) {
        out.structuredContent = std::move(*structured);
    }
    out.isError = boolOr(result, "isError", false);
    out.text = contentToText(out.content);
    if (out.text.empty() && !out.structuredContent.is_null()) {
        out.text = out.structuredContent.dump();
    }
    return out;
}

}  // namespace reagent::mcp::detail
