#include "client_session.hpp"

#include <algorithm>
#include <utility>

#include "reagent/core/json_fields.hpp"
#include "reagent/mcp/protocol_version.hpp"

namespace reagent::mcp::detail {

namespace {

using nlohmann::json;

// A connection that stayed up this long resets the count of reconnections in a row.
constexpr std::chrono::seconds kStableConnection{30};

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

}  // namespace

ClientSession::ClientSession(ServerConfig config, Offer offer)
    : config_(std::move(config)), offer_(std::move(offer)), rpc_(config_.limits) {}

json ClientSession::initializeParams() const {
    json capabilities = json::object();
    if (offer_.roots) {
        capabilities["roots"] = json{{"listChanged", true}};
    }
    if (offer_.sampling) {
        capabilities["sampling"] = json::object();
    }
    if (offer_.elicitation) {
        capabilities["elicitation"] = json{{"form", json::object()}};
    }
    json info{{"name", offer_.clientInfo.name}, {"version", offer_.clientInfo.version}};
    if (!offer_.clientInfo.title.empty()) {
        info["title"] = offer_.clientInfo.title;
    }
    return json{{"protocolVersion", std::string(kLatestProtocolVersion)},
                {"capabilities", std::move(capabilities)},
                {"clientInfo", std::move(info)}};
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
