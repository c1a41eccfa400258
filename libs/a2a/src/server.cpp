// The A2A server: an accept loop, one coroutine per connection (keep-alive), one per task. Tasks live in
// an in-memory store; each keeps the log of its events, which blocking sends and streams read from a
// position, woken by an Event set on every change.

#include "reagent/a2a/server.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <deque>
#include <map>

#include "reagent/a2a/json_rpc.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/detail/listen.hpp"
#include "reagent/core/event.hpp"
#include "reagent/core/json_fields.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/task_group.hpp"
#include "reagent/core/untrusted_json.hpp"
#include "reagent/http/server_rules.hpp"

namespace reagent::a2a {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using asio::ip::tcp;
using nlohmann::json;

namespace {

/// One task of the store: its snapshot, the events it produced, and how to wake and cancel it.
struct TaskEntry {
    explicit TaskEntry(const Executor& ex) : changed(ex) {}
    AgentTask task;
    std::vector<StreamEvent> events;
    /// Set on every change, waking every waiter; a waiter resets it (after looking at what it waits for)
    /// before it waits.
    Event changed;
    asio::cancellation_signal cancel;
    bool cancelRequested = false;

    void push(StreamEvent event) {
        events.push_back(std::move(event));
        changed.set();
    }
    [[nodiscard]] bool terminal() const { return isTerminal(task.status.state); }
};

using EntryPtr = std::shared_ptr<TaskEntry>;

[[nodiscard]] Message agentText(const std::string& text, const AgentTask& task) {
    Message message;
    message.messageId = newId();
    message.role = Role::agent;
    message.parts.push_back(Part::fromText(text));
    message.taskId = task.id;
    message.contextId = task.contextId;
    return message;
}

struct RpcError {
    int code;
    std::string message;
};

}  // namespace

struct Server::State {
    State(Executor executor, ServerConfig cfg, AgentCard c, RunFunction r)
        : ex(std::move(executor)),
          acceptor(ex),
          config(std::move(cfg)),
          card(std::move(c)),
          run(std::move(r)),
          idle(ex) {}
    Executor ex;
    tcp::acceptor acceptor;
    ServerConfig config;
    /// Whom requests are taken from (set by `bind`, which knows whether the address is loopback).
    http::CallerPolicy callers;
    AgentCard card;
    RunFunction run;
    std::map<std::string, EntryPtr> tasks;
    std::deque<std::string> finished;
    std::size_t running = 0;
    bool stopping = false;
    std::uint16_t port = 0;
    /// Set whenever `running` drops.
    Event idle;

    void settled(const EntryPtr& entry, TaskStatus status, std::optional<Artifact> artifact) {
        if (artifact) {
            entry->task.artifacts.push_back(*artifact);
            ArtifactUpdate update{entry->task.id, entry->task.contextId, std::move(*artifact), false, true};
            entry->push(std::move(update));
        }
        entry->task.status = status;
        entry->task.status.timestamp.clear();
        StatusUpdate update{entry->task.id, entry->task.contextId, std::move(status), true};
        entry->push(std::move(update));
        finished.push_back(entry->task.id);
        while (finished.size() > config.maxStoredTasks) {
            tasks.erase(finished.front());
            finished.pop_front();
        }
    }
};

namespace {

using StatePtr = std::shared_ptr<Server::State>;

Task<void> runTask(StatePtr s, EntryPtr entry, std::string prompt) {
    entry->task.status.state = TaskState::working;
    StatusUpdate working{entry->task.id, entry->task.contextId, entry->task.status, false};
    entry->push(std::move(working));
    // Progress lines become `working` status updates carrying the agent's words.
    ProgressSink progress = [weak = std::weak_ptr<TaskEntry>(entry)](std::string text) {
        if (auto e = weak.lock(); e && !e->terminal()) {
            TaskStatus status;
            status.state = TaskState::working;
            status.message = agentText(text, e->task);
            StatusUpdate update{e->task.id, e->task.contextId, std::move(status), false};
            e->push(std::move(update));
        }
    };
    auto pending = s->run(std::move(prompt), std::move(progress));
    auto outcome = co_await settle(std::move(pending));
    TaskStatus status;
    if (entry->cancelRequested) {
        status.state = TaskState::canceled;
        s->settled(entry, std::move(status), std::nullopt);
    } else if (!outcome || !*outcome) {
        status.state = TaskState::failed;
        status.message = agentText(!outcome ? outcome.error().describe() : outcome->error(), entry->task);
        s->settled(entry, std::move(status), std::nullopt);
    } else {
        status.state = TaskState::completed;
        Artifact artifact;
        artifact.artifactId = newId();
        artifact.name = "answer";
        artifact.parts.push_back(Part::fromText(std::move(**outcome)));
        s->settled(entry, std::move(status), std::move(artifact));
    }
}

// Starts a task for the message in `params`.
expected<EntryPtr, RpcError> startTask(const StatePtr& s, const json& params) {
    if (!params.is_object() || !params.contains("message")) {
        return fail(RpcError{rpc::kInvalidParams, "params.message is required"});
    }
    auto message = parseMessage(params["message"]);
    if (!message) {
        return fail(RpcError{rpc::kInvalidParams, "params.message: " + message.error().message});
    }
    std::string prompt = message->text();
    if (prompt.empty()) {
        return fail(RpcError{rpc::kInvalidParams, "the message has no text part: this agent reads text"});
    }
    if (s->stopping) {
        return fail(RpcError{rpc::kInternalError, "the server is shutting down"});
    }
    if (s->running >= s->config.maxConcurrentTasks) {
        return fail(RpcError{rpc::kUnsupportedOperation,
                             "the server already runs " + std::to_string(s->running) +
                                 " tasks (its limit, ServerConfig::maxConcurrentTasks); retry later"});
    }
    auto entry = std::make_shared<TaskEntry>(s->ex);
    entry->task.id = newId();
    entry->task.contextId = message->contextId.empty() ? newId() : message->contextId;
    message->taskId = entry->task.id;
    message->contextId = entry->task.contextId;
    entry->task.history.push_back(*message);
    entry->task.status.state = TaskState::submitted;
    entry->push(StreamEvent(entry->task));
    s->tasks[entry->task.id] = entry;
    ++s->running;
    asio::co_spawn(s->ex, runTask(s, entry, std::move(prompt)),
                   asio::bind_cancellation_slot(entry->cancel.slot(), [s, entry](std::exception_ptr error) {
                       if (error && !entry->terminal()) {
                           TaskStatus status;
                           status.state = TaskState::failed;
                           s->settled(entry, std::move(status), std::nullopt);
                       }
                       --s->running;
                       s->idle.set();
                   }));
    return entry;
}

Task<void> waitTerminal(EntryPtr entry) {
    while (!entry->terminal()) {
        entry->changed.reset();
        (void)co_await entry->changed.wait(asio::use_awaitable);
    }
}

Task<bool> writeJson(beast::tcp_stream& stream, bhttp::status status, const json& body, bool keepAlive,
                     std::string challenge = std::string()) {
    bhttp::response<bhttp::string_body> response{status, 11};
    response.set(bhttp::field::content_type, "application/json");
    if (!challenge.empty()) {
        response.set(bhttp::field::www_authenticate, challenge);
    }
    response.keep_alive(keepAlive);
    response.body() = body.dump();
    response.prepare_payload();
    auto [ec, bytes] = co_await bhttp::async_write(stream, response, asio::as_tuple(asio::use_awaitable));
    (void)bytes;
    co_return !ec;
}

// `message/stream`: the event log as SSE, from the start, until the terminal status; then closes.
Task<void> streamEvents(beast::tcp_stream& stream, EntryPtr entry, json id, ProtocolVersion version) {
    std::string head =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
        "Connection: close\r\n\r\n";
    auto [headError, headBytes] =
        co_await asio::async_write(stream, asio::buffer(head), asio::as_tuple(asio::use_awaitable));
    (void)headBytes;
    if (headError) {
        co_return;
    }
    std::size_t next = 0;
    for (;;) {
        while (next == entry->events.size()) {
            entry->changed.reset();
            (void)co_await entry->changed.wait(asio::use_awaitable);
        }
        std::string out;
        bool last = false;
        for (; next < entry->events.size(); ++next) {
            const auto& event = entry->events[next];
            out += "data: " + makeResult(id, toJson(event, version)).dump() + "\n\n";
            if (const auto* status = std::get_if<StatusUpdate>(&event); status && status->final) {
                last = true;
            }
        }
        auto [ec, bytes] =
            co_await asio::async_write(stream, asio::buffer(out), asio::as_tuple(asio::use_awaitable));
        (void)bytes;
        if (ec || last) {
            break;
        }
    }
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
}

// A JSON-RPC call: writes the answer; false when the connection is done (error, or a stream ended).
Task<bool> handleRpc(StatePtr s, beast::tcp_stream& stream, std::string body, bool keepAlive) {
    auto read = parseUntrustedJson(body);
    if (!read) {
        auto answer = makeError(nullptr, rpc::kParseError, "invalid JSON: " + read.error().message);
        co_return co_await writeJson(stream, bhttp::status::ok, std::move(answer), keepAlive);
    }
    const json request = std::move(*read);
    const json id = request.is_object() ? request.value("id", json()) : json();
    if (!request.is_object() || stringOr(request, "jsonrpc") != "2.0" || !request.contains("method") ||
        !request["method"].is_string()) {
        auto answer = makeError(id, rpc::kInvalidRequest, "not a JSON-RPC 2.0 request");
        co_return co_await writeJson(stream, bhttp::status::ok, answer, keepAlive);
    }
    const std::string method = request["method"].get<std::string>();
    const auto parsed = parseMethodName(method);
    if (!parsed) {
        auto answer = makeError(id, rpc::kMethodNotFound, "method '" + method + "' is not supported");
        co_return co_await writeJson(stream, bhttp::status::ok, answer, keepAlive);
    }
    const ProtocolVersion version = parsed->version;
    const json params = request.value("params", json::object());
    if (parsed->method == Method::send || parsed->method == Method::stream) {
        auto started = startTask(s, params);
        if (!started) {
            auto answer = makeError(id, started.error().code, started.error().message);
            co_return co_await writeJson(stream, bhttp::status::ok, answer, keepAlive);
        }
        EntryPtr entry = *started;
        if (parsed->method == Method::stream) {
            co_await streamEvents(stream, entry, id, version);
            co_return false;
        }
        // Blocking unless the client asked otherwise (0.3 `blocking: false`, 1.0 `returnImmediately`).
        const json configuration = params.value("configuration", json::object());
        const bool immediate =
            configuration.is_object() && (boolOr(configuration, "blocking", true) == false ||
                                          boolOr(configuration, "returnImmediately", false));
        if (!immediate) {
            co_await waitTerminal(entry);
        }
        auto answer = makeResult(id, toJson(SendResult(entry->task), version));
        co_return co_await writeJson(stream, bhttp::status::ok, answer, keepAlive);
    }
    const std::string taskId = params.is_object() ? stringOr(params, "id") : std::string();
    const auto found = s->tasks.find(taskId);
    if (found == s->tasks.end()) {
        auto answer = makeError(id, rpc::kTaskNotFound, "no task '" + taskId + "' on this server");
        co_return co_await writeJson(stream, bhttp::status::ok, answer, keepAlive);
    }
    EntryPtr entry = found->second;
    if (parsed->method == Method::cancel) {
        if (entry->terminal()) {
            auto answer =
                makeError(id, rpc::kTaskNotCancelable,
                          "task '" + taskId + "' is " + std::string(toString(entry->task.status.state)));
            co_return co_await writeJson(stream, bhttp::status::ok, answer, keepAlive);
        }
        entry->cancelRequested = true;
        entry->cancel.emit(asio::cancellation_type::terminal);
        co_await waitTerminal(entry);
    }
    auto answer = makeResult(id, toJson(entry->task, version));
    co_return co_await writeJson(stream, bhttp::status::ok, answer, keepAlive);
}

[[nodiscard]] std::optional<std::string_view> header(const bhttp::request<bhttp::string_body>& request,
                                                     bhttp::field name) {
    const auto found = request.find(name);
    if (found == request.end()) {
        return std::nullopt;
    }
    return std::string_view(found->value().data(), found->value().size());
}

// The rules of reagent's HTTP servers: Host, Origin and bearer token for every request, JSON for a POST.
[[nodiscard]] std::optional<http::Refusal> refusal(const Server::State& s,
                                                   const bhttp::request<bhttp::string_body>& request) {
    const http::CallerHeaders caller{header(request, bhttp::field::host),
                                     header(request, bhttp::field::origin),
                                     header(request, bhttp::field::authorization)};
    if (auto refused = http::checkCaller(caller, s.callers)) {
        return refused;
    }
    if (request.method() == bhttp::verb::post) {
        return http::checkJsonContentType(header(request, bhttp::field::content_type));
    }
    return std::nullopt;
}

Task<void> serveConnection(StatePtr s, tcp::socket socket) {
    beast::tcp_stream stream(std::move(socket));
    beast::flat_buffer buffer;
    for (;;) {
        stream.expires_after(s->config.readTimeout);
        bhttp::request_parser<bhttp::string_body> parser;
        parser.body_limit(s->config.maxBodyBytes);
        parser.header_limit(64U << 10U);
        auto [ec, bytes] =
            co_await bhttp::async_read(stream, buffer, parser, asio::as_tuple(asio::use_awaitable));
        (void)bytes;
        if (ec == bhttp::error::body_limit) {
            auto answer =
                makeError(nullptr, rpc::kInvalidRequest,
                          "the request body is larger than " + std::to_string(s->config.maxBodyBytes) +
                              " bytes (ServerConfig::maxBodyBytes)");
            (void)co_await writeJson(stream, bhttp::status::payload_too_large, answer, false);
            break;
        }
        if (ec) {
            break;
        }
        stream.expires_never();
        auto& request = parser.get();
        const bool keepAlive = request.keep_alive() && !s->stopping;
        const std::string target(request.target());
        bool open = true;
        if (auto refused = refusal(*s, request)) {
            auto answer = makeError(nullptr, rpc::kInvalidRequest, refused->message);
            open = co_await writeJson(stream, static_cast<bhttp::status>(refused->status), answer, keepAlive,
                                      std::move(refused->challenge));
        } else if (request.method() == bhttp::verb::get &&
                   (target == kAgentCardPath || target == "/.well-known/agent.json")) {
            open = co_await writeJson(stream, bhttp::status::ok, toJson(s->card), keepAlive);
        } else if (request.method() == bhttp::verb::post && target == s->config.rpcPath) {
            open = co_await handleRpc(s, stream, std::move(request.body()), keepAlive);
        } else {
            auto answer = json{{"error", "not found: the card is at " + std::string(kAgentCardPath) +
                                             ", JSON-RPC at POST " + s->config.rpcPath}};
            open = co_await writeJson(stream, bhttp::status::not_found, answer, keepAlive);
        }
        if (!open || !keepAlive) {
            break;
        }
    }
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
}

}  // namespace

Server::Server(std::shared_ptr<State> state) : state_(std::move(state)) {}

expected<Server, std::string> Server::bind(Executor executor, ServerConfig config, AgentCard card,
                                           RunFunction run) {
    beast::error_code ec;
    const auto address = asio::ip::make_address(config.host, ec);
    if (ec) {
        return fail("'" + config.host + "' is not an IP address to listen on");
    }
    auto state =
        std::make_shared<State>(std::move(executor), std::move(config), std::move(card), std::move(run));
    const tcp::endpoint endpoint(address, state->config.port);
    auto& acceptor = state->acceptor;
    ec = reagent::detail::listenOn(acceptor, endpoint);
    if (ec) {
        return fail("cannot listen on " + state->config.host + ":" + std::to_string(state->config.port) +
                    ": " + ec.message());
    }
    state->port = acceptor.local_endpoint().port();
    state->callers = http::CallerPolicy{address.is_loopback(), state->config.allowedHosts,
                                        state->config.allowedOrigins, state->config.bearerToken};
    const std::string host = address.is_v6() ? "[" + state->config.host + "]" : state->config.host;
    std::string base = state->config.publicUrl.empty() ? "http://" + host + ":" + std::to_string(state->port)
                                                       : state->config.publicUrl;
    while (!base.empty() && base.back() == '/') {
        base.pop_back();
    }
    state->card.interfaces = {AgentInterface{base + state->config.rpcPath, ProtocolVersion::v1_0},
                              AgentInterface{base + state->config.rpcPath, ProtocolVersion::v0_3}};
    state->card.streaming = true;
    return Server(std::move(state));
}

std::uint16_t Server::port() const noexcept {
    return state_->port;
}

std::string Server::baseUrl() const {
    const std::string& url = state_->card.interfaces.front().url;
    return url.substr(0, url.size() - state_->config.rpcPath.size());
}

const AgentCard& Server::card() const noexcept {
    return state_->card;
}
std::size_t Server::runningTasks() const noexcept {
    return state_->running;
}

Task<void> Server::run() const {
    auto s = state_;
    TaskGroup connections(s->ex);
    std::function<void(tcp::socket)> serve = [s, &connections](tcp::socket socket) {
        connections.spawn(serveConnection(s, std::move(socket)));
    };
    auto accepting =
        reagent::detail::acceptConnections(std::shared_ptr<tcp::acceptor>(s, &s->acceptor), std::move(serve));
    co_await std::move(accepting);
    // Graceful stop: no new connection or task, the running tasks end canceled (their streams send
    // that), a short grace for those last writes, then the idle connections are closed.
    co_await asio::this_coro::reset_cancellation_state();
    s->stopping = true;
    beast::error_code ignored;
    s->acceptor.close(ignored);
    for (auto& [id, entry] : s->tasks) {
        if (!entry->terminal()) {
            entry->cancelRequested = true;
            entry->cancel.emit(asio::cancellation_type::terminal);
        }
    }
    while (s->running > 0) {
        s->idle.reset();
        (void)co_await s->idle.wait(asio::use_awaitable);
    }
    asio::steady_timer grace(s->ex, std::chrono::milliseconds(100));
    (void)co_await grace.async_wait(asio::as_tuple(asio::use_awaitable));
    connections.cancel();
    (void)co_await connections.join();
}

}  // namespace reagent::a2a
