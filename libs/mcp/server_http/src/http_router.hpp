#pragma once
// The streamable HTTP server's decisions, with no I/O: what each request gets (a whole reply, a stream
// to write, or a JSON exchange to wait for), and the sessions table those decisions read and change.
// serve_http.cpp performs the outcomes with Beast.

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "http_rules.hpp"
#include "http_session.hpp"
#include "reagent/core/task_group.hpp"
#include "reagent/http/server_rules.hpp"
#include "reagent/mcp/serve_http.hpp"

namespace reagent::mcp::detail {

/// What the decisions read of a request (the header values as sent; absent ones empty).
struct HttpRequestHead {
    std::string method;
    std::string target;
    std::optional<std::string> host;
    std::optional<std::string> origin;
    /// Secret: never quoted.
    std::optional<std::string> authorization;
    std::optional<std::string> accept;
    std::optional<std::string> contentType;
    std::optional<std::string> sessionId;
    std::optional<std::string> protocolVersion;
    std::optional<std::string> lastEventId;
    /// 2026-07-28: `Mcp-Method`, `Mcp-Name` and `Mcp-Param-<name>` (name after the prefix), as sent.
    std::optional<std::string> mcpMethod;
    std::optional<std::string> mcpName;
    std::vector<std::pair<std::string, std::string>> mcpParams;
    std::string body;
};

/// A whole reply: status, body, and the headers that vary.
struct Reply {
    unsigned status = 200;
    std::string body;
    std::string contentType;
    std::string sessionId;
    std::string allow;
    /// `WWW-Authenticate`, on a 401.
    std::string challenge;
};

/// What to do with a request: `reply`, unless `stream` (write it from event `from` on, as an event
/// stream; `reply.sessionId` goes on its header) or `exchange` (wait for its responses, then reply with
/// them as JSON, an array when `batch`).
struct Outcome {
    Reply reply;
    std::shared_ptr<HttpSession> session;
    std::shared_ptr<EventStream> stream;
    std::uint64_t from = 0;
    std::shared_ptr<Exchange> exchange;
    bool batch = false;
    /// 2026-07-28: the request is served by a session of its own (`session`, no id), closed once its
    /// reply is written or its connection is cut, which cancels the call.
    bool stateless = false;
};

/// The server's sessions and what deciding needs: one per `serveHttp`, used from its strand.
struct HttpSessions {
    HttpSessions(Server s, HttpServeOptions o, Executor ex, bool local)
        : server(std::move(s)),
          options(std::move(o)),
          executor(ex),
          callers{local, options.allowedHosts, options.allowedOrigins, options.bearerToken},
          closers(ex) {}
    Server server;
    HttpServeOptions options;
    Executor executor;
    /// Whom requests are taken from (Host, Origin, bearer token); `loopback` when bound to a loopback
    /// address, so that DNS rebinding is refused.
    http::CallerPolicy callers;
    /// Shutting down: connections end after their current request.
    bool stopping = false;
    std::unordered_map<std::string, std::shared_ptr<HttpSession>> sessions;
    /// The sessions being closed (their calls cancelled and awaited).
    TaskGroup closers;

    /// Forgets `session` (its id gets 404 from now on), ends its streams and closes its core.
    void close(const std::shared_ptr<HttpSession>& session);
};

/// The reply, stream or exchange `request` gets; opens, uses or ends sessions on the way.
[[nodiscard]] Outcome decide(HttpSessions& hub, const HttpRequestHead& request);

/// A refusal's reply: the status and a JSON-RPC error body (with the id of the request refused, if known).
[[nodiscard]] Reply refusal(const Refusal& refused, const std::optional<RequestId>& id = std::nullopt);
[[nodiscard]] Reply refusal(unsigned status, int code, std::string message);

/// The HTTP status of a request the core refused (`OutgoingFrame::refusal`): 404 for an unknown or removed
/// method, 400 for the others.
[[nodiscard]] unsigned refusalStatus(int code) noexcept;

/// A 2026-07-28 request's answer as one JSON reply: 200, or the refusal's status.
[[nodiscard]] Reply answeredReply(const Exchange& exchange);

/// The body of a JSON exchange: its response, or an array of them for a batch.
[[nodiscard]] std::string jsonReply(const Exchange& exchange, bool batch);

}  // namespace reagent::mcp::detail
