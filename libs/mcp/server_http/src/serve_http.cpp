// serveHttp: the server's streamable HTTP driver. reagent::http's connection loop reads requests and writes
// replies; the decisions (headers, routing, event ids, replay) are made by http_rules, http_session and
// sse_stream; what is left here is waiting (a quick call's first event, an exchange's responses) and
// feeding event streams to their replies.

#include "reagent/mcp/serve_http.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "http_router.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/detail/listen.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/task_group.hpp"
#include "reagent/http/server_connections.hpp"

namespace reagent::mcp {

namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using detail::Outcome;
using detail::Refusal;
using detail::refusal;
using detail::Reply;
using Clock = std::chrono::steady_clock;

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
/// A write the client does not take within this time ends the connection.
constexpr std::chrono::seconds kWriteTimeout{30};
/// An idle stream gets a comment this often, so that a client that went away is noticed.
constexpr std::chrono::seconds kHeartbeat{15};
/// Request headers beyond this are refused.
constexpr std::uint32_t kHeaderLimit = 16U << 10U;
/// A POST's reply waits this long for its first event before its stream starts (so that a quick call is
/// one reply with a length).
constexpr std::chrono::milliseconds kFirstEventWait{200};
/// How long shutdown waits for streams to write their ends before cutting connections.
constexpr std::chrono::seconds kShutdownGrace{2};

// The server's state, shared by the accept loop, the connections and the expiry sweep: the sessions
// (and what deciding needs), and the connections.
struct Hub : detail::HttpSessions {
    Hub(Server s, HttpServeOptions o, Executor ex, bool local)
        : HttpSessions(std::move(s), std::move(o), ex, local), background(ex) {}
    static http::ConnectionLimits limits(const HttpServeOptions& options) {
        http::ConnectionLimits out;
        out.maxBodyBytes = options.maxBodyBytes;
        out.maxHeaderBytes = kHeaderLimit;
        out.readTimeout = options.connectionIdleTimeout;
        out.writeTimeout = kWriteTimeout;
        return out;
    }
    /// Made once the hub exists: their handler refers to it.
    std::optional<http::ServerConnections> connections;
    TaskGroup background;
};

// A whole reply with the headers that vary.
[[nodiscard]] http::ServerReply toServerReply(Reply reply) {
    http::ServerReply out{reply.status, {}, std::move(reply.body)};
    if (!reply.contentType.empty()) {
        out.headers.add("Content-Type", reply.contentType);
    }
    if (!reply.sessionId.empty()) {
        out.headers.add("Mcp-Session-Id", reply.sessionId);
    }
    if (!reply.allow.empty()) {
        out.headers.add("Allow", reply.allow);
    }
    if (!reply.challenge.empty()) {
        out.headers.add("WWW-Authenticate", reply.challenge);
    }
    if (reply.contentType == "text/event-stream") {
        out.headers.add("Cache-Control", "no-cache");
    }
    return out;
}

// Feeds an event stream to its reply, piece by piece: the priming event, then the stream's events after
// `from`, with a comment after each idle heartbeat, until the stream ends. It is attached to the stream
// while it lives (the session counts it open; new events wake it).
class Pump {
  public:
    Pump(std::shared_ptr<Hub> hub, std::shared_ptr<detail::HttpSession> session,
         std::shared_ptr<detail::EventStream> stream, std::uint64_t from, std::string first)
        : hub_(std::move(hub)),
          session_(std::move(session)),
          stream_(std::move(stream)),
          sent_(from),
          first_(std::move(first)),
          wake_(std::make_shared<asio::steady_timer>(hub_->executor)) {
        stream_->attached = true;
        ++session_->streamsOpen;
        std::weak_ptr<asio::steady_timer> weakWake = wake_;
        stream_->onData = [weakWake] {
            if (auto timer = weakWake.lock()) {
                timer->cancel();
            }
        };
    }
    Pump(const Pump&) = delete;
    Pump& operator=(const Pump&) = delete;
    ~Pump() {
        stream_->onData = nullptr;
        stream_->attached = false;
        --session_->streamsOpen;
        session_->lastSeen = Clock::now();
        if (stream_->number() != 0) {
            session_->release(stream_->number());
        }
        if (session_->id().empty() && !session_->ended()) {
            hub_->close(session_);  // a 2026-07-28 request's stream ended or was cut: its call is cancelled
        }
    }

    // The next piece; nothing once the stream ended. Throws operation_aborted when the server stops or
    // the connection is cut, so that the reply ends without its last chunk.
    Task<std::optional<std::string>> next() {
        // The piece before this call was written.
        stream_->written = std::max(stream_->written, sent_);
        std::string text = std::exchange(first_, std::string());
        while (true) {
            auto batch = stream_->after(sent_);
            text += batch.text;
            if (!text.empty()) {
                sent_ = std::max(sent_, batch.last);
                co_return text;
            }
            if (stream_->ended()) {
                co_return std::nullopt;
            }
            if (hub_->stopping || isCancelled(co_await asio::this_coro::cancellation_state)) {
                throw boost::system::system_error(asio::error::operation_aborted);
            }
            wake_->expires_after(kHeartbeat);
            auto [ec] = co_await wake_->async_wait(kTuple);
            if (!ec) {
                text = ": keep-alive\n\n";
            }
        }
    }

  private:
    std::shared_ptr<Hub> hub_;
    std::shared_ptr<detail::HttpSession> session_;
    std::shared_ptr<detail::EventStream> stream_;
    std::uint64_t sent_;
    std::string first_;
    std::shared_ptr<asio::steady_timer> wake_;
};

// An event-stream reply fed by `stream` from event `from` on.
[[nodiscard]] http::StreamedReply streamReply(const std::shared_ptr<Hub>& hub,
                                              std::shared_ptr<detail::HttpSession> session,
                                              std::shared_ptr<detail::EventStream> stream, std::uint64_t from,
                                              const std::string& sessionHeader) {
    http::StreamedReply reply;
    reply.headers.add("Content-Type", "text/event-stream");
    reply.headers.add("Cache-Control", "no-cache, no-transform");
    reply.headers.add("X-Accel-Buffering", "no");
    if (!sessionHeader.empty()) {
        reply.headers.add("Mcp-Session-Id", sessionHeader);
    }
    // The priming event (2025-11-25): an id to resume from before any message, and the retry delay.
    // Older clients get the delay alone (a block without data is no event for them); a 2026-07-28
    // request's stream cannot be resumed, and gets neither.
    const auto retry = static_cast<std::uint64_t>(hub->options.retry.count());
    std::string first = session->id().empty() ? std::string()
                        : session->core->protocolVersion() >= "2025-11-25"
                            ? detail::primingEvent(detail::EventId{stream->number(), from}, retry)
                            : "retry: " + std::to_string(retry) + "\n\n";
    auto pump = std::make_shared<Pump>(hub, std::move(session), std::move(stream), from, std::move(first));
    reply.next = [pump]() { return pump->next(); };
    return reply;
}

// Waits until `events` ended (a JSON exchange has all its responses, or its session ended) or, with
// `firstEvent`, until it has an event, or until `limit` passed.
Task<void> awaitEvents(std::shared_ptr<Hub> hub, std::shared_ptr<detail::EventStream> events, bool firstEvent,
                       std::chrono::steady_clock::duration limit) {
    auto wake = std::make_shared<asio::steady_timer>(hub->executor);
    std::weak_ptr<asio::steady_timer> weakWake = wake;
    events->onData = [weakWake] {
        if (auto timer = weakWake.lock()) {
            timer->cancel();
        }
    };
    const auto deadline = Clock::now() + limit;
    while (!events->ended() && !(firstEvent && events->last() > 0) && !hub->stopping &&
           Clock::now() < deadline && !isCancelled(co_await asio::this_coro::cancellation_state)) {
        wake->expires_at(std::min(deadline, Clock::now() + kHeartbeat));
        (void)co_await wake->async_wait(kTuple);
    }
    events->onData = nullptr;
}

[[nodiscard]] std::optional<std::string> copy(const http::HttpHeaders& headers, std::string_view name) {
    const auto value = headers.find(name);
    return value ? std::optional<std::string>(std::string(*value)) : std::nullopt;
}

// What the decisions read of `request` (its body is moved out).
[[nodiscard]] detail::HttpRequestHead head(http::ServerRequest& request) {
    detail::HttpRequestHead head;
    head.method = std::move(request.method);
    head.target = std::move(request.target);
    head.host = copy(request.headers, "Host");
    head.origin = copy(request.headers, "Origin");
    head.authorization = copy(request.headers, "Authorization");
    head.accept = copy(request.headers, "Accept");
    head.contentType = copy(request.headers, "Content-Type");
    head.sessionId = copy(request.headers, "Mcp-Session-Id");
    head.protocolVersion = copy(request.headers, "MCP-Protocol-Version");
    head.lastEventId = copy(request.headers, "Last-Event-ID");
    head.mcpMethod = copy(request.headers, "Mcp-Method");
    head.mcpName = copy(request.headers, "Mcp-Name");
    constexpr std::string_view kParam = "Mcp-Param-";
    for (const auto& field : request.headers) {
        if (field.name.size() > kParam.size() &&
            http::equalsIgnoreCase(std::string_view(field.name).substr(0, kParam.size()), kParam)) {
            head.mcpParams.emplace_back(field.name.substr(kParam.size()), field.value);
        }
    }
    head.body = std::move(request.body);
    return head;
}

// Closes a 2026-07-28 request's own session when its reply is done or abandoned (cancelling its call),
// unless a stream took it over.
struct StatelessGuard {
    StatelessGuard(std::shared_ptr<Hub> h, std::shared_ptr<detail::HttpSession> s)
        : hub(std::move(h)), session(std::move(s)) {}
    std::shared_ptr<Hub> hub;
    std::shared_ptr<detail::HttpSession> session;
    StatelessGuard(const StatelessGuard&) = delete;
    StatelessGuard& operator=(const StatelessGuard&) = delete;
    ~StatelessGuard() {
        if (session && !session->ended()) {
            hub->close(session);
        }
    }
};

// Decides, then performs what waits: a reply, a stream, or a wait for a JSON exchange's responses.
Task<http::ServerAnswer> answer(std::shared_ptr<Hub> hub, http::ServerRequest request) {
    Outcome outcome = detail::decide(*hub, head(request));
    StatelessGuard guard{hub, outcome.stateless ? outcome.session : nullptr};
    if (outcome.stream && outcome.stream->number() != 0 && outcome.from == 0 && !outcome.stream->attached) {
        // A POST's reply: quick calls finish before their first event, and are then one reply with a
        // length rather than a stream of chunks.
        auto first = awaitEvents(hub, outcome.stream, true, kFirstEventWait);
        co_await std::move(first);
        if (outcome.stream->ended() && outcome.stateless) {
            // A 2026-07-28 request answered quickly: JSON when its answer is all there is.
            if (outcome.exchange->refusal != 0 || outcome.stream->last() <= 1) {
                outcome.reply = detail::answeredReply(*outcome.exchange);
                outcome.stream = nullptr;
                outcome.exchange = nullptr;
            }
        }
        if (outcome.stream && outcome.stream->ended()) {
            auto whole = outcome.stream->after(0);
            outcome.stream->written = whole.last;
            outcome.reply.body = std::move(whole.text);
            outcome.reply.contentType = "text/event-stream";
            outcome.session->release(outcome.stream->number());
            outcome.stream = nullptr;
        }
    }
    if (outcome.stream) {
        guard.session = nullptr;  // the stream's pump closes it
        http::ServerAnswer streamed{
            streamReply(hub, outcome.session, outcome.stream, outcome.from, outcome.reply.sessionId)};
        co_return streamed;
    }
    if (outcome.exchange) {
        auto events = std::shared_ptr<detail::EventStream>(outcome.exchange, &outcome.exchange->events);
        auto waiting = awaitEvents(hub, events, false, std::chrono::hours(24 * 365));
        co_await std::move(waiting);
        if (outcome.exchange->responses.empty()) {
            outcome.reply =
                refusal(503, -32000, "Service Unavailable: the session ended before its response");
        } else {
            outcome.reply.body = detail::jsonReply(*outcome.exchange, outcome.batch);
            outcome.reply.contentType = "application/json";
            if (outcome.exchange->refusal != 0) {
                outcome.reply.status = detail::refusalStatus(outcome.exchange->refusal);
            }
        }
    }
    http::ServerAnswer whole{toServerReply(std::move(outcome.reply))};
    co_return whole;
}

// `answer`, while the server lives.
Task<http::ServerAnswer> answerIfServing(std::weak_ptr<Hub> weakHub, http::ServerRequest request) {
    auto hub = weakHub.lock();
    if (!hub) {
        http::ServerAnswer gone{http::ServerReply{503, {}, {}}, true};
        co_return gone;
    }
    auto answering = answer(std::move(hub), std::move(request));
    co_return co_await std::move(answering);
}

// Closes the sessions idle for longer than the options allow.
Task<void> sweep(std::shared_ptr<Hub> hub) {
    const auto idle = hub->options.sessionIdleTimeout;
    const auto period = std::clamp<std::chrono::milliseconds>(idle / 4, std::chrono::milliseconds(50),
                                                              std::chrono::milliseconds(30000));
    asio::steady_timer timer(hub->executor);
    while (!hub->stopping) {
        timer.expires_after(period);
        auto [ec] = co_await timer.async_wait(kTuple);
        if (ec || isCancelled(co_await asio::this_coro::cancellation_state)) {
            break;
        }
        const auto now = Clock::now();
        std::vector<std::shared_ptr<detail::HttpSession>> expired;
        for (const auto& [id, session] : hub->sessions) {
            if (session->streamsOpen == 0 && session->core->inFlight() == 0 &&
                now - session->lastSeen > idle) {
                expired.push_back(session);
            }
        }
        for (const auto& session : expired) {
            hub->close(session);
        }
    }
}

[[nodiscard]] McpError bindFailure(const HttpServeOptions& options, const std::string& why) {
    return McpError{McpErrc::connect_failed, "cannot serve MCP over HTTP on " + options.address + ":" +
                                                 std::to_string(options.port) + ": " + why};
}

// Ends everything: sessions (their calls are cancelled, their streams end), then connections.
Task<void> shutDown(std::shared_ptr<Hub> hub) {
    hub->stopping = true;
    hub->background.cancel();
    std::vector<std::shared_ptr<detail::HttpSession>> sessions;
    for (const auto& [id, session] : hub->sessions) {
        sessions.push_back(session);
    }
    for (const auto& session : sessions) {
        hub->close(session);
    }
    auto draining = hub->connections->close(kShutdownGrace);
    co_await std::move(draining);
    auto closing = hub->closers.join();
    (void)co_await std::move(closing);
    auto stopping = hub->background.join();
    (void)co_await std::move(stopping);
}

Task<expected<void, McpError>> serve(Server server, HttpServeOptions options) {
    auto executor = co_await asio::this_coro::executor;
    boost::system::error_code ec;
    const auto address = asio::ip::make_address(options.address, ec);
    if (ec) {
        co_return unexpected(bindFailure(options, "not an IP address (" + ec.message() + ")"));
    }
    auto acceptor = std::make_shared<tcp::acceptor>(executor);
    const tcp::endpoint endpoint(address, options.port);
    ec = reagent::detail::listenOn(*acceptor, endpoint);
    if (ec) {
        co_return unexpected(bindFailure(options, ec.message()));
    }
    const auto port = acceptor->local_endpoint(ec).port();
    auto hub = std::make_shared<Hub>(std::move(server), std::move(options), executor, address.is_loopback());
    if (hub->options.maxSessions == 0) {
        hub->options.maxSessions = 1;
    }
    std::weak_ptr<Hub> weakHub = hub;
    http::ConnectionHandler handler;
    handler.answer = [weakHub](http::ServerRequest request) {
        return answerIfServing(weakHub, std::move(request));
    };
    handler.refuse = [](unsigned status, std::string why) {
        return toServerReply(refusal(status, -32000, why));
    };
    hub->connections.emplace(executor, Hub::limits(hub->options), std::move(handler));
    hub->background.spawn(sweep(hub));
    if (hub->options.onListening) {
        (void)settleCall(hub->options.onListening, port);
    }
    std::function<void(tcp::socket)> serveOne = [hub](tcp::socket socket) {
        hub->connections->serve(std::move(socket));
    };
    auto accepting = reagent::detail::acceptConnections(acceptor, std::move(serveOne));
    co_await std::move(accepting);
    acceptor->close(ec);
    // The caller's cancellation has been seen: the shutdown's own waits must not be cut by it.
    co_await asio::this_coro::reset_cancellation_state();
    auto ending = shutDown(hub);
    co_await std::move(ending);
    co_return expected<void, McpError>{};
}

}  // namespace

Task<expected<void, McpError>> serveHttp(Server server, HttpServeOptions options) {
    auto body = serve(std::move(server), std::move(options));
    co_return co_await withCheckedCancellation(std::move(body));
}

}  // namespace reagent::mcp
