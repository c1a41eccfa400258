// Client: the MCP session logic over a Transport. One reader coroutine per transport feeds RpcSession
// and wakes the requests waiting for their responses; server requests run as children of the client's
// task group; a dropped transport is replaced by the reconnect loop.

#include "reagent/mcp/client.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <iterator>
#include <string>
#include <unordered_map>
#include <utility>

#include "call_trace.hpp"
#include "client_session.hpp"
#include "param_headers.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/event.hpp"
#include "reagent/core/json_fields.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/task_group.hpp"
#include "reagent/mcp/envelope.hpp"
#include "reagent/mcp/json_rpc.hpp"
#include "reagent/mcp/protocol_version.hpp"

namespace reagent::mcp {

namespace asio = boost::asio;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
// 2026-07-28: rounds of questions one call may take, and the pause before a round that answers none.
constexpr std::size_t kMaxInputRounds = 10;
constexpr std::chrono::milliseconds kStateOnlyPause{250};

using detail::Phase;

// A request waiting for its response; lives on the requesting coroutine's frame.
struct Waiter {
    explicit Waiter(const Executor& executor) : woken(executor) {}
    // Set by the reader (resuming the request at once, on the reader's stack), the deadline sweeper, a
    // drop or close.
    Event woken;
    bool timedOut = false;
    std::optional<expected<json, RpcError>> outcome;
    // Set when the transport dropped or the client closed before the response came.
    std::optional<McpError> failure;
    const std::function<void(const Progress&)>* onProgress = nullptr;
};

// Registers a waiter under its request id for as long as it lives.
class WaiterRegistration {
  public:
    WaiterRegistration(Client::State* state, Waiter* waiter, std::int64_t id);
    WaiterRegistration(const WaiterRegistration&) = delete;
    WaiterRegistration& operator=(const WaiterRegistration&) = delete;
    ~WaiterRegistration() { release(); }
    void release() noexcept;

  private:
    Client::State* state_;
    Waiter* waiter_;
    std::int64_t id_;
};

}  // namespace

// The driver's half: the transport, the timers and the coroutines waiting. The rules are the session's.
struct Client::State : std::enable_shared_from_this<Client::State> {
    State(const Executor& ex, ServerConfig cfg, ClientOptions opts, TransportFactory make)
        : executor(ex),
          options(std::move(opts)),
          factory(std::move(make)),
          session(std::move(cfg),
                  detail::Offer{options.clientInfo, options.roots.has_value(),
                                static_cast<bool>(options.sampling), static_cast<bool>(options.elicitation),
                                options.onLog ? options.logLevel : std::string()}),
          phaseChanged(ex),
          sweeper(ex),
          tasks(ex) {}

    Executor executor;
    ClientOptions options;
    TransportFactory factory;
    std::shared_ptr<Transport> transport;
    // 2026-07-28: the arguments each tool mirrors in Mcp-Param-* headers, from the last full tools/list.
    std::shared_ptr<const ParamHeaders> paramHeaders;
    // 2026-07-28: the id of the open subscriptions/listen (0: none), whose answer is not waited for.
    std::int64_t listenId = 0;
    // 2026-07-28: the last full tools/list while its `ttlMs` lasts (the shortest of its pages'); forgotten
    // when the server says the list changed or the connection is replaced.
    std::optional<std::vector<ToolInfo>> cachedTools;
    Clock::time_point cachedUntil{};
    detail::ClientSession session;
    // Set on every change of phase; a waiter resets it before it looks at the phase.
    Event phaseChanged;
    // One timer for every request's deadline, armed at the earliest: a request costs no timer system
    // call of its own (sequential calls keep finding it armed further ahead than they need).
    asio::steady_timer sweeper;
    Clock::time_point sweeperAt = Clock::time_point::max();
    bool sweeping = false;
    std::unordered_map<std::int64_t, Waiter*> waiters;
    // Server requests being handled, by id: a cancel notification (or closing) sets their event.
    std::unordered_map<std::string, Event*> inbound;
    TaskGroup tasks;

    [[nodiscard]] Phase phase() const noexcept { return session.phase(); }
    [[nodiscard]] std::string label() const { return session.label(); }
    [[nodiscard]] const ServerConfig& config() const noexcept { return session.config(); }

    void setPhase(Phase next) {
        session.setPhase(next);
        phaseChanged.set();
    }

    void problem(const McpError& error) const {
        if (options.onProblem) {
            (void)settleCall(options.onProblem, error);
        }
    }

    // Wakes the waiters of `ids` with `error` (the transport dropped or the client closed).
    void failWaiters(const std::vector<std::int64_t>& ids, const McpError& error) {
        for (const std::int64_t id : ids) {
            auto it = waiters.find(id);
            if (it == waiters.end()) {
                continue;
            }
            Waiter* waiter = it->second;
            waiters.erase(it);
            waiter->failure = error;
            waiter->woken.set();
        }
    }
};

namespace {

WaiterRegistration::WaiterRegistration(Client::State* state, Waiter* waiter, std::int64_t id)
    : state_(state), waiter_(waiter), id_(id) {
    state_->waiters[id_] = waiter_;
}

void WaiterRegistration::release() noexcept {
    if (state_ == nullptr) {
        return;
    }
    if (auto it = state_->waiters.find(id_); it != state_->waiters.end() && it->second == waiter_) {
        state_->waiters.erase(it);
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
void dropped(const StatePtr& state, std::uint64_t generation, const McpError& cause) {
    auto drop = state->session.dropped(generation, cause);
    if (!drop) {
        return;
    }
    state->failWaiters(drop->failed, drop->error);
    if (drop->reconnect) {
        state->phaseChanged.set();
        state->tasks.spawn(reconnect(state, cause));
    }
}

// Gives up waiting for request `id` and tells the server to stop working on it.
void abandon(const StatePtr& state, const std::shared_ptr<Transport>& transport, std::int64_t id,
             bool cancelled) {
    std::string notice = state->session.abandon(id, cancelled);
    state->tasks.spawn(sendQuietly(state, transport, std::move(notice)));
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
        for (const std::int64_t id : state->session.expired(now)) {
            if (auto it = state->waiters.find(id); it != state->waiters.end() && !it->second->timedOut) {
                it->second->timedOut = true;
                it->second->woken.set();
            }
        }
        // The expired ones stay registered until their waiters abandon them: the next is later than now.
        const auto next = state->session.nextDeadline(now);
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

// One request on one transport: send, wait for the response (a result or the server's JSON-RPC error),
// the deadline or cancellation.
// `sentId`, when given, receives the request's id.
Task<expected<expected<json, RpcError>, McpError>> exchangeOutcome(
    StatePtr state, std::shared_ptr<Transport> transport, std::uint64_t generation, std::string method,
    json params, Clock::time_point deadline, const std::function<void(const Progress&)>* onProgress,
    std::int64_t* sentId = nullptr) {
    Waiter waiter(state->executor);
    const bool progress = onProgress != nullptr && *onProgress;
    if (progress) {
        waiter.onProgress = onProgress;
    }
    detail::ClientSession::Outgoing outgoing =
        state->session.startRequest(method, std::move(params), progress);
    const std::int64_t id = outgoing.id;
    if (sentId != nullptr) {
        *sentId = id;
    }
    // Whatever way this frame ends (a value, an exception, destruction), the waiter leaves the map.
    WaiterRegistration registration(state.get(), &waiter, id);

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
            registration.release();
            abandon(state, transport, id, cancelled);
            co_return unexpected(cancelled ? state->session.cancelledError(method)
                                           : state->session.timeoutError(method));
        }
    } else {
        sent = co_await transport->send(std::move(outgoing.frame));
    }
    if (!sent) {
        registration.release();
        if (sent.error().code == McpErrc::cancelled) {
            abandon(state, transport, id, true);  // it may have gone out before the cancellation
        } else {
            state->session.forget(id);
        }
        if (sent.error().code == McpErrc::session_expired ||
            sent.error().code == McpErrc::connection_closed) {
            dropped(state, generation, sent.error());
        }
        co_return unexpected(sent.error());
    }
    if (!waiter.outcome && !waiter.failure) {
        state->session.armDeadline(id, deadline);
        armSweeper(state, deadline);
    }
    while (!waiter.outcome && !waiter.failure) {
        waiter.woken.reset();
        (void)co_await waiter.woken.wait(asio::use_awaitable);
        if (waiter.outcome || waiter.failure) {
            break;
        }
        const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
        if (cancelled || waiter.timedOut) {
            // Out of time or given up: tell the server, and ignore a late response.
            registration.release();
            abandon(state, transport, id, cancelled);
            co_return unexpected(cancelled ? state->session.cancelledError(method)
                                           : state->session.timeoutError(method));
        }
    }
    registration.release();
    if (waiter.failure) {
        co_return unexpected(std::move(*waiter.failure));
    }
    co_return std::move(*waiter.outcome);
}

// One request whose JSON-RPC error is a failure like the others.
Task<expected<json, McpError>> exchange(StatePtr state, std::shared_ptr<Transport> transport,
                                        std::uint64_t generation, std::string method, json params,
                                        Clock::time_point deadline,
                                        const std::function<void(const Progress&)>* onProgress) {
    auto outcome = co_await exchangeOutcome(state, std::move(transport), generation, method,
                                            std::move(params), deadline, onProgress);
    if (!outcome) {
        co_return unexpected(std::move(outcome.error()));
    }
    if (!*outcome) {
        co_return unexpected(detail::ClientSession::remoteError(method, outcome->error()));
    }
    co_return std::move(**outcome);
}

// 2026-07-28 has no standalone stream: changes to the tool list come on a subscriptions/listen request
// that stays open for the connection's life (its stream on HTTP), opened when the owner listens for them.
// It has no deadline; closing the client ends it. The server's acknowledgement and its final answer (at a
// graceful shutdown) need nothing; a listen the server refuses is reported.
Task<void> listenForChanges(StatePtr state, std::shared_ptr<Transport> transport) {
    json filter = json::object();
    filter["toolsListChanged"] = true;
    json params = json::object();
    params["notifications"] = std::move(filter);
    detail::ClientSession::Outgoing outgoing =
        state->session.startRequest("subscriptions/listen", std::move(params), false);
    state->listenId = outgoing.id;
    auto sent = co_await transport->send(std::move(outgoing.frame));
    if (!sent && sent.error().code != McpErrc::cancelled) {
        state->problem(McpError{sent.error().code,
                                state->label() + ": subscriptions/listen (for tool list changes) failed: " +
                                    sent.error().message});
    }
}

// Asks the server which era it speaks (`server/discover` with the 2026 envelope), correcting the version
// once when the server names another one it serves.
Task<detail::ProbeVerdict> probe(StatePtr state, std::shared_ptr<Transport> transport,
                                 std::uint64_t generation, Clock::time_point deadline) {
    const ServerConfig& config = state->config();
    if (config.transport == TransportKind::stdio && config.era == ProtocolEra::automatic) {
        deadline = std::min(deadline, Clock::now() + config.discoverTimeout);
    }
    state->session.speakModern(std::string(kModernProtocolVersion));
    for (bool second = false;; second = true) {
        auto answer = co_await exchangeOutcome(state, transport, generation, "server/discover",
                                               json::object(), deadline, nullptr);
        detail::ProbeVerdict verdict = answer ? state->session.judgeProbe(*answer, second)
                                              : state->session.judgeProbeFailure(answer.error());
        if (verdict.kind != detail::ProbeVerdict::Kind::retry || second) {
            co_return verdict;
        }
        state->session.speakModern(verdict.version);
    }
}

// Opens a fresh transport and runs the handshake on it; on success it becomes the client's transport.
Task<expected<void, McpError>> establish(StatePtr state) {
    std::shared_ptr<Transport> transport = state->factory();
    if (!transport) {
        co_return unexpected(McpError{
            McpErrc::invalid_config,
            state->label() + ": no transport for '" + std::string(toString(state->config().transport)) +
                "': the remote transports live in reagent::mcp_remote; link it and connect with "
                "mcp::connectAny (or pass mcp::makeAnyTransport as the transport factory)"});
    }
    const ServerConfig& config = state->config();
    // A person may be authorizing in a browser during the handshake (OAuth): their time counts apart.
    const auto deadline = Clock::now() + config.connectTimeout +
                          (config.oauth ? config.oauth->authorizationTimeout : std::chrono::milliseconds(0));
    auto opened = co_await transport->open();
    if (!opened) {
        co_await transport->close();
        co_return unexpected(opened.error());
    }
    const std::uint64_t generation = state->session.newTransport();
    state->tasks.spawn(readLoop(state, transport, generation));

    if (state->session.probes()) {
        detail::ProbeVerdict verdict = co_await probe(state, transport, generation, deadline);
        if (verdict.kind == detail::ProbeVerdict::Kind::modern) {
            if (state->paramHeaders) {
                transport->setParamHeaders(state->paramHeaders);
            }
            state->cachedTools.reset();  // a new connection asks again
            state->transport = std::move(transport);
            state->session.connected(std::move(verdict.server), Clock::now());
            if (state->options.onToolsChanged) {
                state->tasks.spawn(listenForChanges(state, state->transport));
            }
            state->phaseChanged.set();
            co_return expected<void, McpError>{};
        }
        if (verdict.kind != detail::ProbeVerdict::Kind::legacy || verdict.restart) {
            state->session.retireTransport();
            co_await transport->close();
            if (verdict.kind != detail::ProbeVerdict::Kind::legacy) {
                co_return unexpected(std::move(verdict.error));
            }
            // The server ended the connection on the probe: the handshake runs on a new one.
            co_return co_await establish(state);
        }
    }

    json params = state->session.initializeParams();
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
        state->session.retireTransport();  // the reader of this transport must not report a drop
        co_await transport->close();
        co_return fail(state->session.handshakeFailed(result.error()));
    }
    auto info = state->session.acceptInitialize(*result);
    if (!info) {
        state->session.retireTransport();
        co_await transport->close();
        co_return unexpected(std::move(info.error()));
    }
    transport->setProtocolVersion(info->protocolVersion);
    auto initialized = co_await transport->send(state->session.initializedNotification());
    if (!initialized) {
        state->session.retireTransport();
        co_await transport->close();
        co_return fail(McpError{McpErrc::connect_failed,
                                state->label() + " did not initialise: " + initialized.error().message});
    }
    state->transport = std::move(transport);
    state->session.connected(std::move(*info), Clock::now());
    state->phaseChanged.set();
    co_return expected<void, McpError>{};
}

Task<void> reconnect(StatePtr state, McpError cause) {
    std::shared_ptr<Transport> old = std::move(state->transport);
    if (old) {
        co_await old->close();
    }
    state->session.beginReconnect(Clock::now());
    McpError last = std::move(cause);
    while (state->phase() == Phase::reconnecting) {
        auto next = state->session.nextAttempt(last);
        if (std::holds_alternative<McpError>(next)) {  // gave up: the session failed
            state->phaseChanged.set();
            co_return;
        }
        auto& attempt = std::get<detail::ClientSession::Attempt>(next);
        asio::steady_timer pause(state->executor, attempt.delay);
        auto [ec] = co_await pause.async_wait(kTuple);
        if (ec || state->phase() != Phase::reconnecting) {
            co_return;
        }
        state->problem(attempt.notice);
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
}

// Waits until the client is connected (or reconnected), or says why it is not.
Task<expected<void, McpError>> ready(StatePtr state, Clock::time_point deadline) {
    for (;;) {
        state->phaseChanged.reset();
        switch (state->phase()) {
            case Phase::connected:
                co_return expected<void, McpError>{};
            case Phase::failed:
                co_return unexpected(*state->session.lastError());
            case Phase::closed:
                co_return unexpected(
                    McpError{McpErrc::connection_closed, state->label() + ": the client is closed"});
            case Phase::connecting:
            case Phase::reconnecting:
                break;
        }
        asio::steady_timer limit(state->executor, deadline);
        using namespace asio::experimental::awaitable_operators;
        auto woke = co_await (state->phaseChanged.wait(asio::use_awaitable) || limit.async_wait(kTuple));
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            co_return unexpected(
                McpError{McpErrc::cancelled, "cancelled while waiting for " + state->label()});
        }
        if (woke.index() == 1) {
            co_return unexpected(McpError{McpErrc::timeout, state->label() + " is still reconnecting"});
        }
    }
}

// 2026-07-28 over streamable HTTP: the arguments tools mirror in Mcp-Param-* headers, told to the
// transport; a tool whose x-mcp-header annotations break the rules is left out of the list (reported),
// as the specification requires of an HTTP client.
void headersFrom(Client::State& state, std::vector<ToolInfo>& tools) {
    if (state.session.era() != detail::Era::modern ||
        state.config().transport != TransportKind::streamable_http) {
        return;
    }
    auto headers = std::make_shared<ParamHeaders>();
    std::erase_if(tools, [&](const ToolInfo& tool) {
        auto marked = detail::paramHeadersOf(tool.inputSchema);
        if (!marked) {
            state.problem(McpError{McpErrc::malformed_message, state.label() + " lists tool " + tool.name +
                                                                   " with an invalid x-mcp-header (" +
                                                                   marked.error() +
                                                                   "): the tool is left out"});
            return true;
        }
        if (!marked->empty()) {
            headers->emplace(tool.name, std::move(*marked));
        }
        return false;
    });
    state.paramHeaders = std::move(headers);
    if (state.transport) {
        state.transport->setParamHeaders(state.paramHeaders);
    }
}

Task<expected<json, McpError>> answerQuestions(StatePtr state, const json& questions);
Task<expected<std::vector<ToolInfo>, McpError>> listAllTools(StatePtr state);

// The rounds of one call; `record`, when given, learns the ids sent and a JSON-RPC error's code.
Task<expected<json, McpError>> rounds(StatePtr state, std::string method, json params,
                                      std::optional<std::chrono::milliseconds> timeout,
                                      const std::function<void(const Progress&)>* onProgress,
                                      detail::CallRecord* record) {
    const auto deadline = Clock::now() + timeout.value_or(state->config().requestTimeout);
    auto up = co_await ready(state, deadline);
    if (!up) {
        co_return unexpected(up.error());
    }
    // 2026-07-28: a result may be the server's questions; the call goes again with the answers (a new
    // id, the same params, this round's answers and the state echoed byte for byte), up to a bound. A
    // tools/call refused for its Mcp-Param-* headers (-32020) goes again once, after listing the tools.
    std::optional<json> original;
    if (state->session.era() == detail::Era::modern &&
        (method == "tools/call" || method == "prompts/get" || method == "resources/read")) {
        original = params;
    }
    bool relisted = false;
    for (std::size_t round = 1;; ++round) {
        auto outcome = co_await exchangeOutcome(state, state->transport, state->session.generation(), method,
                                                std::move(params), deadline, onProgress,
                                                record != nullptr ? &record->requestId : nullptr);
        if (!outcome) {
            co_return unexpected(std::move(outcome.error()));
        }
        if (!*outcome) {
            if (outcome->error().code == kHeaderMismatch && method == "tools/call" && original && !relisted) {
                relisted = true;
                state->cachedTools.reset();
                auto listed = co_await listAllTools(state);
                (void)listed;  // a failure shows in the retry
                params = *original;
                continue;
            }
            if (record != nullptr) {
                record->rpcErrorCode = outcome->error().code;
            }
            co_return unexpected(detail::ClientSession::remoteError(method, outcome->error()));
        }
        expected<json, McpError> result(std::move(**outcome));
        auto kind = state->session.checkResult(method, *result);
        if (!kind) {
            co_return unexpected(std::move(kind.error()));
        }
        if (*kind == detail::ClientSession::ResultKind::complete) {
            co_return result;
        }
        if (round >= kMaxInputRounds) {
            co_return unexpected(McpError{McpErrc::protocol_error, state->label() +
                                                                       " still asked for input after " +
                                                                       std::to_string(round) + " rounds of " +
                                                                       method + "; the client stops there"});
        }
        const json questions = result->value("inputRequests", json::object());
        auto answers = co_await answerQuestions(state, questions);
        if (!answers) {
            co_return unexpected(std::move(answers.error()));
        }
        params = *original;
        if (!answers->empty()) {
            params["inputResponses"] = std::move(*answers);
        }
        if (const auto kept = result->find("requestState"); kept != result->end()) {
            params["requestState"] = *kept;
        }
        if (questions.empty()) {
            // Only a state (the server sheds load or polls): a pause before asking again.
            asio::steady_timer pause(state->executor, std::min(deadline, Clock::now() + kStateOnlyPause));
            auto [ec] = co_await pause.async_wait(kTuple);
            (void)ec;
            if (isCancelled(co_await asio::this_coro::cancellation_state)) {
                co_return unexpected(McpError{McpErrc::cancelled, method + " was cancelled between rounds"});
            }
        }
    }
}

// `rounds` in a client span (`CallTrace`), child of `parent`.
Task<expected<json, McpError>> tracedRounds(StatePtr state, std::string method, json params,
                                            std::optional<std::chrono::milliseconds> timeout,
                                            const std::function<void(const Progress&)>* onProgress,
                                            SpanContext parent) {
    detail::CallTrace trace(state->options.telemetry, state->config(), method, params, parent);
    detail::CallRecord record;
    auto outcome = co_await rounds(state, std::move(method), std::move(params), timeout, onProgress, &record);
    trace.end(outcome, record, state->session.server().protocolVersion);
    co_return outcome;
}

// One call, the way it goes to the server: traced when the client was given telemetry, its span a child
// of `parent` when one is given. (A pointer: GCC 12 frees a class-type default argument of a call awaited
// in a coroutine twice.)
Task<expected<json, McpError>> call(StatePtr state, std::string method, json params,
                                    std::optional<std::chrono::milliseconds> timeout,
                                    const std::function<void(const Progress&)>* onProgress,
                                    const SpanContext* parent = nullptr) {
    if (state->options.telemetry) {
        return tracedRounds(std::move(state), std::move(method), std::move(params), timeout, onProgress,
                            parent != nullptr ? *parent : SpanContext{});
    }
    return rounds(std::move(state), std::move(method), std::move(params), timeout, onProgress, nullptr);
}

Task<expected<std::vector<ToolInfo>, McpError>> listAllTools(StatePtr state) {
    if (state->cachedTools && Clock::now() < state->cachedUntil) {
        co_return *state->cachedTools;  // the server said the list may be reused this long (ttlMs)
    }
    state->cachedTools.reset();
    std::optional<std::chrono::milliseconds> ttl;
    std::vector<ToolInfo> tools;
    std::string cursor;
    // Bounded: a server that hands out cursors forever is cut off.
    for (int pages = 0; pages < 1000; ++pages) {
        json params = cursor.empty() ? json::object() : json{{"cursor", cursor}};
        auto result = co_await call(state, "tools/list", std::move(params), std::nullopt, nullptr);
        if (!result) {
            co_return unexpected(result.error());
        }
        auto page = state->session.readToolPage(*result);
        if (!page) {
            co_return unexpected(std::move(page.error()));
        }
        for (const McpError& problem : page->problems) {
            state->problem(problem);
        }
        std::move(page->tools.begin(), page->tools.end(), std::back_inserter(tools));
        ttl = ttl ? std::min(*ttl, page->ttl) : page->ttl;
        cursor = std::move(page->nextCursor);
        if (cursor.empty()) {
            headersFrom(*state, tools);
            if (ttl && ttl->count() > 0 && state->session.era() == detail::Era::modern) {
                state->cachedTools = tools;
                state->cachedUntil = Clock::now() + *ttl;
            }
            co_return tools;
        }
    }
    co_return unexpected(
        McpError{McpErrc::protocol_error, state->label() + ": tools/list did not end after 1000 pages"});
}

// The answers to a 2026-07-28 result's questions, by key, from the handlers that answer 2025's server
// requests (sampling, elicitation) and the roots the client holds; one after the other (a person may be
// answering).
Task<expected<json, RpcError>> answer(StatePtr state, const Request& request);

Task<expected<json, McpError>> answerQuestions(StatePtr state, const json& questions) {
    json answers = json::object();
    for (const auto& [key, question] : questions.items()) {
        const std::string method = question.is_object() ? stringOr(question, "method") : std::string();
        const json params = question.is_object() ? question.value("params", json::object()) : json::object();
        if (method == "roots/list" && state->options.roots) {
            answers[key] = detail::rootsResult(*state->options.roots);
            continue;
        }
        const bool handled = (method == "sampling/createMessage" && state->options.sampling) ||
                             (method == "elicitation/create" && state->options.elicitation);
        if (!handled) {
            co_return unexpected(McpError{McpErrc::protocol_error,
                                          state->label() + " asked for " +
                                              (method.empty() ? std::string("an unnamed input") : method) +
                                              " (input " + key + "), which this client does not offer"});
        }
        const Request request{RequestId(std::int64_t{0}), method, params};
        auto answered = co_await answer(state, request);
        if (!answered) {
            co_return unexpected(
                McpError{McpErrc::protocol_error, "the answer to " + method + " for " + state->label() +
                                                      " failed: " + answered.error().message});
        }
        answers[key] = std::move(*answered);
    }
    co_return answers;
}

// Runs the handler of one server request (sampling, elicitation).
Task<expected<json, RpcError>> answer(StatePtr state, const Request& request) {
    const RequestHandler& handler =
        request.method == "sampling/createMessage" ? state->options.sampling : state->options.elicitation;
    auto outcome = co_await settle(handler(request.params));
    if (!outcome) {
        co_return unexpected(RpcError{kInternalError, outcome.error().message});
    }
    if (*outcome && request.method == "elicitation/create") {
        co_return fillElicitationDefaults(request.params.value("requestedSchema", json::object()),
                                          std::move(**outcome));
    }
    co_return std::move(*outcome);
}

// Serves one server request; a cancel notification for it ends the handler without a response.
Task<void> serveRequest(StatePtr state, std::shared_ptr<Transport> transport, Request request) {
    const std::string key = toString(request.id);
    Event cancelled(state->executor);
    state->inbound[key] = &cancelled;
    // Leaves the map however this frame ends.
    struct Unregister {
        Client::State* state;
        const std::string& key;
        Event* event;
        ~Unregister() {
            if (auto it = state->inbound.find(key); it != state->inbound.end() && it->second == event) {
                state->inbound.erase(it);
            }
        }
    } unregister{state.get(), key, &cancelled};
    using namespace asio::experimental::awaitable_operators;
    auto outcome = co_await (answer(state, request) || cancelled.wait());
    if (outcome.index() != 0) {
        co_return;  // cancelled by the server, or the client is closing: no response
    }
    std::string frame = state->session.respond(request.id, std::move(std::get<0>(outcome)));
    auto sent = co_await transport->send(std::move(frame));
    if (!sent && sent.error().code != McpErrc::cancelled) {
        state->problem(sent.error());
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
        detail::ClientSession::Effects effects = state->session.receive(*frame, state->options.roots);
        for (std::string& reply : effects.replies) {
            state->tasks.spawn(sendQuietly(state, transport, std::move(reply)));
        }
        for (Request& request : effects.serve) {
            state->tasks.spawn(serveRequest(state, transport, std::move(request)));
        }
        for (const std::string& key : effects.cancelInbound) {
            if (auto it = state->inbound.find(key); it != state->inbound.end()) {
                it->second->set();
            }
        }
        for (const McpError& problem : effects.problems) {
            state->problem(problem);
        }
        for (const detail::ClientSession::ProgressFor& report : effects.progress) {
            auto it = state->waiters.find(report.id);
            if (it != state->waiters.end() && it->second->onProgress != nullptr) {
                (void)settleCall(*it->second->onProgress, report.progress);
            }
        }
        if (state->options.onLog) {
            for (const LogMessage& message : effects.logs) {
                (void)settleCall(state->options.onLog, message);
            }
        }
        if (effects.toolsChanged) {
            state->cachedTools.reset();
        }
        if (effects.toolsChanged && state->options.onToolsChanged) {
            (void)settleCall(state->options.onToolsChanged);
        }
        for (detail::ClientSession::Completion& done : effects.completions) {
            auto it = state->waiters.find(done.id);
            if (it == state->waiters.end()) {
                if (done.id == state->listenId && !done.outcome) {
                    state->problem(McpError{McpErrc::remote_error,
                                            state->label() +
                                                " refused subscriptions/listen, so tool list changes "
                                                "will not be heard: " +
                                                done.outcome.error().describe()});
                }
                continue;
            }
            Waiter* waiter = it->second;
            state->waiters.erase(it);
            waiter->outcome = std::move(done.outcome);
            // The request runs now, on this stack, until it waits again (no trip through the event loop).
            // It may have closed or dropped the client meanwhile: then stop here.
            waiter->woken.set(Event::Resumption::inlineFirst);
            if (isCancelled(co_await asio::this_coro::cancellation_state)) {
                co_return;
            }
        }
        if (isCancelled(co_await asio::this_coro::cancellation_state)) {
            co_return;
        }
    }
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
    if (state->phase() == Phase::closed) {
        co_return;
    }
    state->setPhase(Phase::closed);
    state->failWaiters(state->session.failAll(),
                       McpError{McpErrc::connection_closed, state->label() + ": the client was closed"});
    for (auto& [key, event] : state->inbound) {
        event->set();
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
    if (state_ && state_->phase() != Phase::closed) {
        // No close(): stop the reader and handlers; the transport goes with the state (a stdio server
        // is killed and reaped by its Subprocess).
        state_->session.setPhase(Phase::closed);
        state_->failWaiters(
            state_->session.failAll(),
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
    return state_->config();
}

const ServerInfo& Client::server() const noexcept {
    return state_->session.server();
}

bool Client::connected() const noexcept {
    return state_->phase() == Phase::connected;
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
    const auto deadline = Clock::now() + state->config().requestTimeout;
    auto up = co_await ready(state, deadline);
    if (!up) {
        co_return unexpected(up.error());
    }
    co_return co_await state->transport->send(state->session.notify(std::move(method), std::move(params)));
}

Task<expected<void, McpError>> Client::ping() {
    // 2026-07-28 has no ping: server/discover is the request every such server answers.
    const bool modern = state_->session.era() == detail::Era::modern;
    auto result = co_await request(modern ? "server/discover" : "ping");
    if (!result) {
        co_return unexpected(result.error());
    }
    co_return expected<void, McpError>{};
}

Task<expected<void, McpError>> Client::setRoots(std::vector<Root> roots) {
    state_->options.roots = std::move(roots);
    state_->session.offerRoots();
    if (state_->session.era() == detail::Era::modern) {
        co_return expected<void, McpError>{};  // 2026-07-28 has no roots notification
    }
    co_return co_await notify("notifications/roots/list_changed");
}

Task<expected<std::vector<ToolInfo>, McpError>> Client::listTools() {
    return listAllTools(state_);
}

Task<expected<CallResult, McpError>> Client::callTool(std::string name, json arguments) {
    CallOptions options;
    auto calling = callTool(std::move(name), std::move(arguments), std::move(options));
    co_return co_await std::move(calling);
}

Task<expected<CallResult, McpError>> Client::callTool(std::string name, json arguments, CallOptions options) {
    auto state = state_;
    const bool retryable = state->session.mayResend(name);
    // Built member by member and moved along (an initializer list copies every value; this is per call).
    json params = json::object();
    params["name"] = std::move(name);
    params["arguments"] = arguments.is_null() ? json::object() : std::move(arguments);
    if (options.trace.valid() && !state->options.telemetry) {
        // Traced, the call's own span is sent instead, child of this one (`call`).
        json& meta = params["_meta"];
        meta["traceparent"] = formatTraceparent(options.trace);
        if (!options.trace.traceState.empty()) {
            meta["tracestate"] = options.trace.traceState;
        }
    }
    // Only a call that may be sent again after a reconnection keeps a copy of its parameters.
    std::optional<json> resend;
    if (retryable) {
        resend = params;
    }
    const std::function<void(const Progress&)>* onProgress =
        options.onProgress ? &options.onProgress : nullptr;
    auto result =
        co_await call(state, "tools/call", std::move(params), options.timeout, onProgress, &options.trace);
    if (!result && result.error().code == McpErrc::connection_closed && retryable &&
        state->phase() != Phase::closed && state->phase() != Phase::failed) {
        // The transport dropped under the call; the tool says sending it again is harmless.
        result = co_await call(state, "tools/call", std::move(*resend), options.timeout, onProgress,
                               &options.trace);
    }
    if (!result) {
        co_return unexpected(result.error());
    }
    co_return detail::ClientSession::readCallResult(std::move(*result));
}

Task<void> Client::close() {
    co_await withCheckedCancellation(shutdown(state_));
}

}  // namespace reagent::mcp
