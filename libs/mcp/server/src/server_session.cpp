// A server session: dispatches the client's requests and runs its tool calls.

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <utility>

#include "call_race.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/json_fields.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/mcp/envelope.hpp"
#include "reagent/mcp/protocol_version.hpp"
#include "reagent/mcp/server.hpp"
#include "reagent/telemetry/telemetry.hpp"
#include "reagent/telemetry/trace_context.hpp"
#include "served_trace.hpp"
#include "server_state.hpp"
#include "server_tools.hpp"

namespace reagent::mcp {

namespace asio = boost::asio;
using nlohmann::json;
using Session = ServerSession::State;

namespace {

RpcError rpcError(int code, std::string message) {
    return RpcError{code, std::move(message), nullptr};
}

// Runs one call, raced against its cancellation event (`notifications/cancelled`); the session's task
// group cancels both when the session closes. Responds unless the call was cancelled.
Task<void> runCall(std::shared_ptr<Session> self, RequestId id, tools::ToolCallRequest call,
                   std::shared_ptr<Session::Call> state, SpanContext trace) {
    const std::string callId = call.id;
    if (trace.valid()) {
        call.trace = &trace;  // this frame outlives the call
    }
    auto run = self->server->executor.executeOne(std::move(call), 0);
    auto racing = detail::raceCall(self, id, std::move(run), state);
    auto raced = co_await std::move(racing);
    self->server->progress.erase(callId);
    if (raced.over) {
        if (self->traced) {
            self->traced->abandon(id, self->version);
        }
        co_return;
    }
    const std::size_t maxBytes = self->server->options.maxResultBytes;
    if (raced.error) {
        // The executor never throws; should it, the client still gets an answer.
        const auto failure = reagent::detail::settledError(raced.error, false);
        self->respond(id, detail::callResult(
                              fail(tools::ToolError{tools::ToolErrc::exception, failure.message}), maxBytes));
        co_return;
    }
    json result = detail::callResult(*raced.value, maxBytes);
    if (result.value("isError", false) && detail::refuseMissingCapability(*self, id, *state, "tool")) {
        co_return;
    }
    self->respond(id, std::move(result));
}

// The capability a client must have declared for a request a handler sends it; empty: none needed.
std::string capabilityFor(std::string_view method) {
    if (method == "sampling/createMessage") {
        return "sampling";
    }
    if (method == "elicitation/create") {
        return "elicitation";
    }
    if (method == "roots/list") {
        return "roots";
    }
    return {};
}

// The key a handler gave its question (`SamplingRequest::key`, ...), taken out of the params.
std::string takeInputKey(json& params) {
    std::string key;
    if (params.is_object()) {
        if (const auto found = params.find(detail::kInputKeyField); found != params.end()) {
            if (found->is_string()) {
                key = found->get<std::string>();
            }
            params.erase(found);
        }
    }
    return key;
}

// Ends a call's round after `hops` turns of its executor: questions the handler asks at the same time (in
// tasks of their own) are asked by then, and join the round.
void endRoundSoon(const Executor& executor, std::weak_ptr<Session::Call> call, int hops) {
    asio::post(executor, [executor, call = std::move(call), hops]() mutable {
        if (hops > 1) {
            endRoundSoon(executor, std::move(call), hops - 1);
        } else if (const auto alive = call.lock()) {
            alive->cancel.set();
        }
    });
}

// A handler's question in a 2026-07-28 call: answered from the round's answers, or asked. An unanswered
// question ends the round: once the handler had a moment to ask the others it asks at the same time, the
// call stops and answers input_required; the handler runs again when the client calls with the answers.
Task<expected<json, tools::ToolError>> askInRound(std::weak_ptr<Session> weak,
                                                  std::weak_ptr<Session::Call> weakCall, std::string method,
                                                  json params) {
    using tools::ToolErrc;
    using tools::ToolError;
    const auto self = weak.lock();
    const auto call = weakCall.lock();
    if (!self || !call || self->closed) {
        co_return fail(
            ToolError{ToolErrc::failed, "the client's request is over: " + method + " cannot be asked"});
    }
    detail::InputRound& round = *call->round;
    std::string key = takeInputKey(params);
    if (key.empty()) {
        key = method.substr(0, method.find('/')) + "_" + std::to_string(++round.unnamed);
    }
    if (json missing = detail::missingCapability(round.capabilities, method, params); !missing.is_null()) {
        const std::string named = missing.begin().key();
        if (call->missingCapability.is_null()) {
            call->missingCapability = std::move(missing);
        }
        co_return fail(ToolError{
            ToolErrc::failed,
            "the request did not declare the " + named + " capability, so " + method + " cannot be asked",
            json{{"capability", named}}});
    }
    if (const auto answer = round.answers.find(key);
        answer != round.answers.end() && detail::answersQuestion(method, *answer)) {
        round.used[key] = *answer;
        co_return *answer;
    }
    round.asked[key] = json{{"method", method}, {"params", std::move(params)}};
    if (!round.required) {
        round.required = true;
        endRoundSoon(self->executor, call, 4);
    }
    // Until the round ends (the call's race cancels this wait).
    asio::steady_timer untilEnded(self->executor, asio::steady_timer::time_point::max());
    auto wait = untilEnded.async_wait(asio::as_tuple(asio::use_awaitable));
    co_await std::move(wait);
    co_return fail(ToolError{ToolErrc::cancelled, method + " is asked of the client: this round ends"});
}

// A request from a tool handler to the client of the call `related`: sent on that call's stream, answered
// through `Session::complete`. Cancelling the handler (or the session closing) forgets the request.
Task<expected<json, tools::ToolError>> askClient(std::weak_ptr<Session> weak, RequestId related,
                                                 std::string method, json params) {
    using tools::ToolErrc;
    using tools::ToolError;
    const auto self = weak.lock();
    if (!self || self->closed) {
        co_return fail(
            ToolError{ToolErrc::failed, "the client's session is closed: " + method + " was not sent"});
    }
    takeInputKey(params);  // a 2025 request needs no key: its answer comes back on it
    const std::string capability = capabilityFor(method);
    if (!capability.empty() && !self->clientCapabilities.contains(capability)) {
        co_return fail(ToolError{ToolErrc::failed,
                                 "the client did not declare the " + capability +
                                     " capability in initialize, so the server cannot send it " + method,
                                 json{{"capability", capability}}});
    }
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        co_return fail(ToolError{ToolErrc::cancelled, "cancelled before " + method + " was sent"});
    }
    auto outgoing = self->rpc.request(method, std::move(params));
    const RequestId id = outgoing.id;
    auto waiting = std::make_shared<Session::Pending>(self->executor);
    self->pending.emplace(id, waiting);
    self->send(OutgoingFrame{std::move(outgoing.frame), related, false});
    waiting->wake.expires_after(self->server->options.clientRequestTimeout);
    auto wait = waiting->wake.async_wait(asio::as_tuple(asio::use_awaitable));
    auto [error] = co_await std::move(wait);
    self->pending.erase(id);
    if (waiting->outcome) {
        if (!*waiting->outcome) {
            const auto& refused = waiting->outcome->error();
            co_return fail(ToolError{ToolErrc::failed,
                                     "the client refused " + method + ": " + refused.describe(),
                                     json{{"code", refused.code}, {"message", refused.message}}});
        }
        co_return std::move(**waiting->outcome);
    }
    self->rpc.forget(id);  // a late answer is then reported, not delivered
    if (error == asio::error::operation_aborted) {
        co_return fail(ToolError{ToolErrc::cancelled, method + " was abandoned: the call was cancelled"});
    }
    co_return fail(ToolError{ToolErrc::timeout,
                             "the client did not answer " + method + " within " +
                                 std::to_string(self->server->options.clientRequestTimeout.count()) + " ms"});
}

std::shared_ptr<const tools::CallChannel> channelFor(const std::shared_ptr<Session>& session,
                                                     RequestId related,
                                                     const std::shared_ptr<Session::Call>& call) {
    auto channel = std::make_shared<tools::CallChannel>();
    std::weak_ptr<Session> weak = session;
    std::weak_ptr<Session::Call> weakCall = call;
    const bool modern = call->round != nullptr;
    if (modern) {
        channel->request = [weak, weakCall](std::string method, json params) {
            return askInRound(weak, weakCall, std::move(method), std::move(params));
        };
    } else {
        channel->request = [weak, related](std::string method, json params) {
            return askClient(weak, related, std::move(method), std::move(params));
        };
    }
    channel->notify = [weak, weakCall, related, modern](std::string method, json params) {
        const auto self = weak.lock();
        const auto call = weakCall.lock();
        if (!self || (!modern && !self->initialized)) {
            return;
        }
        if (method == "notifications/message" && params.is_object()) {
            // 2025: the session's level; 2026-07-28: the request's, and none without one.
            const auto wanted =
                modern ? (call ? call->logLevel : std::nullopt) : std::optional<LogLevel>(self->level);
            const auto level = parseLogLevel(stringOr(params, "level"));
            if (!wanted || (level && *level < *wanted)) {
                return;  // below the level the client asked for
            }
        }
        self->send(OutgoingFrame{self->rpc.notify(std::move(method), std::move(params)), related, false});
    };
    return channel;
}

// A request carrying the 2026-07-28 envelope's claim (`params._meta` names a protocol version).
bool claimsModern(const json& params) {
    if (!params.is_object()) {
        return false;
    }
    const auto meta = params.find("_meta");
    return meta != params.end() && meta->is_object() && meta->contains(kMetaProtocolVersion);
}

bool isBatch(std::string_view frame) {
    const auto first = frame.find_first_not_of(" \t\r\n");
    return first != std::string_view::npos && frame[first] == '[';
}

}  // namespace

void Session::send(OutgoingFrame frame) {
    if (closed || !sink) {
        return;
    }
    (void)settleCall(sink, std::move(frame));
}

void Session::respond(const RequestId& id, expected<json, RpcError> outcome) {
    if (traced) {
        traced->end(id, outcome, modern.contains(id) ? std::string_view(kModernProtocolVersion) : version);
    }
    if (const auto served = modern.find(id); served != modern.end()) {
        const ModernRequest request = std::move(served->second);
        modern.erase(served);
        if (outcome) {
            send(OutgoingFrame{rpc.respond(id, stampModern(std::move(*outcome), request)), id, true});
            return;
        }
        RpcError error = std::move(outcome.error());
        if (error.code == kResourceNotFound) {
            error.code = kInvalidParams;  // 2026-07-28 names a missing resource an invalid parameter
        }
        OutgoingFrame frame{rpc.respond(id, fail(error)), id, true};
        if (error.code == kMethodNotFound || error.code == kMissingClientCapability) {
            frame.refusal = error.code;
        }
        send(std::move(frame));
        return;
    }
    for (auto& batch : batches) {
        if (batch->waiting.erase(id) > 0) {
            batch->responses.push_back(rpc.respond(id, std::move(outcome)));
            unanswered(id);  // sends the array once the batch's last request is answered
            return;
        }
    }
    send(OutgoingFrame{rpc.respond(id, std::move(outcome)), id, true});
}

void Session::unanswered(const RequestId& id) {
    for (auto it = batches.begin(); it != batches.end(); ++it) {
        auto& batch = **it;
        batch.waiting.erase(id);
        if (!batch.waiting.empty()) {
            continue;
        }
        if (!batch.responses.empty()) {
            std::string array = "[";
            for (std::size_t i = 0; i < batch.responses.size(); ++i) {
                array += (i == 0 ? "" : ",") + batch.responses[i];
            }
            array += "]";
            send(OutgoingFrame{std::move(array), batch.first, true});
        }
        batches.erase(it);
        return;
    }
}

void Session::complete(RpcSession::Completed completed) {
    const auto found = pending.find(completed.id);
    if (found == pending.end()) {
        return;  // the waiting handler already gave up
    }
    found->second->outcome = std::move(completed.outcome);
    found->second->wake.cancel();
}

void Session::notify(std::string method, json params) {
    send(OutgoingFrame{rpc.notify(std::move(method), std::move(params)), std::nullopt, false});
}

void Session::log(LogLevel at, json data, const std::string& logger) {
    if (!initialized || closed || at < level) {
        return;
    }
    json params = {{"level", toString(at)}};
    if (!logger.empty()) {
        params["logger"] = logger;
    }
    params["data"] = std::move(data);
    notify("notifications/message", std::move(params));
}

void Session::initialize(const Request& request) {
    if (initialized) {
        respond(request.id, fail(rpcError(kInvalidRequest, "the session is already initialized")));
        return;
    }
    const json& params = request.params;
    const auto requested = requiredString(params, "protocolVersion");
    if (!requested) {
        respond(request.id,
                fail(rpcError(kInvalidParams, "initialize needs params.protocolVersion (a string)")));
        return;
    }
    if (pinnedModern) {
        respond(request.id,
                fail(RpcError{
                    kUnsupportedProtocolVersion,
                    "Unsupported protocol version: " + *requested + " (this connection speaks " +
                        std::string(kModernProtocolVersion) + ", which its first request named)",
                    json{{"supported", json::array({kModernProtocolVersion})}, {"requested", *requested}}}));
        return;
    }
    version = std::string(negotiateVersion(*requested));
    // Read leniently: a client that sends either in another shape is still served.
    if (const auto info = optionalObject(params, "clientInfo"); info && *info != nullptr) {
        clientInfo = **info;
    }
    if (const auto offered = optionalObject(params, "capabilities"); offered && *offered != nullptr) {
        clientCapabilities = **offered;
    }
    const ServerOptions& options = server->options;
    json result = {
        {"protocolVersion", version}, {"capabilities", capabilities()}, {"serverInfo", server->serverInfo}};
    if (!options.instructions.empty()) {
        result["instructions"] = options.instructions;
    }
    initialized = true;
    respond(request.id, std::move(result));
}

void Session::startCall(const Request& request) {
    const json& params = request.params;
    const auto named = requiredString(params, "name");
    if (!named) {
        respond(request.id, fail(rpcError(kInvalidParams, "tools/call needs params.name (a string)")));
        return;
    }
    const std::string& name = *named;
    if (!server->registry->find(name)) {
        respond(request.id, fail(rpcError(kInvalidParams, "Unknown tool: " + name)));
        return;
    }
    json arguments = json::object();
    if (const auto found = params.find("arguments"); found != params.end() && !found->is_null()) {
        if (!found->is_object()) {
            respond(request.id, fail(rpcError(kInvalidParams, "tools/call arguments must be an object")));
            return;
        }
        arguments = *found;
    }
    auto state = beginCall(request);
    if (!state) {
        return;
    }
    tools::ToolCallRequest call{callPrefix + std::to_string(nextCall++), name, std::move(arguments)};
    if (const auto meta = params.find("_meta"); meta != params.end() && meta->is_object()) {
        if (const auto token = meta->find("progressToken");
            token != meta->end() && (token->is_string() || token->is_number_integer())) {
            server->progress[call.id] = ProgressRoute{weak_from_this(), request.id, *token};
        }
    }
    call.channel = channelFor(shared_from_this(), request.id, state);
    const SpanContext* trace = traced ? traced->context(request.id) : nullptr;
    calls.spawn(runCall(shared_from_this(), request.id, std::move(call), std::move(state),
                        trace != nullptr ? *trace : SpanContext{}));
}

std::shared_ptr<Session::Call> Session::beginCall(const Request& request) {
    if (inFlight.contains(request.id)) {
        respond(request.id, fail(rpcError(kInvalidRequest, "request id " + toString(request.id) +
                                                               " is already in use by a call in flight")));
        return nullptr;
    }
    if (inFlight.size() >= server->options.maxInFlight) {
        respond(request.id, fail(rpcError(kServerBusy, "too many requests in flight (limit " +
                                                           std::to_string(server->options.maxInFlight) +
                                                           "); retry when some have finished")));
        return nullptr;
    }
    auto state = std::make_shared<Call>(executor);
    if (const auto served = modern.find(request.id); served != modern.end()) {
        auto round =
            detail::openRound(server->rounds, request.method, request.params, served->second.capabilities);
        if (!round) {
            respond(request.id, fail(std::move(round.error())));
            return nullptr;
        }
        state->round = std::make_shared<detail::InputRound>(std::move(*round));
        state->logLevel = served->second.logLevel;
    }
    inFlight.emplace(request.id, state);
    return state;
}

tools::ToolContext Session::contextFor(const RequestId& id, const std::shared_ptr<Call>& call,
                                       std::string name) {
    const auto channel = channelFor(shared_from_this(), id, call);
    tools::ToolContext context;
    context.callId = callPrefix + std::to_string(nextCall++);
    context.toolName = std::move(name);
    context.executor = executor;
    context.request = channel->request;
    context.notify = channel->notify;
    return context;
}

void Session::handle(Request request, const RequestHeaders* headers) {
    if (server->options.telemetry) {
        if (!traced) {
            traced.emplace(server->options.telemetry, headers != nullptr);
        }
        traced->begin(request);
    }
    const std::string& method = request.method;
    if (claimsModern(request.params) ||
        (headers != nullptr && headers->protocolVersion && !isHandshakeVersion(*headers->protocolVersion))) {
        handleModern(std::move(request), headers);
        return;
    }
    if (method == "initialize") {
        initialize(request);
    } else if (method == "ping") {
        respond(request.id, json::object());
    } else if (!initialized) {
        respond(request.id, fail(rpcError(kInvalidRequest,
                                          "the session is not initialized: send initialize "
                                          "first (got " +
                                              method + ")")));
    } else if (method == "tools/list") {
        respond(request.id, detail::toolsPage(*server->registry, server->executor, request.params,
                                              server->options.pageSize));
    } else if (method == "tools/call") {
        startCall(request);
    } else if (method.starts_with("resources/") || method.starts_with("prompts/") ||
               method == "completion/complete") {
        handleCatalog(request);
    } else if (method == "logging/setLevel") {
        const json& params = request.params;
        const auto wanted = parseLogLevel(stringOr(params, "level"));
        if (!wanted) {
            respond(request.id, fail(rpcError(kInvalidParams,
                                              "logging/setLevel needs params.level: one of "
                                              "debug, info, notice, warning, error, critical, "
                                              "alert, emergency")));
            return;
        }
        level = *wanted;
        respond(request.id, json::object());
    } else {
        respond(request.id, fail(rpcError(kMethodNotFound, "method not found: " + method)));
    }
}

void Session::handle(const Notification& notification) {
    if (notification.method == "notifications/initialized") {
        return;  // requests are served from the initialize response on
    }
    if (notification.method == "notifications/cancelled") {
        const json& params = notification.params;
        if (!params.is_object() || !params.contains("requestId")) {
            return;
        }
        const json& raw = params["requestId"];
        std::optional<RequestId> id;
        if (raw.is_number_integer()) {
            id = RequestId(raw.get<std::int64_t>());
        } else if (raw.is_string()) {
            id = RequestId(raw.get<std::string>());
        }
        if (id && endListen(*id)) {
            return;  // a listen ends without a response
        }
        // Unknown or finished requests are ignored, as the specification says.
        if (const auto found = id ? inFlight.find(*id) : inFlight.end(); found != inFlight.end()) {
            found->second->cancelled = true;
            found->second->cancel.set();
        }
    }
}

ServerSession::ServerSession(std::shared_ptr<State> state) : state_(std::move(state)) {}

ServerSession::~ServerSession() {
    state_->endListens();
    state_->closed = true;
    state_->calls.cancel();
}

void ServerSession::receive(std::string_view frame) {
    state_->receive(frame, nullptr);
}

void ServerSession::receive(std::string_view frame, const RequestHeaders& headers) {
    state_->receive(frame, &headers);
}

void Session::receive(std::string_view frame, const RequestHeaders* headers) {
    if (closed) {
        return;
    }
    auto received = rpc.receive(frame);
    for (auto& reply : received.replies) {
        send(OutgoingFrame{std::move(reply), std::nullopt, true});
    }
    if (received.replies.empty() && isBatch(frame)) {
        receiveBatch(std::move(received));
        return;
    }
    for (auto& event : received.events) {
        if (auto* request = std::get_if<Request>(&event)) {
            handle(std::move(*request), headers);
        } else if (const auto* notification = std::get_if<Notification>(&event)) {
            handle(*notification);
        } else if (auto* completed = std::get_if<RpcSession::Completed>(&event)) {
            complete(std::move(*completed));
        }
        // Problems (answered above when owed) end here.
    }
}

void Session::receiveBatch(RpcSession::Received received) {
    // Responses to our requests are delivered whatever the version: refusing them would strand a handler.
    const bool served = initialized && version == "2025-03-26";
    auto batch = std::make_shared<Batch>();
    for (auto& event : received.events) {
        if (const auto* request = std::get_if<Request>(&event); request && served) {
            batch->waiting.insert(request->id);
            if (!batch->first) {
                batch->first = request->id;
            }
        }
    }
    const bool asks = std::any_of(received.events.begin(), received.events.end(), [](const auto& event) {
        return std::holds_alternative<Request>(event) || std::holds_alternative<Notification>(event);
    });
    if (!served && asks) {
        const std::string why = initialized ? "protocol version " + version +
                                                  " has no JSON-RPC batches (2025-06-18 removed them): "
                                                  "send one message per frame"
                                            : "a JSON-RPC batch cannot come before initialize: send one "
                                              "message per frame";
        const RpcError refusal{kInvalidRequest, why};
        send(OutgoingFrame{jsonrpc::encodeError(std::nullopt, refusal), std::nullopt, true});
    }
    if (!batch->waiting.empty()) {
        batches.push_back(batch);
    }
    for (auto& event : received.events) {
        if (auto* completed = std::get_if<RpcSession::Completed>(&event)) {
            complete(std::move(*completed));
        } else if (!served) {
            continue;
        } else if (auto* request = std::get_if<Request>(&event)) {
            handle(std::move(*request), nullptr);
        } else if (const auto* notification = std::get_if<Notification>(&event)) {
            handle(*notification);
        }
    }
}

void ServerSession::log(LogLevel level, json data, std::string logger) {
    state_->log(level, std::move(data), logger);
}

Task<void> ServerSession::close() {
    auto state = state_;
    state->endListens();
    state->closed = true;
    state->calls.cancel();
    (void)co_await state->calls.join();
}

bool ServerSession::closeIfIdle() {
    if (state_->calls.size() != 0) {
        return false;
    }
    state_->endListens();
    state_->closed = true;
    return true;
}

bool ServerSession::initialized() const noexcept {
    return state_->initialized;
}

const std::string& ServerSession::protocolVersion() const noexcept {
    return state_->version;
}

const json& ServerSession::clientInfo() const noexcept {
    return state_->clientInfo;
}

std::size_t ServerSession::inFlight() const noexcept {
    return state_->inFlight.size();
}

}  // namespace reagent::mcp
