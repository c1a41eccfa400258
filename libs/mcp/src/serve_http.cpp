// serveHttp: the server's streamable HTTP driver. Beast reads requests and writes replies; the decisions
// (headers, routing, event ids, replay) are made by http_rules, http_session and sse_stream.

#include "reagent/mcp/serve_http.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

#include "http_router.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/detail/listen.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/task_group.hpp"
#include "reagent/core/timeout.hpp"

namespace reagent::mcp {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
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

using HttpRequest = bhttp::request<bhttp::string_body>;

struct Connection {
    explicit Connection(tcp::socket socket) : stream(std::move(socket)) {}
    beast::tcp_stream stream;
    beast::flat_buffer buffer;
    // Waiting for the next request (shutdown may cut that wait).
    bool reading = false;
};

// The server's state, shared by the accept loop, the connections and the expiry sweep: the sessions
// (and what deciding needs), and the connections.
struct Hub : detail::HttpSessions {
    Hub(Server s, HttpServeOptions o, Executor ex, bool local)
        : HttpSessions(std::move(s), std::move(o), ex, local), connections(ex), background(ex) {}
    std::list<std::weak_ptr<Connection>> open;
    TaskGroup connections;
    TaskGroup background;
};

[[nodiscard]] std::optional<std::string_view> header(const HttpRequest& request, std::string_view name) {
    const auto found = request.find(beast::string_view(name.data(), name.size()));
    if (found == request.end()) {
        return std::nullopt;
    }
    return std::string_view(found->value().data(), found->value().size());
}

[[nodiscard]] std::optional<std::string_view> header(const HttpRequest& request, bhttp::field name) {
    const auto found = request.find(name);
    if (found == request.end()) {
        return std::nullopt;
    }
    return std::string_view(found->value().data(), found->value().size());
}

// Writes a whole reply; true when the connection may serve another request.
Task<bool> write(std::shared_ptr<Connection> conn, Reply reply, bool keepAlive) {
    bhttp::response<bhttp::string_body> response{static_cast<bhttp::status>(reply.status), 11};
    if (!reply.contentType.empty()) {
        response.set(bhttp::field::content_type, reply.contentType);
    }
    if (!reply.sessionId.empty()) {
        response.set("Mcp-Session-Id", reply.sessionId);
    }
    if (!reply.allow.empty()) {
        response.set(bhttp::field::allow, reply.allow);
    }
    if (!reply.challenge.empty()) {
        response.set(bhttp::field::www_authenticate, reply.challenge);
    }
    if (reply.contentType == "text/event-stream") {
        response.set(bhttp::field::cache_control, "no-cache");
    }
    response.keep_alive(keepAlive);
    response.body() = std::move(reply.body);
    response.prepare_payload();
    conn->stream.expires_after(kWriteTimeout);
    auto [ec, written] = co_await bhttp::async_write(conn->stream, response, kTuple);
    (void)written;
    conn->stream.expires_never();
    co_return !ec && keepAlive;
}

// Watches a streaming connection for the client going away (the socket turns readable with nothing to
// read), so that its stream is freed at once rather than at the next heartbeat.
struct PeerWatch {
    bool fired = false;
    bool gone = false;
};

// Writes `stream`'s events after `from` (after `first`, the priming event) as chunks of an event-stream
// reply whose header was written, until the stream ends, the client goes away or the server stops.
// True when the connection may serve another request.
Task<bool> pump(std::shared_ptr<Hub> hub, std::shared_ptr<Connection> conn,
                std::shared_ptr<detail::HttpSession> session, std::shared_ptr<detail::EventStream> stream,
                std::uint64_t from, std::string first, bool keepAlive) {
    auto wake = std::make_shared<asio::steady_timer>(hub->executor);
    std::weak_ptr<asio::steady_timer> weakWake = wake;
    stream->attached = true;
    ++session->streamsOpen;
    stream->onData = [weakWake] {
        if (auto timer = weakWake.lock()) {
            timer->cancel();
        }
    };
    auto watch = std::make_shared<PeerWatch>();
    conn->stream.socket().async_wait(tcp::socket::wait_read,
                                     [watch, weakWake, conn](const boost::system::error_code& ec) {
                                         watch->fired = true;
                                         boost::system::error_code ignored;
                                         if (!ec && conn->stream.socket().available(ignored) == 0) {
                                             watch->gone = true;
                                             if (auto timer = weakWake.lock()) {
                                                 timer->cancel();
                                             }
                                         }
                                     });
    std::string text = std::move(first);
    std::uint64_t sent = from;
    bool healthy = true;
    while (true) {
        auto batch = stream->after(sent);
        text += batch.text;
        if (!text.empty()) {
            conn->stream.expires_after(kWriteTimeout);
            auto chunk = bhttp::make_chunk(asio::buffer(text));
            auto [ec, written] = co_await asio::async_write(conn->stream, chunk, kTuple);
            (void)written;
            conn->stream.expires_never();
            if (ec) {
                healthy = false;
                break;
            }
            sent = batch.last;
            stream->written = std::max(stream->written, sent);
            text.clear();
            continue;
        }
        if (stream->ended()) {
            conn->stream.expires_after(kWriteTimeout);
            auto last = bhttp::make_chunk_last();
            auto [ec, written] = co_await asio::async_write(conn->stream, last, kTuple);
            (void)written;
            conn->stream.expires_never();
            healthy = !ec;
            break;
        }
        if (watch->gone || hub->stopping || isCancelled(co_await asio::this_coro::cancellation_state)) {
            healthy = false;
            break;
        }
        wake->expires_after(kHeartbeat);
        auto [ec] = co_await wake->async_wait(kTuple);
        if (!ec) {
            text = ": keep-alive\n\n";
        }
    }
    stream->onData = nullptr;
    stream->attached = false;
    --session->streamsOpen;
    session->lastSeen = Clock::now();
    if (!watch->fired) {
        boost::system::error_code ignored;
        conn->stream.socket().cancel(ignored);
    }
    co_return healthy&& keepAlive;
}

// Starts an event-stream reply and pumps `stream` into it.
Task<bool> streamReply(std::shared_ptr<Hub> hub, std::shared_ptr<Connection> conn,
                       std::shared_ptr<detail::HttpSession> session,
                       std::shared_ptr<detail::EventStream> stream, std::uint64_t from,
                       std::string sessionHeader, bool keepAlive) {
    bhttp::response<bhttp::empty_body> response{bhttp::status::ok, 11};
    response.set(bhttp::field::content_type, "text/event-stream");
    response.set(bhttp::field::cache_control, "no-cache, no-transform");
    response.set("X-Accel-Buffering", "no");
    if (!sessionHeader.empty()) {
        response.set("Mcp-Session-Id", sessionHeader);
    }
    response.keep_alive(keepAlive);
    response.chunked(true);
    bhttp::response_serializer<bhttp::empty_body> serializer{response};
    conn->stream.expires_after(kWriteTimeout);
    auto [ec, written] = co_await bhttp::async_write_header(conn->stream, serializer, kTuple);
    (void)written;
    conn->stream.expires_never();
    if (ec) {
        co_return false;
    }
    // The priming event (2025-11-25): an id to resume from before any message, and the retry delay.
    // Older clients get the delay alone (a block without data is no event for them).
    const auto retry = static_cast<std::uint64_t>(hub->options.retry.count());
    std::string first = session->core->protocolVersion() >= "2025-11-25"
                            ? detail::primingEvent(detail::EventId{stream->number(), from}, retry)
                            : "retry: " + std::to_string(retry) + "\n\n";
    auto pumping = pump(hub, conn, session, stream, from, std::move(first), keepAlive);
    co_return co_await std::move(pumping);
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

[[nodiscard]] std::optional<std::string> copy(std::optional<std::string_view> value) {
    return value ? std::optional<std::string>(std::string(*value)) : std::nullopt;
}

// What the decisions read of `request` (its body is moved out).
[[nodiscard]] detail::HttpRequestHead head(HttpRequest& request) {
    detail::HttpRequestHead head;
    head.method = std::string(request.method_string());
    head.target = std::string(request.target());
    head.host = copy(header(request, bhttp::field::host));
    head.origin = copy(header(request, bhttp::field::origin));
    head.authorization = copy(header(request, bhttp::field::authorization));
    head.accept = copy(header(request, bhttp::field::accept));
    head.contentType = copy(header(request, bhttp::field::content_type));
    head.sessionId = copy(header(request, "Mcp-Session-Id"));
    head.protocolVersion = copy(header(request, "MCP-Protocol-Version"));
    head.lastEventId = copy(header(request, "Last-Event-ID"));
    head.body = std::move(request.body());
    return head;
}

// Decides, then performs: a reply, a stream, or a wait for a JSON exchange's responses.
Task<bool> handle(std::shared_ptr<Hub> hub, std::shared_ptr<Connection> conn, HttpRequest request) {
    const bool keepAlive = request.keep_alive() && !hub->stopping;
    Outcome outcome = detail::decide(*hub, head(request));
    if (outcome.stream && outcome.stream->number() != 0 && outcome.from == 0 && !outcome.stream->attached) {
        // A POST's reply: quick calls finish before their first event, and are then one reply with a
        // length rather than a stream of chunks.
        auto first = awaitEvents(hub, outcome.stream, true, kFirstEventWait);
        co_await std::move(first);
        if (outcome.stream->ended()) {
            auto whole = outcome.stream->after(0);
            outcome.stream->written = whole.last;
            outcome.reply.body = std::move(whole.text);
            outcome.reply.contentType = "text/event-stream";
            outcome.session->release(outcome.stream->number());
            outcome.stream = nullptr;
        }
    }
    if (outcome.stream) {
        auto streaming = streamReply(hub, conn, outcome.session, outcome.stream, outcome.from,
                                     outcome.reply.sessionId, keepAlive);
        const bool keep = co_await std::move(streaming);
        if (outcome.stream->number() != 0) {
            outcome.session->release(outcome.stream->number());
        }
        co_return keep;
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
        }
    }
    auto writing = write(conn, std::move(outcome.reply), keepAlive);
    co_return co_await std::move(writing);
}

// Serves the requests of one connection, one at a time (keep-alive).
Task<void> serveConnection(std::shared_ptr<Hub> hub, std::shared_ptr<Connection> conn) {
    while (!hub->stopping) {
        bhttp::request_parser<bhttp::string_body> parser;
        parser.body_limit(hub->options.maxBodyBytes);
        parser.header_limit(kHeaderLimit);
        conn->stream.expires_after(hub->options.connectionIdleTimeout);
        conn->reading = true;
        auto [ec, read] = co_await bhttp::async_read(conn->stream, conn->buffer, parser, kTuple);
        (void)read;
        conn->reading = false;
        conn->stream.expires_never();
        if (ec == bhttp::error::body_limit) {
            Reply tooLarge = refusal(413, -32000,
                                     "Payload Too Large: the body exceeds this server's limit of " +
                                         std::to_string(hub->options.maxBodyBytes) + " bytes");
            auto writing = write(conn, std::move(tooLarge), false);
            (void)co_await std::move(writing);
            break;
        }
        if (ec == bhttp::error::header_limit) {
            Reply tooLarge = refusal(431, -32000, "Request Header Fields Too Large");
            auto writing = write(conn, std::move(tooLarge), false);
            (void)co_await std::move(writing);
            break;
        }
        if (ec) {
            if (ec.category() == bhttp::make_error_code(bhttp::error::bad_target).category() &&
                ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message) {
                Reply bad =
                    refusal(400, -32000, "Bad Request: not an HTTP/1.1 request (" + ec.message() + ")");
                auto writing = write(conn, std::move(bad), false);
                (void)co_await std::move(writing);
            }
            break;
        }
        auto handling = handle(hub, conn, parser.release());
        const bool keep = co_await std::move(handling);
        if (!keep) {
            break;
        }
    }
    boost::system::error_code ignored;
    conn->stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    conn->stream.close();
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
    for (const auto& weak : hub->open) {
        if (auto conn = weak.lock(); conn && conn->reading) {
            conn->stream.cancel();
        }
    }
    auto draining = hub->connections.join();
    const auto drained = co_await withTimeout(std::move(draining), kShutdownGrace);
    if (!drained) {
        hub->connections.cancel();
        auto cut = hub->connections.join();
        (void)co_await std::move(cut);
    }
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
    hub->background.spawn(sweep(hub));
    if (hub->options.onListening) {
        (void)settleCall(hub->options.onListening, port);
    }
    std::function<void(tcp::socket)> serveOne = [hub](tcp::socket socket) {
        boost::system::error_code ignored;
        socket.set_option(tcp::no_delay(true), ignored);
        auto conn = std::make_shared<Connection>(std::move(socket));
        hub->open.remove_if([](const std::weak_ptr<Connection>& weak) { return weak.expired(); });
        hub->open.push_back(conn);
        hub->connections.spawn(serveConnection(hub, conn));
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
