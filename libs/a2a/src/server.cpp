// The A2A server's driver: an accept loop, reagent::http's connection loop, one coroutine per task. The
// decisions (server_decisions) say what each request gets; this runs the tasks, waits for them and
// streams their events. Tasks live in an in-memory store; each keeps the log of its events, which
// blocking sends and streams read from a position, woken by an Event set on every change.

#include "reagent/a2a/server.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "reagent/a2a/json_rpc.hpp"
#include "reagent/core/detail/listen.hpp"
#include "reagent/core/settle.hpp"
#include "server_decisions.hpp"
#include "server_state.hpp"
#include "server_trace.hpp"

namespace reagent::a2a {

namespace asio = boost::asio;
using asio::ip::tcp;
using detail::EntryPtr;
using detail::StatePtr;
using jsonrpc::RpcError;
using nlohmann::json;

namespace {

[[nodiscard]] Message agentText(const std::string& text, const AgentTask& task) {
    Message message;
    message.messageId = newId();
    message.role = Role::agent;
    message.parts.push_back(Part::fromText(text));
    message.taskId = task.id;
    message.contextId = task.contextId;
    return message;
}

}  // namespace

void Server::State::settled(const detail::EntryPtr& entry, TaskStatus status,
                            std::optional<Artifact> artifact) {
    if (artifact) {
        entry->task.artifacts.push_back(*artifact);
        ArtifactUpdate update{entry->task.id, entry->task.contextId, std::move(*artifact), false, true};
        entry->push(std::move(update));
    }
    entry->task.status = status;
    entry->task.status.timestamp.clear();
    entry->ended = true;
    StatusUpdate update{entry->task.id, entry->task.contextId, std::move(status), true};
    entry->push(std::move(update));
    finished.push_back(entry->task.id);
    while (finished.size() > config.maxStoredTasks) {
        tasks.erase(finished.front());
        finished.pop_front();
    }
}

namespace detail {

namespace {

Task<void> runTask(StatePtr s, EntryPtr entry, std::string prompt, SpanContext trace) {
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
    std::function<void()> accepted = [weak = std::weak_ptr<TaskEntry>(entry)] {
        if (auto e = weak.lock()) {
            e->accepted = true;
            e->changed.set();
        }
    };
    auto pending = s->run(std::move(prompt), TaskContext{std::move(progress), std::move(trace),
                                                         entry->task.history.front(), std::move(accepted)});
    auto outcome = co_await settle(std::move(pending));
    TaskStatus status;
    if (s->stopping && s->config.directory) {
        // The server stops, the task goes on where its directory keeps it: its streams end not knowing how.
        status.state = TaskState::unknown;
        status.message = agentText("this server stopped; the task goes on: ask any server for it (tasks/get)",
                                   entry->task);
        s->settled(entry, std::move(status), std::nullopt);
    } else if (entry->cancelRequested) {
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

}  // namespace

expected<EntryPtr, RpcError> startTask(const StatePtr& s, const json& params, const SpanContext& trace) {
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
    entry->accepted = !s->config.directory;
    entry->push(StreamEvent(entry->task));
    s->tasks[entry->task.id] = entry;
    ++s->running;
    asio::co_spawn(s->ex, runTask(s, entry, std::move(prompt), trace),
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

}  // namespace detail

namespace {

// Until the task is terminal, or (`acceptedWill`) accepted.
Task<void> waitTerminal(EntryPtr entry, bool acceptedWill = false) {
    while (!entry->terminal() && !(acceptedWill && entry->accepted)) {
        entry->changed.reset();
        (void)co_await entry->changed.wait(asio::use_awaitable);
    }
}

// How far a stream has read its task's event log.
struct StreamPosition {
    std::size_t next = 0;
    bool ended = false;
};

// The events not yet sent, as SSE events carrying JSON-RPC results; nothing after the terminal status.
Task<std::optional<std::string>> nextEvents(EntryPtr entry, jsonrpc::RequestId id, ProtocolVersion version,
                                            std::shared_ptr<StreamPosition> at) {
    if (at->ended) {
        co_return std::nullopt;
    }
    while (at->next == entry->events.size()) {
        entry->changed.reset();
        auto waited = co_await entry->changed.wait();
        if (!waited) {
            throw boost::system::system_error(asio::error::operation_aborted);
        }
    }
    std::string out;
    for (; at->next < entry->events.size(); ++at->next) {
        const auto& event = entry->events[at->next];
        out += "data: " + makeResult(id, toJson(event, version)) + "\n\n";
        if (const auto* status = std::get_if<StatusUpdate>(&event); status && status->final) {
            at->ended = true;
        }
    }
    co_return out;
}

// `message/stream`'s reply: the task's event log as SSE, from the start, until the terminal status.
http::StreamedReply eventStream(EntryPtr entry, jsonrpc::RequestId id, ProtocolVersion version) {
    http::StreamedReply reply;
    reply.headers.add("Content-Type", "text/event-stream");
    reply.headers.add("Cache-Control", "no-cache");
    auto position = std::make_shared<StreamPosition>();
    reply.next = [entry = std::move(entry), id = std::move(id), version, position] {
        return nextEvents(entry, id, version, position);
    };
    return reply;
}

// `tasks/get` or `tasks/cancel` of a server with a task directory: the task as the directory has it.
Task<http::ServerAnswer> askDirectory(detail::Decision decision) {
    const bool cancel = decision.then == detail::Decision::Then::cancelInDirectory;
    auto found = co_await decision.directory->find(decision.taskId);
    bool notCancelable = false;
    if (cancel && found && *found) {
        notCancelable = isTerminal((*found)->status.state);
        if (!notCancelable) {
            found = co_await decision.directory->cancel(decision.taskId);
        }
    }
    std::string body;
    if (!found) {
        body = makeError(decision.id, rpc::kInternalError,
                         "could not read task '" + decision.taskId + "': " + found.error());
    } else if (!*found) {
        body = makeError(decision.id, rpc::kTaskNotFound, "no task '" + decision.taskId + "'");
    } else if (notCancelable) {
        body =
            makeError(decision.id, rpc::kTaskNotCancelable,
                      "task '" + decision.taskId + "' is " + std::string(toString((*found)->status.state)));
    } else {
        body = makeResult(decision.id, toJson(**found, decision.version));
    }
    http::ServerAnswer whole{detail::jsonReply(200, std::move(body))};
    co_return whole;
}

// Performs a decision: at once, or after waiting for its task.
Task<http::ServerAnswer> perform(detail::Decision decision) {
    using Then = detail::Decision::Then;
    switch (decision.then) {
        case Then::reply:
            break;
        case Then::stream: {
            http::ServerAnswer streamed{eventStream(decision.entry, decision.id, decision.version), true};
            co_return streamed;
        }
        case Then::sendResultWhenAccepted:
        case Then::sendResultWhenTerminal:
        case Then::taskWhenTerminal: {
            auto waiting = waitTerminal(decision.entry, decision.then == Then::sendResultWhenAccepted);
            co_await std::move(waiting);
            const json result = decision.then != Then::taskWhenTerminal
                                    ? toJson(SendResult(decision.entry->task), decision.version)
                                    : toJson(decision.entry->task, decision.version);
            decision.reply = detail::jsonReply(200, makeResult(decision.id, result));
            break;
        }
        case Then::findInDirectory:
        case Then::cancelInDirectory: {
            auto asking = askDirectory(std::move(decision));
            co_return co_await std::move(asking);
        }
    }
    http::ServerAnswer whole{std::move(decision.reply)};
    co_return whole;
}

// The request's known route, for its span and duration; empty for any other path (not recorded: a client
// could otherwise grow their cardinality).
std::string routeOf(const Server::State& s, const std::string& target) {
    if (target == s.config.rpcPath || target == kAgentCardPath || target == "/.well-known/agent.json") {
        return target;
    }
    return {};
}

Task<http::ServerAnswer> answer(StatePtr s, http::ServerRequest request) {
    if (!s->config.telemetry) {
        auto performing = perform(detail::decide(s, std::move(request)));
        co_return co_await std::move(performing);
    }
    detail::ServedRequest served(s->config.telemetry, request, routeOf(*s, request.target));
    detail::Decision decision = detail::decide(s, std::move(request), served.context());
    served.call(decision.rpcMethod, decision.rpcMethodOriginal, decision.id, decision.rpcErrorCode);
    auto performing = perform(std::move(decision));
    http::ServerAnswer answered = co_await std::move(performing);
    served.end(answered);
    co_return answered;
}

[[nodiscard]] http::ConnectionLimits limitsOf(const ServerConfig& config) {
    http::ConnectionLimits limits;
    limits.maxBodyBytes = config.maxBodyBytes;
    limits.maxHeaderBytes = 64U << 10U;
    limits.readTimeout = config.readTimeout;
    return limits;
}

}  // namespace

Server::Server(std::shared_ptr<State> state) : state_(std::move(state)) {}

expected<Server, std::string> Server::bind(Executor executor, ServerConfig config, AgentCard card,
                                           RunFunction run) {
    TracedRunFunction traced = [run = std::move(run)](std::string prompt, TaskContext context) {
        return run(std::move(prompt), std::move(context.progress));
    };
    return bind(std::move(executor), std::move(config), std::move(card), std::move(traced));
}

expected<Server, std::string> Server::bind(Executor executor, ServerConfig config, AgentCard card,
                                           TracedRunFunction run) {
    boost::system::error_code ec;
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
    http::ConnectionHandler handler;
    handler.answer = [s](http::ServerRequest request) { return answer(s, std::move(request)); };
    handler.refuse = [s](unsigned status, std::string why) {
        if (status == 413) {
            why = "the request body is larger than " + std::to_string(s->config.maxBodyBytes) +
                  " bytes (ServerConfig::maxBodyBytes)";
        }
        return detail::jsonReply(status, makeError(std::nullopt, rpc::kInvalidRequest, std::move(why)));
    };
    http::ServerConnections connections(s->ex, limitsOf(s->config), std::move(handler));
    std::function<void(tcp::socket)> serve = [&connections](tcp::socket socket) {
        connections.serve(std::move(socket));
    };
    auto accepting =
        reagent::detail::acceptConnections(std::shared_ptr<tcp::acceptor>(s, &s->acceptor), std::move(serve));
    co_await std::move(accepting);
    // Graceful stop: no new connection or task, the running tasks end canceled (their streams send
    // that), a short grace for those last writes, then the connections left are cut.
    co_await asio::this_coro::reset_cancellation_state();
    s->stopping = true;
    connections.stop();
    boost::system::error_code ignored;
    s->acceptor.close(ignored);
    for (auto& [id, entry] : s->tasks) {
        if (!entry->terminal()) {
            entry->cancelRequested = !s->config.directory;  // with one, the task itself goes on
            entry->cancel.emit(asio::cancellation_type::terminal);
        }
    }
    while (s->running > 0) {
        s->idle.reset();
        (void)co_await s->idle.wait(asio::use_awaitable);
    }
    auto closing = connections.close(std::chrono::milliseconds(100));
    co_await std::move(closing);
}

}  // namespace reagent::a2a
