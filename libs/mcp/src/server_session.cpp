// A server session: dispatches the client's requests and runs its tool calls.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <utility>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/mcp/server.hpp"
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

// Runs one call, raced against its cancellation timer (`notifications/cancelled`); the session's task
// group cancels both when the session closes. Responds unless the call was cancelled.
Task<void> runCall(std::shared_ptr<Session> self, RequestId id, tools::ToolCallRequest call,
                   std::shared_ptr<Session::Call> state) {
    auto executor = co_await asio::this_coro::executor;
    const std::string callId = call.id;
    auto run = self->server->executor.executeOne(std::move(call), 0);
    auto race = asio::experimental::make_parallel_group(
        asio::co_spawn(executor, std::move(run), asio::deferred), state->cancel.async_wait(asio::deferred));
    auto [order, error, record, timerError] =
        co_await std::move(race).async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
    (void)timerError;
    self->server->progress.erase(callId);
    self->inFlight.erase(id);
    if (order[0] == 1 || state->cancelled || self->closed ||
        isCancelled(co_await asio::this_coro::cancellation_state)) {
        co_return;  // cancelled: the client expects no response
    }
    if (error) {
        // The executor never throws; should it, the client still gets an answer.
        const auto failure = reagent::detail::settledError(error, false);
        self->respond(id,
                      detail::callResult(fail(tools::ToolError{tools::ToolErrc::exception, failure.message}),
                                         self->server->options.maxResultBytes));
        co_return;
    }
    self->respond(id, detail::callResult(record.outcome, self->server->options.maxResultBytes));
}

}  // namespace

void Session::send(OutgoingFrame frame) {
    if (closed || !sink) {
        return;
    }
    (void)settleCall(sink, std::move(frame));
}

void Session::respond(const RequestId& id, expected<json, RpcError> outcome) {
    send(OutgoingFrame{rpc.respond(id, std::move(outcome)), id, true});
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
    if (!params.is_object() || !params.contains("protocolVersion") ||
        !params["protocolVersion"].is_string()) {
        respond(request.id,
                fail(rpcError(kInvalidParams, "initialize needs params.protocolVersion (a string)")));
        return;
    }
    version = std::string(negotiateVersion(params["protocolVersion"].get<std::string>()));
    if (params.contains("clientInfo") && params["clientInfo"].is_object()) {
        clientInfo = params["clientInfo"];
    }
    const ServerOptions& options = server->options;
    json info = {{"name", options.info.name}, {"version", options.info.version}};
    if (!options.info.title.empty()) {
        info["title"] = options.info.title;
    }
    json result = {{"protocolVersion", version},
                   {"capabilities", {{"tools", {{"listChanged", true}}}, {"logging", json::object()}}},
                   {"serverInfo", std::move(info)}};
    if (!options.instructions.empty()) {
        result["instructions"] = options.instructions;
    }
    initialized = true;
    respond(request.id, std::move(result));
}

void Session::startCall(const Request& request) {
    const json& params = request.params;
    if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
        respond(request.id, fail(rpcError(kInvalidParams, "tools/call needs params.name (a string)")));
        return;
    }
    const std::string name = params["name"].get<std::string>();
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
    if (inFlight.contains(request.id)) {
        respond(request.id, fail(rpcError(kInvalidRequest, "request id " + toString(request.id) +
                                                               " is already in use by a call in flight")));
        return;
    }
    if (inFlight.size() >= server->options.maxInFlight) {
        respond(request.id, fail(rpcError(kServerBusy, "too many requests in flight (limit " +
                                                           std::to_string(server->options.maxInFlight) +
                                                           "); retry when some have finished")));
        return;
    }
    tools::ToolCallRequest call{callPrefix + std::to_string(nextCall++), name, std::move(arguments)};
    if (const auto meta = params.find("_meta"); meta != params.end() && meta->is_object()) {
        if (const auto token = meta->find("progressToken");
            token != meta->end() && (token->is_string() || token->is_number_integer())) {
            server->progress[call.id] = ProgressRoute{weak_from_this(), request.id, *token};
        }
    }
    auto state = std::make_shared<Call>(executor);
    inFlight.emplace(request.id, state);
    calls.spawn(runCall(shared_from_this(), request.id, std::move(call), std::move(state)));
}

void Session::handle(Request request) {
    const std::string& method = request.method;
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
    } else if (method == "logging/setLevel") {
        const json& params = request.params;
        const auto wanted = params.is_object() && params.contains("level") && params["level"].is_string()
                                ? parseLogLevel(params["level"].get<std::string>())
                                : std::nullopt;
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
        // Unknown or finished requests are ignored, as the specification says.
        if (const auto found = id ? inFlight.find(*id) : inFlight.end(); found != inFlight.end()) {
            found->second->cancelled = true;
            found->second->cancel.cancel();
        }
    }
}

ServerSession::ServerSession(std::shared_ptr<State> state) : state_(std::move(state)) {}

ServerSession::~ServerSession() {
    state_->closed = true;
    state_->calls.cancel();
}

void ServerSession::receive(std::string_view frame) {
    if (state_->closed) {
        return;
    }
    auto received = state_->rpc.receive(frame);
    for (auto& reply : received.replies) {
        state_->send(OutgoingFrame{std::move(reply), std::nullopt, true});
    }
    for (auto& event : received.events) {
        if (auto* request = std::get_if<Request>(&event)) {
            state_->handle(std::move(*request));
        } else if (const auto* notification = std::get_if<Notification>(&event)) {
            state_->handle(*notification);
        }
        // Responses (the server sends no requests yet) and problems (answered above when owed) end here.
    }
}

void ServerSession::log(LogLevel level, json data, std::string logger) {
    state_->log(level, std::move(data), logger);
}

Task<void> ServerSession::close() {
    auto state = state_;
    state->closed = true;
    state->calls.cancel();
    (void)co_await state->calls.join();
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
