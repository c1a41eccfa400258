// The streamable HTTP server's decisions (sans-io): routing each request to a session, the header
// checks, and what the reply is.

#include "http_router.hpp"

#include <chrono>

#include "reagent/http/encoded_header.hpp"
#include "reagent/mcp/envelope.hpp"
#include "reagent/mcp/protocol_version.hpp"

namespace reagent::mcp::detail {

namespace {

using Clock = std::chrono::steady_clock;

[[nodiscard]] Outcome answer(Reply reply) {
    Outcome outcome;
    outcome.reply = std::move(reply);
    return outcome;
}

[[nodiscard]] Outcome refuse(unsigned status, int code, std::string message) {
    return answer(refusal(status, code, std::move(message)));
}

// A session (its HTTP side, and its core on the server, whose frames it routes); `id` empty for the
// session of one 2026-07-28 request.
[[nodiscard]] std::shared_ptr<HttpSession> openSession(HttpSessions& hub, std::string id, std::size_t keep) {
    auto session = std::make_shared<HttpSession>(std::move(id), keep);
    std::weak_ptr<HttpSession> weak = session;
    session->core = hub.server.connect(hub.executor, [weak](OutgoingFrame frame) {
        if (auto alive = weak.lock()) {
            alive->route(std::move(frame));
        }
    });
    return session;
}

[[nodiscard]] Outcome unknownSession(std::string_view id) {
    return refuse(
        404, -32001,
        "Not Found: the session '" + std::string(id) +
            "' does not exist or has ended; send initialize without Mcp-Session-Id to open a new one");
}

// A 2026-07-28 POST: a session of its own, no session id; the core checks the envelope and the headers.
// A refusal is a 4xx with the JSON-RPC error; a request answered at once with nothing before its answer
// is one JSON reply; anything else is an event stream of this request's messages.
[[nodiscard]] Outcome decideStateless(HttpSessions& hub, const HttpRequestHead& request,
                                      const PostBody& post) {
    const std::optional<RequestId> id =
        post.requests.empty() ? std::nullopt : std::optional<RequestId>(post.requests.front());
    RequestHeaders headers;
    headers.protocolVersion = request.protocolVersion;
    if (request.mcpMethod) {
        headers.method = http::decodeHeaderValue(*request.mcpMethod).value_or(std::string());
    }
    const auto undecodable = [&id](const std::string& name) {
        return answer(refusal(Refusal{400, kHeaderMismatch,
                                      "Header mismatch: " + name +
                                          " is not a valid =?base64?...?= value (padded base64 of UTF-8)"},
                              id));
    };
    if (request.mcpName) {
        auto decoded = http::decodeHeaderValue(*request.mcpName);
        if (!decoded) {
            return undecodable("Mcp-Name");
        }
        headers.name = std::move(*decoded);
    }
    for (const auto& [name, value] : request.mcpParams) {
        auto decoded = http::decodeHeaderValue(value);
        if (!decoded) {
            return undecodable("Mcp-Param-" + name);
        }
        headers.params.emplace_back(name, std::move(*decoded));
    }
    auto session = openSession(hub, std::string(), 1);
    const bool json = hub.options.replyMode == HttpReplyMode::json;
    auto exchange = session->openExchange(json);
    session->deliver(std::vector<PostedFrame>{PostedFrame{request.body, post.requests, &headers}}, exchange);
    Outcome outcome;
    outcome.session = session;
    outcome.stateless = true;
    if (exchange->events.ended()) {
        if (exchange->response.empty()) {
            outcome.reply.status = 202;  // a notification: 2026-07-28 defines none from the client over HTTP
        } else if (json || exchange->refusal != 0 || exchange->events.last() <= 1) {
            outcome.reply = answeredReply(*exchange);
        } else {
            outcome.reply.body = exchange->events.after(0).text;
            outcome.reply.contentType = "text/event-stream";
        }
        return outcome;
    }
    outcome.exchange = exchange;  // a JSON reply once answered, unless streamed
    if (!json) {
        outcome.stream = std::shared_ptr<EventStream>(exchange, &exchange->events);
    }
    return outcome;
}

[[nodiscard]] Outcome decidePost(HttpSessions& hub, const HttpRequestHead& request) {
    const auto accepts = parseAccept(request.accept);
    if (!accepts.json || !accepts.eventStream) {
        return refuse(406, -32000,
                      "Not Acceptable: the client must accept both application/json and text/event-stream "
                      "(send Accept: application/json, text/event-stream)");
    }
    if (auto refused = http::checkJsonContentType(request.contentType)) {
        return refuse(refused->status, -32000, std::move(refused->message));
    }
    auto post = inspectPost(request.body);
    if (!post) {
        return answer(refusal(post.error()));
    }
    // The body decides the revision (its envelope); a 2026 header without one is refused as 2026 would.
    if (!post->batch &&
        (post->claimsModern || (request.protocolVersion && !isHandshakeVersion(*request.protocolVersion)))) {
        return decideStateless(hub, request, *post);
    }
    if (auto refused = checkProtocolVersion(request.protocolVersion)) {
        return answer(refusal(*refused));
    }
    std::shared_ptr<HttpSession> session;
    bool opened = false;
    if (const auto id = request.sessionId) {
        const auto found = hub.sessions.find(std::string(*id));
        if (found == hub.sessions.end()) {
            return unknownSession(*id);
        }
        session = found->second;
    } else if (!post->initialize) {
        return refuse(
            400, -32000,
            "Bad Request: no Mcp-Session-Id header; open a session with an initialize request first "
            "and send its id on every later request");
    } else if (hub.sessions.size() >= hub.options.maxSessions) {
        return refuse(503, -32000,
                      "Service Unavailable: this server has " + std::to_string(hub.sessions.size()) +
                          " sessions open, its limit; retry later, or end unused sessions with DELETE");
    } else {
        session = openSession(hub, newSessionId(), hub.options.replayEvents);
        hub.sessions.emplace(session->id(), session);
        opened = true;
    }
    session->lastSeen = Clock::now();
    // Batches exist only in 2025-03-26 (2025-06-18 removed them). The session core refuses one with a
    // single error of id null, which no POST waits for: refuse it here, on this POST, instead.
    if (post->batch && !post->requests.empty() &&
        (!session->core->initialized() || session->core->protocolVersion() != "2025-03-26")) {
        if (opened) {
            hub.close(session);
        }
        return refuse(
            400, kInvalidRequest,
            "Invalid Request: " +
                (session->core->initialized() ? "protocol version " + session->core->protocolVersion() +
                                                    " has no JSON-RPC batches (2025-06-18 removed them)"
                                              : std::string("a JSON-RPC batch cannot carry initialize")) +
                "; send one message per POST");
    }
    const bool json = hub.options.replyMode == HttpReplyMode::json;
    auto exchange = session->openExchange(json);
    std::vector<PostedFrame> frames;
    if (post->batch && session->core->initialized() && session->core->protocolVersion() == "2025-03-26") {
        // The core answers a batch with one array tied to its first request only; handed the members one
        // at a time, it answers each request on its own, and the POST ends with the last answer.
        for (const auto& member : post->members) {
            frames.push_back(PostedFrame{member.text, member.requests});
        }
    } else {
        frames.push_back(PostedFrame{request.body, post->requests});
    }
    session->deliver(frames, exchange);
    Outcome outcome;
    if (opened) {
        if (session->core->initialized()) {
            outcome.reply.sessionId = session->id();
        } else {
            hub.close(session);  // initialize was refused: no session
        }
    }
    if (exchange->events.ended() && exchange->responses.empty() && exchange->events.last() == 0) {
        outcome.reply.status = 202;
        return outcome;
    }
    outcome.session = session;
    if (json) {
        outcome.exchange = exchange;
        outcome.batch = post->batch;
        return outcome;
    }
    if (exchange->events.ended()) {
        // Everything is known: one reply with a length, no chunks.
        outcome.reply.body = exchange->events.after(0).text;
        outcome.reply.contentType = "text/event-stream";
        exchange->events.written = exchange->events.last();
        return outcome;
    }
    outcome.stream = std::shared_ptr<EventStream>(exchange, &exchange->events);
    return outcome;
}

[[nodiscard]] Outcome decideGet(HttpSessions& hub, const HttpRequestHead& request) {
    if (!parseAccept(request.accept).eventStream) {
        return refuse(406, -32000,
                      "Not Acceptable: a GET opens an event stream; send Accept: text/event-stream");
    }
    if (auto refused = checkProtocolVersion(request.protocolVersion)) {
        return answer(refusal(*refused));
    }
    const auto id = request.sessionId;
    if (!id) {
        return refuse(400, -32000,
                      "Bad Request: no Mcp-Session-Id header; a GET stream belongs to a session opened by "
                      "initialize");
    }
    const auto found = hub.sessions.find(std::string(*id));
    if (found == hub.sessions.end()) {
        return unknownSession(*id);
    }
    auto session = found->second;
    session->lastSeen = Clock::now();
    Outcome outcome;
    outcome.session = session;
    // Resumption: the stream the last event id names, from the event after it.
    if (const auto last = request.lastEventId) {
        if (const auto event = parseEventId(*last)) {
            auto named = session->stream(event->stream, session);
            if (named && named->canReplayFrom(event->sequence)) {
                outcome.stream = named;
                outcome.from = event->sequence;
            }
        }
    }
    if (!outcome.stream) {
        outcome.stream = session->stream(0, session);
        outcome.from = outcome.stream->written;
    }
    if (outcome.stream->attached) {
        return refuse(409, -32000,
                      "Conflict: this session's event stream is already open on another connection; close it "
                      "first (one GET stream per session)");
    }
    return outcome;
}

[[nodiscard]] Outcome decideDelete(HttpSessions& hub, const HttpRequestHead& request) {
    const auto id = request.sessionId;
    if (!id) {
        return refuse(400, -32000, "Bad Request: DELETE needs the Mcp-Session-Id of the session to end");
    }
    const auto found = hub.sessions.find(std::string(*id));
    if (found == hub.sessions.end()) {
        return unknownSession(*id);
    }
    auto session = found->second;
    hub.close(session);
    return answer(Reply{});
}

}  // namespace

void HttpSessions::close(const std::shared_ptr<HttpSession>& session) {
    sessions.erase(session->id());
    session->end();
    if (!session->core->closeIfIdle()) {
        auto core = session->core;
        closers.spawn(core->close());
    }
}

Reply refusal(const Refusal& refused, const std::optional<RequestId>& id) {
    return Reply{
        refused.status, errorBody(refused.code, refused.message, id), "application/json", {}, {}, {}};
}

Reply refusal(unsigned status, int code, std::string message) {
    return refusal(Refusal{status, code, std::move(message)});
}

unsigned refusalStatus(int code) noexcept {
    return code == kMethodNotFound ? 404U : 400U;
}

Reply answeredReply(const Exchange& exchange) {
    const unsigned status = exchange.refusal == 0 ? 200U : refusalStatus(exchange.refusal);
    return Reply{status, exchange.response, "application/json", {}, {}, {}};
}

std::string jsonReply(const Exchange& exchange, bool batch) {
    if (!batch && exchange.responses.size() == 1) {
        return exchange.responses.front();
    }
    std::string body = "[";
    for (const auto& response : exchange.responses) {
        body += (body.size() > 1 ? "," : "") + response;
    }
    return body + "]";
}

Outcome decide(HttpSessions& hub, const HttpRequestHead& request) {
    const http::CallerHeaders caller{request.host, request.origin, request.authorization};
    if (auto refused = http::checkCaller(caller, hub.callers)) {
        Outcome outcome = refuse(refused->status, -32000, std::move(refused->message));
        outcome.reply.challenge = std::move(refused->challenge);
        return outcome;
    }
    const std::string_view target = std::string_view(request.target).substr(0, request.target.find('?'));
    if (target != hub.options.path) {
        return refuse(
            404, -32000,
            "Not Found: '" + std::string(target) + "' is not served; MCP is at " + hub.options.path);
    }
    if (request.method == "POST") {
        return decidePost(hub, request);
    }
    if (request.method == "GET") {
        return decideGet(hub, request);
    }
    if (request.method == "DELETE") {
        return decideDelete(hub, request);
    }
    Outcome outcome =
        refuse(405, -32000,
               "Method Not Allowed: " + request.method + " " + hub.options.path +
                   " (use POST for messages, GET for the event stream, DELETE to end a session)");
    outcome.reply.allow = "GET, POST, DELETE";
    return outcome;
}

}  // namespace reagent::mcp::detail
