// Client: the MCP session logic over a Transport. One reader coroutine per transport feeds RpcSession
// and wakes the requests waiting for their responses; server requests run as children of the client's
// task group; a dropped transport is replaced by the reconnect loop.

#include "reagent/mcp/client.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <string>
#include <unordered_map>
#include <utility>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/task_group.hpp"
#include "reagent/mcp/json_rpc.hpp"
#include "reagent/mcp/protocol_version.hpp"
#include "reagent/mcp/rpc_session.hpp"
#include "wakeup.hpp"

namespace reagent::mcp {

namespace asio = boost::asio;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
// A connection that stayed up this long resets the count of reconnections in a row.
constexpr std::chrono::seconds kStableConnection{30};

enum class Phase { connecting, connected, reconnecting, failed, closed };

// A request waiting for its response; lives on the requesting coroutine's frame.
struct Waiter {
    Waiter(detail::WakeupService& service, const Executor& executor) : wakeup(service, executor) {}
    // Woken by the reader (at once), the deadline sweeper, a drop or close.
    detail::Wakeup wakeup;
    Clock::time_point deadline = Clock::time_point::max();
    bool timedOut = false;
    std::optional<expected<json, RpcError>> outcome;
    // Set when the transport dropped or the client closed before the response came.
    std::optional<McpError> failure;
    const std::function<void(const Progress&)>* onProgress = nullptr;
};

// Registers a waiter under its request id (and progress token) for as long as it lives.
class WaiterRegistration {
  public:
    WaiterRegistration(Client::State* state, Waiter* waiter, std::int64_t id, std::string token);
    WaiterRegistration(const WaiterRegistration&) = delete;
    WaiterRegistration& operator=(const WaiterRegistration&) = delete;
    ~WaiterRegistration() { release(); }
    void release() noexcept;

  private:
    Client::State* state_;
    Waiter* waiter_;
    std::int64_t id_;
    std::string token_;
};

std::int64_t idNumber(const RequestId& id) {
    return std::holds_alternative<std::int64_t>(id) ? std::get<std::int64_t>(id) : -1;
}

std::string stringField(const json& object, const char* key) {
    if (object.is_object()) {
        auto it = object.find(key);
        if (it != object.end() && it->is_string()) {
            return it->get<std::string>();
        }
    }
    return {};
}

std::optional<bool> boolField(const json& object, const char* key) {
    if (object.is_object()) {
        auto it = object.find(key);
        if (it != object.end() && it->is_boolean()) {
            return it->get<bool>();
        }
    }
    return std::nullopt;
}

McpError remoteError(std::string_view method, const RpcError& error) {
    return {McpErrc::remote_error, std::string(method) + " failed: " + error.describe()};
}

}  // namespace

struct Client::State : std::enable_shared_from_this<Client::State> {
    State(const Executor& ex, ServerConfig cfg, ClientOptions opts, TransportFactory make)
        : executor(ex),
          config(std::move(cfg)),
          options(std::move(opts)),
          factory(std::move(make)),
          session(config.limits),
          phaseChanged(ex),
          wakeups(detail::WakeupService::of(ex)),
          sweeper(ex),
          tasks(ex) {
        phaseChanged.expires_at(asio::steady_timer::time_point::max());
    }

    Executor executor;
    ServerConfig config;
    ClientOptions options;
    TransportFactory factory;
    std::shared_ptr<Transport> transport;
    RpcSession session;
    ServerInfo server;
    Phase phase = Phase::connecting;
    // Counts transports; a reader or a failed send reports a drop only for its own generation.
    std::uint64_t generation = 0;
    asio::steady_timer phaseChanged;
    detail::WakeupService& wakeups;
    // One timer for every request's deadline, armed at the earliest: a request costs no timer system
    // call of its own (sequential calls keep finding it armed further ahead than they need).
    asio::steady_timer sweeper;
    Clock::time_point sweeperAt = Clock::time_point::max();
    bool sweeping = false;
    std::optional<McpError> lastError;
    int reconnectsInARow = 0;
    Clock::time_point connectedAt{};
    std::unordered_map<std::int64_t, Waiter*> waiters;
    std::unordered_map<std::string, Waiter*> progressTokens;
    std::uint64_t nextProgressToken = 1;
    // Server requests being handled, by id: a cancel notification wakes their timer.
    std::unordered_map<std::string, asio::steady_timer*> inbound;
    std::unordered_map<std::string, ToolAnnotations> annotations;
    TaskGroup tasks;

    void setPhase(Phase next) {
        phase = next;
        phaseChanged.cancel();
    }

    void problem(McpError error) const {
        if (options.onProblem) {
            (void)settleCall(options.onProblem, error);
        }
    }

    // Fails every waiting request (the transport dropped or the client closed).
    void failWaiters(const McpError& error) {
        auto waiting = std::move(waiters);
        waiters.clear();
        progressTokens.clear();
        for (auto& [id, waiter] : waiting) {
            session.forget(RequestId{id});
            waiter->failure = error;
            waiter->wakeup.wake();
        }
    }

    json capabilities() const {
        json caps = json::object();
        if (options.roots) {
            caps["roots"] = json{{"listChanged", true}};
        }
        if (options.sampling) {
            caps["sampling"] = json::object();
        }
        if (options.elicitation) {
            caps["elicitation"] = json{{"form", json::object()}};
        }
        return caps;
    }

    std::string label() const { return "MCP server '" + config.name + "'"; }
};

namespace {

WaiterRegistration::WaiterRegistration(Client::State* state, Waiter* waiter, std::int64_t id,
                                       std::string token)
    : state_(state), waiter_(waiter), id_(id), token_(std::move(token)) {
    state_->waiters[id_] = waiter_;
    if (!token_.empty()) {
        state_->progressTokens[token_] = waiter_;
    }
}

void WaiterRegistration::release() noexcept {
    if (state_ == nullptr) {
        return;
    }
    if (auto it = state_->waiters.find(id_); it != state_->waiters.end() && it->second == waiter_) {
        state_->waiters.erase(it);
    }
    if (!token_.empty()) {
        if (auto it = state_->progressTokens.find(token_);
            it != state_->progressTokens.end() && it->second == waiter_) {
            state_->progressTokens.erase(it);
        }
    }
    state_ = nullptr;
}

using StatePtr = std::shared_ptr<Client::State>;

Task<void> readLoop(StatePtr state, std::shared_ptr<Transport> transport, std::uint64_t generation);
Task<void> reconnect(StatePtr state, McpError cause);

// Sends a frame on `transport` in the background (responses, notifications that must not block).
Task<void> sendQuietly(StatePtr state, std::shared_ptr<Transport> transport, std::string frame) {
    auto sent = co_await transport->send(std::move(frame));
    if (!sent && sent.error().code != McpErrc::cancelled) {
        state->problem(sent.error());
    }
}

// The transport of `generation` dropped: fail what waits and start reconnecting (once per generation).
void dropped(const StatePtr& state, std::uint64_t generation, McpError cause) {
    if (generation != state->generation) {
        return;
    }
    std::string message = cause.message.find(state->label()) == std::string::npos
                              ? state->label() + " disconnected: " + cause.message
                              : cause.message;
    if (state->phase == Phase::connected) {
        state->failWaiters(McpError{McpErrc::connection_closed, std::move(message)});
        state->setPhase(Phase::reconnecting);
        state->tasks.spawn(reconnect(state, std::move(cause)));
    } else if (state->phase == Phase::connecting || state->phase == Phase::reconnecting) {
        // A handshake in progress: its `initialize` fails; establish() reports it.
        state->failWaiters(McpError{McpErrc::connection_closed, std::move(message)});
    }
}

// Tells the server to stop working on request `id` (a late response is then ignored).
void tellCancelled(const StatePtr& state, const std::shared_ptr<Transport>& transport, std::int64_t id,
                   bool cancelled) {
    json params{{"requestId", id}, {"reason", cancelled ? "cancelled by the client" : "timed out"}};
    std::string notice = state->session.notify("notifications/cancelled", std::move(params));
    state->tasks.spawn(sendQuietly(state, transport, std::move(notice)));
}

McpError cancelledError(const Client::State& state, const std::string& method) {
    return {McpErrc::cancelled, method + " to " + state.label() + " was cancelled"};
}

McpError timeoutError(const Client::State& state, const std::string& method) {
    return {McpErrc::timeout, method + " to " + state.label() + " got no response in time"};
}

// Wakes the requests whose deadline passed, then waits for the next deadline; ends when none is left.
Task<void> sweepDeadlines(StatePtr state) {
    while (state->sweeperAt != Clock::time_point::max()) {
        state->sweeper.expires_at(state->sweeperAt);
        auto [ec] = co_await state->sweeper.async_wait(kTuple);
        if (ec && isCancelled(co_await asio::this_coro::cancellation_state)) {
            break;
        }
        // Woken early (an earlier deadline was armed) or on time: either way, look again.
        const auto now = Clock::now();
        auto next = Clock::time_point::max();
        for (auto& [id, waiter] : state->waiters) {
            if (waiter->deadline <= now) {
                waiter->timedOut = true;
                waiter->wakeup.wake();
            } else {
                next = std::min(next, waiter->deadline);
            }
        }
        if (!ec || next != Clock::time_point::max() || state->sweeperAt <= now) {
            state->sweeperAt = next;
        }
    }
    state->sweeping = false;
}

// Makes sure the sweeper wakes by `deadline`.
void armSweeper(const StatePtr& state, Clock::time_point deadline) {
    if (deadline >= state->sweeperAt && state->sweeping) {
        return;
    }
    state->sweeperAt = std::min(state->sweeperAt, deadline);
    if (state->sweeping) {
        state->sweeper.expires_at(state->sweeperAt);  // cancels its wait: it re-arms earlier
    } else {
        state->sweeping = true;
        state->tasks.spawn(sweepDeadlines(state));
    }
}

// One request on one transport: send, wait for the response, the deadline or cancellation.
Task<expected<json, McpError>> exchange(StatePtr state, std::shared_ptr<Transport> transport,
                                        std::uint64_t generation, std::string method, json params,
                                        Clock::time_point deadline,
                                        const std::function<void(const Progress&)>* onProgress) {
    Waiter waiter(state->wakeups, state->executor);
    std::string token;
    if (onProgress != nullptr && *onProgress) {
        token = "reagent-" + std::to_string(state->nextProgressToken++);
        if (!params.is_object()) {
            params = json::object();
        }
        params["_meta"]["progressToken"] = token;
        waiter.onProgress = onProgress;
    }
    RpcSession::Outgoing outgoing = state->session.request(method, std::move(params));
    const std::int64_t id = idNumber(outgoing.id);
    // Whatever way this frame ends (a value, an exception, destruction), the waiter leaves the maps.
    WaiterRegistration registration(state.get(), &waiter, id, token);
    auto forget = [&] {
        registration.release();
        state->session.forget(outgoing.id);
    };

    expected<void, McpError> sent;
    if (transport->sendAwaitsReply()) {
        // The reply may come only with the send's own completion (HTTP with JSON replies): the deadline
        // bounds the send as well.
        asio::steady_timer limit(state->executor, deadline);
        auto sending = transport->send(std::move(outgoing.frame));
        using namespace asio::experimental::awaitable_operators;
        auto raced = co_await (std::move(sending) || limit.async_wait(kTuple));
        if (raced.index() == 0) {
            sent = std::move(std::get<0>(raced));
        } else if (!waiter.outcome && !waiter.failure) {
            const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
            forget();
            tellCancelled(state, transport, id, cancelled);
            co_return unexpected(cancelled ? cancelledError(*state, method) : timeoutError(*state, method));
        }
    } else {
        sent = co_await transport->send(std::move(outgoing.frame));
    }
    if (!sent) {
        forget();
        if (sent.error().code == McpErrc::cancelled) {
            tellCancelled(state, transport, id, true);  // it may have gone out before the cancellation
        }
        if (sent.error().code == McpErrc::session_expired ||
            sent.error().code == McpErrc::connection_closed) {
            dropped(state, generation, sent.error());
        }
        co_return unexpected(sent.error());
    }
    waiter.deadline = deadline;
    armSweeper(state, deadline);
    while (!waiter.outcome && !waiter.failure) {
        auto [ec] = co_await waiter.wakeup.wait(kTuple);
        (void)ec;
        if (waiter.outcome || waiter.failure) {
            break;
        }
        const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
        if (cancelled || waiter.timedOut) {
            // Out of time or given up: tell the server, and ignore a late response.
            forget();
            tellCancelled(state, transport, id, cancelled);
            co_return unexpected(cancelled ? cancelledError(*state, method) : timeoutError(*state, method));
        }
    }
    registration.release();
    if (waiter.failure) {
        co_return unexpected(std::move(*waiter.failure));
    }
    if (!*waiter.outcome) {
        co_return unexpected(remoteError(method, waiter.outcome->error()));
    }
    co_return std::move(**waiter.outcome);
}

// Opens a fresh transport and runs the handshake on it; on success it becomes the client's transport.
Task<expected<void, McpError>> establish(StatePtr state) {
    std::shared_ptr<Transport> transport = state->factory();
    if (!transport) {
        co_return unexpected(McpError{
            McpErrc::invalid_config,
            state->label() + ": no transport for '" + std::string(toString(state->config.transport)) +
                "': the remote transports live in reagent::mcp_remote; link it and connect with "
                "mcp::connectAny (or pass mcp::makeAnyTransport as the transport factory)"});
    }
    // A person may be authorizing in a browser during the handshake (OAuth): their time counts apart.
    const auto deadline =
        Clock::now() + state->config.connectTimeout +
        (state->config.oauth ? state->config.oauth->authorizationTimeout : std::chrono::milliseconds(0));
    auto opened = co_await transport->open();
    if (!opened) {
        co_await transport->close();
        co_return unexpected(opened.error());
    }
    const std::uint64_t generation = ++state->generation;
    state->tasks.spawn(readLoop(state, transport, generation));

    json params{{"protocolVersion", std::string(kLatestProtocolVersion)},
                {"capabilities", state->capabilities()},
                {"clientInfo", json{{"name", state->options.clientInfo.name},
                                    {"version", state->options.clientInfo.version}}}};
    if (!state->options.clientInfo.title.empty()) {
        params["clientInfo"]["title"] = state->options.clientInfo.title;
    }
    auto result =
        co_await exchange(state, transport, generation, "initialize", std::move(params), deadline, nullptr);
    auto fail = [&](McpError error) -> expected<void, McpError> {
        std::string diagnostics = transport->diagnostics();
        if (!diagnostics.empty() && diagnostics.size() > 2048) {
            diagnostics = diagnostics.substr(diagnostics.size() - 2048);
        }
        if (!diagnostics.empty() && error.message.find(diagnostics) == std::string::npos) {
            error.message += "; its stderr ends with: " + diagnostics;
        }
        return unexpected(std::move(error));
    };
    if (!result) {
        ++state->generation;  // the reader of this transport must not report a drop
        co_await transport->close();
        McpError error = result.error();
        if (error.code != McpErrc::cancelled && error.code != McpErrc::timeout &&
            error.code != McpErrc::unauthorized) {
            error.code = McpErrc::connect_failed;
        }
        error.message = state->label() + " did not initialise: " + error.message;
        co_return fail(std::move(error));
    }
    const std::string version = stringField(*result, "protocolVersion");
    auto accepted = acceptServerVersion(version);
    if (!accepted) {
        ++state->generation;
        co_await transport->close();
        co_return unexpected(
            McpError{McpErrc::unsupported_version, state->label() + ": " + accepted.error().message});
    }
    ServerInfo info;
    info.protocolVersion = version;
    const json implementation = result->value("serverInfo", json::object());
    info.implementation = {stringField(implementation, "name"), stringField(implementation, "version"),
                           stringField(implementation, "title")};
    info.capabilities = result->value("capabilities", json::object());
    info.instructions = stringField(*result, "instructions");
    transport->setProtocolVersion(version);
    auto initialized = co_await transport->send(state->session.notify("notifications/initialized"));
    if (!initialized) {
        ++state->generation;
        co_await transport->close();
        co_return fail(McpError{McpErrc::connect_failed,
                                state->label() + " did not initialise: " + initialized.error().message});
    }
    state->server = std::move(info);
    state->transport = std::move(transport);
    state->connectedAt = Clock::now();
    state->setPhase(Phase::connected);
    co_return expected<void, McpError>{};
}

Task<void> reconnect(StatePtr state, McpError cause) {
    std::shared_ptr<Transport> old = std::move(state->transport);
    if (old) {
        co_await old->close();
    }
    if (Clock::now() - state->connectedAt > kStableConnection) {
        state->reconnectsInARow = 0;
    }
    auto delay = state->config.reconnectDelay;
    McpError last = std::move(cause);
    while (state->phase == Phase::reconnecting && state->reconnectsInARow < state->config.maxReconnects) {
        ++state->reconnectsInARow;
        asio::steady_timer pause(state->executor, delay);
        auto [ec] = co_await pause.async_wait(kTuple);
        if (ec || state->phase != Phase::reconnecting) {
            co_return;
        }
        delay *= 2;
        state->problem(
            McpError{McpErrc::connection_closed,
                     state->label() + " reconnecting (attempt " + std::to_string(state->reconnectsInARow) +
                         " of " + std::to_string(state->config.maxReconnects) + ") after: " + last.message});
        auto established = co_await establish(state);
        if (established) {
            if (state->options.onToolsChanged) {
                (void)settleCall(state->options.onToolsChanged);
            }
            co_return;
        }
        if (established.error().code == McpErrc::cancelled) {
            co_return;
        }
        last = established.error();
    }
    if (state->phase == Phase::reconnecting) {
        state->lastError =
            McpError{McpErrc::connection_closed, state->label() + " is unavailable: gave up after " +
                                                     std::to_string(state->config.maxReconnects) +
                                                     " reconnection(s); last error: " + last.message};
        state->setPhase(Phase::failed);
    }
}

// Waits until the client is connected (or reconnected), or says why it is not.
Task<expected<void, McpError>> ready(StatePtr state, Clock::time_point deadline) {
    for (;;) {
        switch (state->phase) {
            case Phase::connected:
                co_return expected<void, McpError>{};
            case Phase::failed:
                co_return unexpected(*state->lastError);
            case Phase::closed:
                co_return unexpected(
                    McpError{McpErrc::connection_closed, state->label() + ": the client is closed"});
            case Phase::connecting:
            case Phase::reconnecting:
                break;
        }
        asio::steady_timer limit(state->executor, deadline);
        using namespace asio::experimental::awaitable_operators;
        auto woke = co_await (state->phaseChanged.async_wait(kTuple) || limit.async_wait(kTuple));
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            co_return unexpected(
                McpError{McpErrc::cancelled, "cancelled while waiting for " + state->label()});
        }
        if (woke.index() == 1) {
            co_return unexpected(McpError{McpErrc::timeout, state->label() + " is still reconnecting"});
        }
    }
}

Task<expected<json, McpError>> call(StatePtr state, std::string method, json params,
                                    std::optional<std::chrono::milliseconds> timeout,
                                    const std::function<void(const Progress&)>* onProgress) {
    const auto deadline = Clock::now() + timeout.value_or(state->config.requestTimeout);
    auto up = co_await ready(state, deadline);
    if (!up) {
        co_return unexpected(up.error());
    }
    co_return co_await exchange(state, state->transport, state->generation, std::move(method),
                                std::move(params), deadline, onProgress);
}

// Answers one server request; a cancel notification for it ends the handler without a response.
Task<expected<json, RpcError>> answer(StatePtr state, const Request& request) {
    const json& params = request.params;
    if (request.method == "ping") {
        co_return json::object();
    }
    if (request.method == "roots/list" && state->options.roots) {
        json roots = json::array();
        for (const Root& root : *state->options.roots) {
            json entry{{"uri", root.uri}};
            if (!root.name.empty()) {
                entry["name"] = root.name;
            }
            roots.push_back(std::move(entry));
        }
        co_return json{{"roots", std::move(roots)}};
    }
    const RequestHandler* handler = nullptr;
    if (request.method == "sampling/createMessage" && state->options.sampling) {
        handler = &state->options.sampling;
    } else if (request.method == "elicitation/create" && state->options.elicitation) {
        handler = &state->options.elicitation;
    }
    if (handler == nullptr) {
        co_return unexpected(RpcError{
            kMethodNotFound, "Method not found: this client does not handle '" + request.method + "'"});
    }
    auto outcome = co_await settle((*handler)(params));
    if (!outcome) {
        co_return unexpected(RpcError{kInternalError, outcome.error().message});
    }
    if (*outcome && request.method == "elicitation/create") {
        co_return fillElicitationDefaults(params.value("requestedSchema", json::object()),
                                          std::move(**outcome));
    }
    co_return std::move(*outcome);
}

Task<void> serveRequest(StatePtr state, std::shared_ptr<Transport> transport, Request request) {
    const std::string key = toString(request.id);
    asio::steady_timer cancelled(state->executor);
    cancelled.expires_at(asio::steady_timer::time_point::max());
    state->inbound[key] = &cancelled;
    // Leaves the map however this frame ends.
    struct Unregister {
        Client::State* state;
        const std::string& key;
        asio::steady_timer* timer;
        ~Unregister() {
            if (auto it = state->inbound.find(key); it != state->inbound.end() && it->second == timer) {
                state->inbound.erase(it);
            }
        }
    } unregister{state.get(), key, &cancelled};
    using namespace asio::experimental::awaitable_operators;
    auto outcome = co_await (answer(state, request) || cancelled.async_wait(kTuple));
    if (outcome.index() != 0) {
        co_return;  // cancelled by the server, or the client is closing: no response
    }
    std::string frame = state->session.respond(request.id, std::move(std::get<0>(outcome)));
    auto sent = co_await transport->send(std::move(frame));
    if (!sent && sent.error().code != McpErrc::cancelled) {
        state->problem(sent.error());
    }
}

void onNotification(const StatePtr& state, const Notification& note) {
    const json& params = note.params;
    if (note.method == "notifications/progress") {
        const json token = params.is_object() ? params.value("progressToken", json()) : json();
        const std::string key = token.is_string() ? token.get<std::string>() : token.dump();
        auto it = state->progressTokens.find(key);
        if (it == state->progressTokens.end() || it->second->onProgress == nullptr) {
            return;
        }
        Progress progress;
        if (params.contains("progress") && params.at("progress").is_number()) {
            progress.progress = params.at("progress").get<double>();
        }
        if (params.contains("total") && params.at("total").is_number()) {
            progress.total = params.at("total").get<double>();
        }
        progress.message = stringField(params, "message");
        (void)settleCall(*it->second->onProgress, progress);
    } else if (note.method == "notifications/message") {
        if (state->options.onLog) {
            LogMessage message{stringField(params, "level"), stringField(params, "logger"),
                               params.is_object() ? params.value("data", json()) : json()};
            (void)settleCall(state->options.onLog, message);
        }
    } else if (note.method == "notifications/tools/list_changed") {
        if (state->options.onToolsChanged) {
            (void)settleCall(state->options.onToolsChanged);
        }
    } else if (note.method == "notifications/cancelled") {
        const json id = params.is_object() ? params.value("requestId", json()) : json();
        const std::string key = id.is_string() ? "\"" + id.get<std::string>() + "\"" : id.dump();
        if (auto it = state->inbound.find(key); it != state->inbound.end()) {
            it->second->cancel();
        }
    }
}

Task<void> readLoop(StatePtr state, std::shared_ptr<Transport> transport, std::uint64_t generation) {
    for (;;) {
        auto frame = co_await transport->receive();
        if (!frame) {
            if (frame.error().code != McpErrc::cancelled) {
                dropped(state, generation, frame.error());
            }
            co_return;
        }
        RpcSession::Received received = state->session.receive(*frame);
        for (std::string& reply : received.replies) {
            state->tasks.spawn(sendQuietly(state, transport, std::move(reply)));
        }
        for (RpcSession::Event& event : received.events) {
            if (auto* done = std::get_if<RpcSession::Completed>(&event)) {
                auto it = state->waiters.find(idNumber(done->id));
                if (it != state->waiters.end()) {
                    Waiter* waiter = it->second;
                    state->waiters.erase(it);
                    waiter->outcome = std::move(done->outcome);
                    // The request runs now, on this stack, until it waits again (no trip through the event
                    // loop). It may have closed or dropped the client meanwhile: then stop here.
                    waiter->wakeup.resume();
                    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
                        co_return;
                    }
                }
            } else if (auto* request = std::get_if<Request>(&event)) {
                state->tasks.spawn(serveRequest(state, transport, std::move(*request)));
            } else if (auto* note = std::get_if<Notification>(&event)) {
                onNotification(state, *note);
            } else if (auto* problem = std::get_if<RpcSession::Problem>(&event)) {
                state->problem(problem->error);
            }
        }
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            co_return;
        }
    }
}

ToolInfo parseTool(const json& entry) {
    ToolInfo tool;
    tool.name = stringField(entry, "name");
    tool.title = stringField(entry, "title");
    tool.description = stringField(entry, "description");
    if (entry.contains("inputSchema") && entry.at("inputSchema").is_object()) {
        tool.inputSchema = entry.at("inputSchema");
    } else {
        tool.inputSchema = json{{"type", "object"}};
    }
    if (entry.contains("outputSchema") && entry.at("outputSchema").is_object()) {
        tool.outputSchema = entry.at("outputSchema");
    }
    const json annotations = entry.value("annotations", json::object());
    tool.annotations.title = stringField(annotations, "title");
    tool.annotations.readOnlyHint = boolField(annotations, "readOnlyHint");
    tool.annotations.destructiveHint = boolField(annotations, "destructiveHint");
    tool.annotations.idempotentHint = boolField(annotations, "idempotentHint");
    tool.annotations.openWorldHint = boolField(annotations, "openWorldHint");
    if (tool.title.empty()) {
        tool.title = tool.annotations.title;
    }
    return tool;
}

Task<expected<std::shared_ptr<Client::State>, McpError>> open(ServerConfig config, ClientOptions options,
                                                              TransportFactory factory) {
    if (auto valid = validate(config); !valid) {
        co_return unexpected(valid.error());
    }
    auto executor = co_await asio::this_coro::executor;
    auto state =
        std::make_shared<Client::State>(executor, std::move(config), std::move(options), std::move(factory));
    auto established = co_await establish(state);
    if (!established) {
        state->setPhase(Phase::closed);
        state->tasks.cancel();
        (void)co_await state->tasks.join();
        co_return unexpected(established.error());
    }
    co_return state;
}

Task<void> shutdown(StatePtr state) {
    if (state->phase == Phase::closed) {
        co_return;
    }
    state->setPhase(Phase::closed);
    state->failWaiters(McpError{McpErrc::connection_closed, state->label() + ": the client was closed"});
    for (auto& [key, timer] : state->inbound) {
        timer->cancel();
    }
    std::shared_ptr<Transport> transport = std::move(state->transport);
    if (transport) {
        co_await transport->close();
    }
    state->tasks.cancel();
    (void)co_await state->tasks.join();
}

}  // namespace

Client::Client(std::shared_ptr<State> state) : state_(std::move(state)) {}

Client::~Client() {
    if (state_ && state_->phase != Phase::closed) {
        // No close(): stop the reader and handlers; the transport goes with the state (a stdio server
        // is killed and reaped by its Subprocess).
        state_->phase = Phase::closed;
        state_->failWaiters(
            McpError{McpErrc::connection_closed, state_->label() + ": the client was destroyed"});
        state_->tasks.cancel();
    }
}

Task<expected<std::shared_ptr<Client>, McpError>> Client::connect(ServerConfig config) {
    ClientOptions options;
    auto connecting = connect(std::move(config), std::move(options));
    co_return co_await std::move(connecting);
}

Task<expected<std::shared_ptr<Client>, McpError>> Client::connect(ServerConfig config,
                                                                  ClientOptions options) {
    ServerConfig copy = config;
    TransportFactory factory = [copy = std::move(copy)] { return makeTransport(copy); };
    auto connecting = connect(std::move(config), std::move(options), std::move(factory));
    co_return co_await std::move(connecting);
}

Task<expected<std::shared_ptr<Client>, McpError>> Client::connect(ServerConfig config, ClientOptions options,
                                                                  TransportFactory factory) {
    // The call is made before the co_await: g++ 12 mishandles aggregate arguments built inside one.
    auto opening = open(std::move(config), std::move(options), std::move(factory));
    auto state = co_await withCheckedCancellation(std::move(opening));
    if (!state) {
        co_return unexpected(state.error());
    }
    co_return std::shared_ptr<Client>(new Client(std::move(*state)));
}

const ServerConfig& Client::config() const noexcept {
    return state_->config;
}

const ServerInfo& Client::server() const noexcept {
    return state_->server;
}

bool Client::connected() const noexcept {
    return state_->phase == Phase::connected;
}

std::string Client::diagnostics() const {
    return state_->transport ? state_->transport->diagnostics() : std::string();
}

Task<expected<json, McpError>> Client::request(std::string method, json params,
                                               std::optional<std::chrono::milliseconds> timeout) {
    co_return co_await call(state_, std::move(method), std::move(params), timeout, nullptr);
}

Task<expected<void, McpError>> Client::notify(std::string method, json params) {
    auto state = state_;
    const auto deadline = Clock::now() + state->config.requestTimeout;
    auto up = co_await ready(state, deadline);
    if (!up) {
        co_return unexpected(up.error());
    }
    co_return co_await state->transport->send(state->session.notify(std::move(method), std::move(params)));
}

Task<expected<void, McpError>> Client::ping() {
    auto result = co_await request("ping");
    if (!result) {
        co_return unexpected(result.error());
    }
    co_return expected<void, McpError>{};
}

Task<expected<void, McpError>> Client::setRoots(std::vector<Root> roots) {
    state_->options.roots = std::move(roots);
    co_return co_await notify("notifications/roots/list_changed");
}

Task<expected<std::vector<ToolInfo>, McpError>> Client::listTools() {
    auto state = state_;
    std::vector<ToolInfo> tools;
    std::string cursor;
    // Bounded: a server that hands out cursors forever is cut off.
    for (int page = 0; page < 1000; ++page) {
        json params = cursor.empty() ? json::object() : json{{"cursor", cursor}};
        auto result = co_await call(state, "tools/list", std::move(params), std::nullopt, nullptr);
        if (!result) {
            co_return unexpected(result.error());
        }
        const json list = result->value("tools", json::array());
        if (!list.is_array()) {
            co_return unexpected(McpError{McpErrc::malformed_message,
                                          state->label() + ": tools/list result has no tools array"});
        }
        for (const json& entry : list) {
            ToolInfo tool = parseTool(entry);
            if (tool.name.empty()) {
                state->problem(
                    McpError{McpErrc::malformed_message, state->label() + " listed a tool without a name"});
                continue;
            }
            state->annotations[tool.name] = tool.annotations;
            tools.push_back(std::move(tool));
        }
        cursor = stringField(*result, "nextCursor");
        if (cursor.empty()) {
            co_return tools;
        }
    }
    co_return unexpected(
        McpError{McpErrc::protocol_error, state->label() + ": tools/list did not end after 1000 pages"});
}

Task<expected<CallResult, McpError>> Client::callTool(std::string name, json arguments) {
    CallOptions options;
    auto calling = callTool(std::move(name), std::move(arguments), std::move(options));
    co_return co_await std::move(calling);
}

Task<expected<CallResult, McpError>> Client::callTool(std::string name, json arguments, CallOptions options) {
    auto state = state_;
    auto annotation = state->annotations.find(name);
    const bool retryable = annotation != state->annotations.end() && annotation->second.safeToRetry();
    // Built member by member and moved along (an initializer list copies every value; this is per call).
    json params = json::object();
    params["name"] = std::move(name);
    params["arguments"] = arguments.is_null() ? json::object() : std::move(arguments);
    // Only a call that may be sent again after a reconnection keeps a copy of its parameters.
    std::optional<json> resend;
    if (retryable) {
        resend = params;
    }
    const std::function<void(const Progress&)>* onProgress =
        options.onProgress ? &options.onProgress : nullptr;
    auto result = co_await call(state, "tools/call", std::move(params), options.timeout, onProgress);
    if (!result && result.error().code == McpErrc::connection_closed && retryable &&
        state->phase != Phase::closed && state->phase != Phase::failed) {
        // The transport dropped under the call; the tool says sending it again is harmless.
        result = co_await call(state, "tools/call", std::move(*resend), options.timeout, onProgress);
    }
    if (!result) {
        co_return unexpected(result.error());
    }
    // The result is ours: its members are moved out, not copied.
    CallResult out;
    if (auto content = result->find("content"); content != result->end() && content->is_array()) {
        out.content = std::move(*content);
    }
    if (auto structured = result->find("structuredContent"); structured != result->end()) {
        out.structuredContent = std::move(*structured);
    }
    out.isError = boolField(*result, "isError").value_or(false);
    out.text = contentToText(out.content);
    if (out.text.empty() && !out.structuredContent.is_null()) {
        out.text = out.structuredContent.dump();
    }
    co_return out;
}

Task<void> Client::close() {
    co_await withCheckedCancellation(shutdown(state_));
}

}  // namespace reagent::mcp
