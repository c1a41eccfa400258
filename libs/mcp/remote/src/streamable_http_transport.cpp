// The Streamable HTTP transport (MCP 2025-03-26 and later): every client frame is a POST to one URL,
// whose reply is a JSON body or an event stream; the server's own messages arrive on a standalone GET
// stream; streams cut short are resumed with `Last-Event-ID`; DELETE ends the session.
//
// 2026-07-28 (a request carrying the envelope in `params._meta`): no session, no standalone stream, no
// DELETE; each POST names its version, method and target in headers (MCP-Protocol-Version, Mcp-Method,
// Mcp-Name) read from the frame; a refusal is a 4xx whose body is the request's JSON-RPC error, delivered
// as its response; a request is cancelled by closing its stream, not by a notification.
//
// Shape: the transport's state is shared by `send` and the background readers (one per reply stream,
// and the standalone stream), which run in a TaskGroup and push frames into a FrameQueue that `receive`
// pops. Readers run with checked cancellation: `close` (or the transport's destruction) cancels them
// and every one ends at its next step. A reader that finds the transport unusable (the session expired,
// the server unreachable, an oversized message) finishes the queue with that error: `receive` returns
// it once the frames already read are delivered.

#include <algorithm>
#include <boost/asio/this_coro.hpp>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frame_queue.hpp"
#include "http_transport_support.hpp"
#include "modern_headers.hpp"
#include "oauth_flow.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/task_group.hpp"
#include "reagent/core/untrusted_json.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/http/http_request.hpp"
#include "reagent/mcp/remote_transports.hpp"
#include "reagent/mcp/transport.hpp"

namespace reagent::mcp {

namespace {

namespace asio = boost::asio;
using detail::notOpenedError;
using detail::receiveFrame;

/// Wait before resuming a stream when the server set no `retry:` (what the SDKs use).
constexpr std::chrono::milliseconds kDefaultRetry{1000};
/// Reconnections in a row that brought no event before a stream is given up.
constexpr int kMaxReconnects = 3;
/// Bound of the DELETE that `close` sends.
constexpr std::chrono::milliseconds kDeleteTimeout{2000};

constexpr std::string_view kAcceptBoth = "application/json, text/event-stream";

/// Ids (as compact JSON) of the requests in an outgoing frame: the responses its reply must carry.
using PendingIds = std::vector<std::string>;

struct State : detail::HttpTransportState {
    State(const ServerConfig& cfg, const Executor& ex) : HttpTransportState(cfg, ex) {
        if (cfg.oauth) {
            auth = std::make_unique<detail::OAuthFlow>(cfg, ex, where);
        }
    }

    /// Set when the server has OAuth settings: the `Authorization` of every request, and what to do on 401.
    std::unique_ptr<detail::OAuthFlow> auth;

    /// `Mcp-Session-Id` the server gave in its reply to `initialize`; empty for a stateless server.
    std::string sessionId;
    /// Sent as `MCP-Protocol-Version` once `setProtocolVersion` told it.
    std::string protocolVersion;
    /// Requests carry the 2026 envelope: no session, no standalone stream, and the event-stream readers
    /// of requests still waiting (by id, as compact JSON), to close when the client cancels one.
    bool modern = false;
    std::unordered_map<std::string, TaskGroup::ChildId> requestStreams;
    /// The arguments tools mirror in `Mcp-Param-*` headers (from the client's last tools/list).
    std::shared_ptr<const ParamHeaders> paramHeaders;
    bool standaloneStarted = false;
    /// The last `retry:` any stream of the server set.
    std::optional<std::chrono::milliseconds> retry;

    [[nodiscard]] McpError lost(std::string why) const {
        return McpError{McpErrc::connection_closed, where + ": " + std::move(why)};
    }

    /// Text from the server, as it enters: with OAuth, the live tokens it may echo are masked (a server
    /// that quotes the `Authorization` it refused must not get the token printed or shown to a model).
    [[nodiscard]] std::string fromServer(std::string text) const {
        return auth ? auth->redact(std::move(text)) : text;
    }

    /// A frame of the server's, masked, to the reader.
    void deliver(std::string frame) { queue.push(fromServer(std::move(frame))); }

    /// `HTTP <status>: <excerpt>` of a refusal, masked.
    [[nodiscard]] std::string status(const http::HttpResponseHead& head, const std::string& excerpt) const {
        return fromServer(detail::describeStatus(head, excerpt, config));
    }
};

using StatePtr = std::shared_ptr<State>;

/// What an outgoing frame is: the ids of its requests, and a name for messages.
struct Outgoing {
    PendingIds ids;
    /// The first message's method (`initialize`, `tools/call`), or "a response".
    std::string what = "a response";
    /// A single request with the 2026 envelope: its headers.
    std::optional<detail::ModernHeaders> modern;
    /// A `notifications/cancelled`: the id (compact JSON) of the request it cancels.
    std::optional<std::string> cancels;
};

[[nodiscard]] Outgoing readOutgoing(std::string_view frame, const ParamHeaders* paramHeaders) {
    Outgoing outgoing;
    if (frame.find("\"method\"") == std::string_view::npos) {
        return outgoing;  // a response: no need to parse it
    }
    const auto json = parseUntrustedJson(frame).value_or(nlohmann::json());
    const auto collect = [&outgoing](const nlohmann::json& message) {
        if (!message.is_object() || !message.contains("method")) {
            return;
        }
        if (outgoing.ids.empty() && message["method"].is_string()) {
            outgoing.what = message["method"].get<std::string>();
        }
        if (const auto id = message.find("id"); id != message.end() && !id->is_null()) {
            outgoing.ids.push_back(id->dump());
        }
    };
    if (json.is_array()) {
        for (const auto& message : json) {
            collect(message);
        }
    } else {
        collect(json);
        outgoing.modern = detail::modernHeaders(json, paramHeaders);
        if (outgoing.what == "notifications/cancelled" && json.contains("params") &&
            json["params"].is_object()) {
            outgoing.cancels = json["params"].value("requestId", nlohmann::json()).dump();
        }
    }
    return outgoing;
}

// Crosses off the requests that `frame` answers.
void markAnswered(std::string_view frame, PendingIds& pending) {
    if (pending.empty()) {
        return;
    }
    const auto json = parseUntrustedJson(frame).value_or(nlohmann::json());
    const auto answer = [&pending](const nlohmann::json& message) {
        if (!message.is_object() || message.contains("method")) {
            return;
        }
        if (const auto id = message.find("id"); id != message.end()) {
            std::erase(pending, id->dump());
        }
    };
    if (json.is_array()) {
        for (const auto& message : json) {
            answer(message);
        }
    } else {
        answer(json);
    }
}

[[nodiscard]] http::HttpRequest makeRequest(const State& s, std::string method, std::string_view accept) {
    http::HttpRequest request;
    request.method = std::move(method);
    request.url = s.config.url;
    request.timeout = detail::kStreamDeadline;
    request.headers.reserve(s.config.headers.size() + 5);
    detail::addUserHeaders(request.headers, s.config);
    if (s.auth) {
        if (std::string authorization = s.auth->header(); !authorization.empty()) {
            request.headers.set("Authorization", std::move(authorization));
        }
    }
    request.headers.set("Accept", std::string(accept));
    if (!s.sessionId.empty()) {
        request.headers.set("Mcp-Session-Id", s.sessionId);
    }
    if (!s.protocolVersion.empty()) {
        request.headers.set("MCP-Protocol-Version", s.protocolVersion);
    }
    return request;
}

// The server no longer knows the session: 404 on a request that carried it (the specification), or the
// 400 "No valid session ID provided" of servers built on the SDK's example (server-everything).
[[nodiscard]] bool sessionGone(int status, bool carriedSession, std::string_view excerpt) {
    if (!carriedSession) {
        return false;
    }
    if (status == 404) {
        return true;
    }
    return status == 400 && excerpt.find("session") != std::string_view::npos;
}

[[nodiscard]] McpError sessionExpired(const State& s, const std::string& status) {
    return McpError{McpErrc::session_expired,
                    s.where + " no longer knows the session (" + status + "); initialise a new one"};
}

// Why a reply with a non-2xx status and body `excerpt` refused `what`; an expired session also finishes
// the transport.
[[nodiscard]] McpError refusalOf(const StatePtr& s, const http::HttpResponseHead& head,
                                 const std::string& excerpt, bool carriedSession, const std::string& what) {
    const std::string status = s->status(head, excerpt);
    if (sessionGone(head.status, carriedSession, excerpt)) {
        auto error = sessionExpired(*s, status);
        s->finish(error);
        return error;
    }
    if (head.status == 401 || head.status == 403) {
        return McpError{McpErrc::unauthorized,
                        s->where + " refused " + what + " as unauthorized (" + status + ")" +
                            (s->config.oauth ? std::string()
                                             : "; give it credentials: ServerConfig::headers "
                                               "(Authorization) or ServerConfig::oauth")};
    }
    // Before the server accepted anything, a refusal is a failed connection (a wrong URL, ...).
    const McpErrc code = s->sessionId.empty() && s->protocolVersion.empty() ? McpErrc::connect_failed
                                                                            : McpErrc::protocol_error;
    return McpError{code, s->where + " refused " + what + ": " + status};
}

[[nodiscard]] Task<McpError> refusal(StatePtr s, http::HttpResponseStream reply, bool carriedSession,
                                     std::string what) {
    const http::HttpResponseHead head = reply.head();
    const std::string excerpt = co_await detail::bodyExcerpt(std::move(reply));
    co_return refusalOf(s, head, excerpt, carriedSession, what);
}

/// Bound of the body of a refusal read as a JSON-RPC error.
constexpr std::size_t kErrorBodyBytes = 64U << 10U;

/// True when `body` is a JSON-RPC response to one of `pending`: a modern server's refusal of a request
/// (-32022 naming the versions it serves, 404 with -32601, ...), which is that request's answer.
[[nodiscard]] bool answersPending(std::string_view body, const PendingIds& pending) {
    const auto json = parseUntrustedJson(body).value_or(nlohmann::json());
    if (!json.is_object() || json.contains("method") || !json.contains("error")) {
        return false;
    }
    const auto id = json.find("id");
    return id != json.end() && std::find(pending.begin(), pending.end(), id->dump()) != pending.end();
}

/// Reads a JSON reply: its body is one frame.
Task<void> readJsonReply(StatePtr s, http::HttpResponseStream reply) {
    std::string body;
    for (;;) {
        auto chunk = co_await reply.next();
        const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
        if (s->closed || cancelled) {
            co_return;
        }
        if (!chunk) {
            s->finish(s->lost("the reply was cut short (" + chunk.error().message + ")"));
            co_return;
        }
        if (!*chunk) {
            break;
        }
        body += **chunk;
        if (body.size() > s->config.limits.maxMessageBytes) {
            s->finish(McpError{McpErrc::protocol_error, s->where + " sent a reply of more than " +
                                                            std::to_string(s->config.limits.maxMessageBytes) +
                                                            " bytes (ServerConfig::limits.maxMessageBytes)"});
            co_return;
        }
    }
    if (!detail::isBlank(body)) {
        s->deliver(std::move(body));
    }
}

/// Reads the body of a reply nobody waits for (a notification's), so its connection can be reused.
Task<void> discardReply(StatePtr s, http::HttpResponseStream reply) {
    std::size_t size = 0;
    while (!reply.done() && size <= s->config.limits.maxMessageBytes) {
        auto chunk = co_await reply.next();
        const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
        if (!chunk || !*chunk || cancelled) {
            co_return;
        }
        size += (*chunk)->size();
    }
}

/// One event stream being read (a POST's reply, resumed by GETs, or the standalone stream).
struct EventStream {
    std::optional<http::HttpResponseStream> body;
    /// Kept across reconnections: its last event id and `retry:` drive the next one.
    http::SseParser parser;
    /// Requests whose responses have not arrived yet; empty for the standalone stream.
    PendingIds pending;
    /// The stream owes responses (a POST's reply) rather than living as long as the session.
    bool owesResponses = false;
    /// An event with data arrived since the last (re)connection.
    bool progressed = false;
};

using EventStreamPtr = std::shared_ptr<EventStream>;

/// How reading a stream ended.
enum class StreamEnd {
    /// Every response it owed arrived.
    answered,
    /// The body ended, or the connection broke: resume it.
    ended,
    /// Stop reading: the transport is closed or the reader cancelled, or the queue was finished.
    stop,
};

Task<StreamEnd> pump(StatePtr s, EventStreamPtr stream) {
    const auto onEvent = [&s, &stream](http::SseEvent event) {
        if (event.type != "message" || detail::isBlank(event.data)) {
            return;  // a priming event (an id and empty data), or a type MCP does not use
        }
        stream->progressed = true;
        markAnswered(event.data, stream->pending);
        s->deliver(std::move(event.data));
    };
    for (;;) {
        auto chunk = co_await stream->body->next();
        const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
        if (s->closed || cancelled) {
            co_return StreamEnd::stop;
        }
        if (!chunk || !*chunk) {
            co_return StreamEnd::ended;
        }
        auto fed =
            detail::feedEvents(stream->parser, **chunk, s->config.limits.maxMessageBytes, s->where, onEvent);
        if (!fed) {
            s->finish(std::move(fed.error()));
            co_return StreamEnd::stop;
        }
        if (const auto retry = stream->parser.reconnectionTime()) {
            s->retry = retry;
        }
        if (stream->owesResponses && stream->pending.empty()) {
            co_return StreamEnd::answered;
        }
    }
}

/// What an attempt to (re)open a stream with GET gave.
enum class Opened {
    /// `stream->body` is the new stream.
    yes,
    /// A failure worth another attempt (a 5xx, a timeout).
    failed,
    /// The server answered that it offers no such stream (405, 400, another content type).
    refused,
    /// Stop: closed, cancelled, or the queue was finished (unreachable server, expired session).
    stop,
};

// Waits `delay`, then GETs the event stream, with `Last-Event-ID` when the stream had an id.
Task<Opened> openStream(StatePtr s, EventStreamPtr stream, std::chrono::milliseconds delay) {
    if (delay.count() > 0) {
        co_await detail::pause(delay);
    }
    const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
    if (s->closed || cancelled) {
        co_return Opened::stop;
    }
    stream->body.reset();
    auto request = makeRequest(*s, "GET", detail::kEventStream);
    if (!stream->parser.lastEventId().empty()) {
        request.headers.set("Last-Event-ID", stream->parser.lastEventId());
    }
    const bool carriedSession = !s->sessionId.empty();
    auto opened = co_await s->http.stream(std::move(request));
    const bool cancelledAfter = isCancelled(co_await asio::this_coro::cancellation_state);
    if (s->closed || cancelledAfter) {
        co_return Opened::stop;
    }
    if (!opened) {
        auto error = detail::fromHttpError(opened.error(), s->where);
        if (error.code != McpErrc::connect_failed) {
            co_return Opened::failed;
        }
        // Nothing listens any more: the server is gone.
        s->finish(s->lost("the server went away (" + error.message + ")"));
        co_return Opened::stop;
    }
    const http::HttpResponseHead head = opened->head();
    if (!head.ok()) {
        const std::string excerpt = co_await detail::bodyExcerpt(std::move(*opened));
        if (sessionGone(head.status, carriedSession, excerpt)) {
            s->finish(sessionExpired(*s, s->status(head, excerpt)));
            co_return Opened::stop;
        }
        co_return head.status >= 500 || head.status == 409 || head.status == 429 ? Opened::failed
                                                                                 : Opened::refused;
    }
    if (!detail::hasContentType(head, detail::kEventStream)) {
        co_return Opened::refused;
    }
    (void)stream->parser.finish();
    stream->body.emplace(std::move(*opened));
    stream->progressed = false;
    co_return Opened::yes;
}

[[nodiscard]] std::chrono::milliseconds retryDelay(const State& s, const EventStream& stream) {
    return stream.parser.reconnectionTime().value_or(s.retry.value_or(kDefaultRetry));
}

/// Reads a POST's event-stream reply until every response it owes arrived, resuming it with GET and
/// `Last-Event-ID` after the server's `retry:` when it ends early (SEP-1699).
Task<void> readEventReply(StatePtr s, EventStreamPtr stream) {
    int fruitless = 0;
    for (;;) {
        const StreamEnd end = co_await pump(s, stream);
        if (end != StreamEnd::ended) {
            co_return;
        }
        if (stream->parser.lastEventId().empty()) {
            s->finish(
                s->lost("a reply stream ended before the response, and the server gave no event id to "
                        "resume it from"));
            co_return;
        }
        Opened opened = Opened::failed;
        fruitless = stream->progressed ? 0 : fruitless + 1;
        while (opened == Opened::failed) {
            if (fruitless > kMaxReconnects) {
                s->finish(s->lost("a reply stream ended before the response and " +
                                  std::to_string(kMaxReconnects) + " attempts to resume it failed"));
                co_return;
            }
            opened = co_await openStream(s, stream, retryDelay(*s, *stream));
            if (opened == Opened::failed) {
                ++fruitless;
            }
        }
        if (opened == Opened::stop) {
            co_return;
        }
        if (opened == Opened::refused) {
            s->finish(
                s->lost("a reply stream ended before the response and the server refused to resume it"));
            co_return;
        }
    }
}

/// The reply stream of one cancellable request (2026-07-28): forgotten once read or closed.
Task<void> readRequestStream(StatePtr s, EventStreamPtr stream, std::string key) {
    co_await readEventReply(s, std::move(stream));
    s->requestStreams.erase(key);
}

/// The standalone GET stream: requests and notifications of the server that answer no POST. A server
/// that offers none (405, 400) is fine; when the stream ends it is reopened after the server's `retry:`.
Task<void> runStandalone(StatePtr s) {
    auto stream = std::make_shared<EventStream>();
    int fruitless = 0;
    std::chrono::milliseconds delay{0};
    for (;;) {
        const Opened opened = co_await openStream(s, stream, delay);
        if (opened == Opened::stop || opened == Opened::refused) {
            co_return;
        }
        if (opened == Opened::yes) {
            const StreamEnd end = co_await pump(s, stream);
            if (end == StreamEnd::stop) {
                co_return;
            }
        }
        fruitless = stream->progressed ? 0 : fruitless + 1;
        if (fruitless > kMaxReconnects) {
            co_return;  // the server keeps closing it: do without (the POST replies still work)
        }
        delay = retryDelay(*s, *stream);
    }
}

// Starts the standalone stream once the session is initialised: after the first frame accepted once
// `setProtocolVersion` was called (`notifications/initialized`).
void startStandaloneIfDue(const StatePtr& s) {
    if (s->standaloneStarted || s->protocolVersion.empty() || s->closed || s->modern) {
        return;
    }
    s->standaloneStarted = true;
    s->readers.spawn(withCheckedCancellation(runStandalone(s)));
}

Task<expected<void, McpError>> sendFrame(StatePtr s, std::string where, std::string frame) {
    if (!s) {
        co_return fail(notOpenedError(where));
    }
    if (s->ended) {
        co_return fail(*s->ended);
    }
    const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
    if (cancelled) {
        co_return fail(McpError{McpErrc::cancelled, s->where + ": send cancelled"});
    }
    Outgoing outgoing = readOutgoing(frame, s->paramHeaders.get());
    if (!outgoing.ids.empty()) {
        // The era of the connection is the era of its latest request: a probe refused by a server of the
        // handshake era is followed by `initialize`, and that session has its stream and its DELETE.
        s->modern = outgoing.modern.has_value();
    }
    if (s->modern && outgoing.cancels) {
        // 2026-07-28 over HTTP: a request is cancelled by closing its stream (a JSON reply's POST was
        // abandoned with the client's wait); there is no such notification.
        if (auto it = s->requestStreams.find(*outgoing.cancels); it != s->requestStreams.end()) {
            (void)s->readers.cancel(it->second);
            s->requestStreams.erase(it);
        }
        co_return expected<void, McpError>{};
    }
    PendingIds pending = std::move(outgoing.ids);
    const bool carriedSession = !s->sessionId.empty();
    std::optional<http::HttpResponseStream> opened;
    // With OAuth, a refusal (401, 403 insufficient_scope) runs the flow and the frame is sent again.
    for (int authorizations = 0;; ++authorizations) {
        std::string sentAuthorization;
        if (s->auth) {
            auto fresh = s->auth->freshHeader();
            sentAuthorization = co_await std::move(fresh);
        }
        auto request = makeRequest(*s, "POST", kAcceptBoth);
        request.headers.set("Content-Type", std::string(detail::kJson));
        if (outgoing.modern) {
            request.headers.set("MCP-Protocol-Version", outgoing.modern->version);
            request.headers.set("Mcp-Method", outgoing.modern->method);
            if (!outgoing.modern->name.empty()) {
                request.headers.set("Mcp-Name", outgoing.modern->name);
            }
            for (const auto& [name, value] : outgoing.modern->params) {
                request.headers.set("Mcp-Param-" + name, value);
            }
        }
        request.body = s->auth ? frame : std::move(frame);
        auto reply = co_await s->http.stream(std::move(request));
        if (!reply) {
            co_return fail(detail::fromHttpError(reply.error(), s->where));
        }
        // Once the reply's head is in, the frame was delivered: a cancellation arriving now changes nothing.
        if (s->closed) {
            co_return fail(s->lost("the transport was closed"));
        }
        const int status = reply->head().status;
        if (!s->auth || (status != 401 && status != 403)) {
            opened.emplace(std::move(*reply));
            break;
        }
        if (authorizations >= s->config.oauth->maxAuthorizationsPerRequest) {
            auto error = co_await refusal(s, std::move(*reply), carriedSession, outgoing.what);
            error.message +=
                " after " + std::to_string(authorizations) +
                " authorization(s) for this request (OAuthSettings::maxAuthorizationsPerRequest)";
            co_return fail(std::move(error));
        }
        const std::string challenge(reply->head().headers.find("WWW-Authenticate").value_or(""));
        (void)co_await detail::bodyExcerpt(std::move(*reply));
        auto handled = s->auth->handleRefusal(status, challenge, std::move(sentAuthorization));
        auto granted = co_await std::move(handled);
        if (!granted) {
            co_return fail(std::move(granted.error()));
        }
        if (s->closed) {
            co_return fail(s->lost("the transport was closed"));
        }
    }
    const http::HttpResponseHead& head = opened->head();
    if (!head.ok()) {
        if (outgoing.modern && head.status >= 400 && head.status < 500 && !pending.empty()) {
            const http::HttpResponseHead refused = head;
            std::string body = co_await detail::bodyPrefix(std::move(*opened), kErrorBodyBytes);
            if (answersPending(body, pending)) {
                s->deliver(std::move(body));
                co_return expected<void, McpError>{};
            }
            co_return fail(
                refusalOf(s, refused, detail::excerptOf(std::move(body)), carriedSession, outgoing.what));
        }
        auto error = co_await refusal(s, std::move(*opened), carriedSession, std::move(outgoing.what));
        co_return fail(std::move(error));
    }
    if (s->sessionId.empty() && !outgoing.modern) {
        if (const auto id = head.headers.find("Mcp-Session-Id"); id && !id->empty()) {
            s->sessionId = std::string(*id);
        }
    }
    if (pending.empty()) {
        // A notification or a response: 202 with no body (some servers add a body; nobody reads it).
        if (!opened->done()) {
            s->readers.spawn(withCheckedCancellation(discardReply(s, std::move(*opened))));
        }
    } else if (detail::hasContentType(head, detail::kEventStream)) {
        auto stream = std::make_shared<EventStream>();
        stream->body.emplace(std::move(*opened));
        stream->owesResponses = true;
        if (outgoing.modern && pending.size() == 1) {
            // Its request may be cancelled: the stream is then closed (2026-07-28).
            std::string key = pending.front();
            stream->pending = std::move(pending);
            const auto reader =
                s->readers.spawn(withCheckedCancellation(readRequestStream(s, std::move(stream), key)));
            s->requestStreams.emplace(std::move(key), reader);
        } else {
            stream->pending = std::move(pending);
            s->readers.spawn(withCheckedCancellation(readEventReply(s, std::move(stream))));
        }
    } else if (detail::hasContentType(head, detail::kJson)) {
        s->readers.spawn(withCheckedCancellation(readJsonReply(s, std::move(*opened))));
    } else if (!opened->done()) {
        const auto type = head.headers.find("Content-Type");
        co_return fail(
            McpError{McpErrc::protocol_error, s->where + " answered a request with content type '" +
                                                  std::string(type.value_or("none")) +
                                                  "' (expected application/json or text/event-stream)"});
    }
    // (A request answered by 202 with no body gets its response on the standalone stream.)
    startStandaloneIfDue(s);
    co_return expected<void, McpError>{};
}

Task<void> closeSession(StatePtr s) {
    if (!s || !s->beginClose("closed")) {
        co_return;
    }
    if (!s->sessionId.empty()) {
        // Ends the session on the server; bounded, and its outcome does not matter.
        auto request = makeRequest(*s, "DELETE", detail::kJson);
        request.timeout = std::min(kDeleteTimeout, s->config.connectTimeout);
        (void)co_await s->http.send(std::move(request));
    }
    (void)co_await s->readers.join();
}

class StreamableHttpTransport final : public Transport {
  public:
    explicit StreamableHttpTransport(ServerConfig config) : config_(std::move(config)) {}
    StreamableHttpTransport(const StreamableHttpTransport&) = delete;
    StreamableHttpTransport& operator=(const StreamableHttpTransport&) = delete;

    ~StreamableHttpTransport() override {
        if (state_) {
            state_->beginClose("destroyed");
        }
    }

    Task<expected<void, McpError>> open() override {
        // Nothing to connect yet: the first POST (`initialize`) opens the session.
        if (!state_) {
            const Executor executor = co_await asio::this_coro::executor;
            state_ = std::make_shared<State>(config_, executor);
        }
        co_return expected<void, McpError>{};
    }

    // Not coroutines: the drivers run with checked cancellation, so that a cancelled send or close
    // still ends with a value (and close still joins the readers).
    Task<expected<void, McpError>> send(std::string frame) override {
        return withCheckedCancellation(sendFrame(state_, label_, std::move(frame)));
    }

    Task<expected<std::string, McpError>> receive() override { return receiveFrame(state_, label_); }

    // A server replying with JSON sends the reply head only with the response.
    bool sendAwaitsReply() const noexcept override { return true; }

    void setProtocolVersion(std::string version) override {
        if (state_) {
            state_->protocolVersion = std::move(version);
        }
    }

    void setParamHeaders(std::shared_ptr<const ParamHeaders> headers) override {
        if (state_) {
            state_->paramHeaders = std::move(headers);
        }
    }

    Task<void> close() override { return withCheckedCancellation(closeSession(state_)); }

  private:
    [[nodiscard]] McpError notOpened() const { return notOpenedError(label_); }

    ServerConfig config_;
    std::string label_ = detail::serverLabel(config_);
    std::shared_ptr<State> state_;
};

}  // namespace

std::unique_ptr<Transport> makeStreamableHttpTransport(const ServerConfig& config) {
    return std::make_unique<StreamableHttpTransport>(config);
}

}  // namespace reagent::mcp
