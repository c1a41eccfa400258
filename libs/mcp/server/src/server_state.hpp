#pragma once
// The state behind `Server` and `ServerSession` handles (internal to reagent::mcp_server).

#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "input_rounds.hpp"
#include "reagent/core/event.hpp"
#include "reagent/core/task_group.hpp"
#include "reagent/mcp/rpc_session.hpp"
#include "reagent/mcp/server.hpp"
#include "served_trace.hpp"

namespace reagent::mcp {

// Where a call's progress reports go: the request they belong to, and the client's token.
struct ProgressRoute {
    std::weak_ptr<ServerSession::State> session;
    RequestId request;
    nlohmann::json token;
};

struct Server::State {
    State(std::shared_ptr<tools::ToolRegistry> r, ServerOptions o)
        : registry(std::move(r)),
          options(std::move(o)),
          executor(*registry, options.execution),
          rounds{options.requestStateKey.empty() ? detail::newStateKey() : options.requestStateKey,
                 options.requestStateTtl, options.maxInputRounds} {}
    State(const State&) = delete;
    State& operator=(const State&) = delete;
    ~State() { registry->unwatch(listener); }

    // The registry changed: each initialised session is told.
    void toolsChanged();
    // Sends `method` (a list_changed notification) to each initialised session.
    void tellSessions(const std::string& method);
    // Every call's events: progress is routed to its session, then the owner's sink sees the event.
    void onEvent(const tools::ToolEvent& event);

    std::shared_ptr<tools::ToolRegistry> registry;
    ServerOptions options;
    tools::ToolExecutor executor;
    // How 2026-07-28 multi-round requests are sealed and bounded.
    detail::RoundRules rounds;
    // `serverInfo` as sent (initialize, and every 2026-07-28 result's `_meta`): made once.
    nlohmann::json serverInfo;
    tools::ToolEventSink sink;
    std::uint64_t listener = 0;
    std::uint64_t sessionsOpened = 0;
    // Open subscriptions/listen requests, across sessions (bounded by ServerOptions::maxListens).
    std::size_t listens = 0;
    std::vector<std::weak_ptr<ServerSession::State>> sessions;
    // By `ToolContext::callId`, for calls that carry a progress token.
    std::unordered_map<std::string, ProgressRoute> progress;

    // The catalog beside tools, in the order added (list pages follow it).
    struct Resource {
        ResourceInfo info;
        ResourceReader reader;
    };
    struct Template {
        ResourceTemplateInfo info;
        TemplateReader reader;
    };
    struct Prompt {
        PromptInfo info;
        AskingPromptGetter getter;
    };
    struct Completion {
        CompletionRef ref;
        std::string argument;
        CompletionProvider provider;
    };
    std::vector<Resource> resources;
    std::vector<Template> templates;
    std::vector<Prompt> prompts;
    std::vector<Completion> completions;
};

struct ServerSession::State : std::enable_shared_from_this<ServerSession::State> {
    State(std::shared_ptr<Server::State> s, Executor ex, FrameSink out, std::uint64_t number)
        : server(std::move(s)),
          executor(ex),
          sink(std::move(out)),
          rpc(server->options.limits),
          calls(ex),
          callPrefix("mcp-" + std::to_string(number) + "-"),
          level(server->options.logLevel) {}

    // A call in flight: setting `cancel` ends the race the call runs in (`notifications/cancelled`).
    struct Call {
        explicit Call(const Executor& ex) : cancel(ex) {}
        Event cancel;
        bool cancelled = false;
        // 2026-07-28: the capability a handler's question needed that the request did not declare
        // (`{"sampling":{}}`); a call that then fails is refused with kMissingClientCapability naming it.
        nlohmann::json missingCapability = nullptr;
        // 2026-07-28: the round this call serves (its answers and questions); null for a 2025 call.
        std::shared_ptr<detail::InputRound> round;
        // 2026-07-28: the level the request asked log lines at; none: no log lines.
        std::optional<LogLevel> logLevel;
    };

    // A 2026-07-28 request being served: what its envelope declared (nothing outlives the request).
    struct ModernRequest {
        std::string method;
        nlohmann::json capabilities = nlohmann::json::object();
        // Log lines for this request at or above this level; none without it.
        std::optional<LogLevel> logLevel;
    };

    void send(OutgoingFrame frame);
    // Answers a request (inside a batch being served: adds to its array).
    void respond(const RequestId& id, expected<nlohmann::json, RpcError> outcome);
    // A request of a batch gets no answer (cancelled) or was just answered: sends the array when complete.
    void unanswered(const RequestId& id);
    void notify(std::string method, nlohmann::json params);
    void log(LogLevel at, nlohmann::json data, const std::string& logger);
    // One frame from the client, with the HTTP headers it came with (null on stdio).
    void receive(std::string_view frame, const RequestHeaders* headers);
    void handle(Request request, const RequestHeaders* headers);
    // A request carrying the 2026-07-28 envelope, or any request whose headers claim that revision
    // (server_modern.cpp): checked, then served without a session.
    void handleModern(Request request, const RequestHeaders* headers);
    // The refusal of a request before it is served (2026-07-28): an error frame marked as one.
    void refuse(const RequestId& id, RpcError error);
    // What this server serves, as `initialize` and `server/discover` declare it (its identity is
    // `server->serverInfo`).
    [[nodiscard]] nlohmann::json capabilities() const;
    // subscriptions/listen (server_listen.cpp): opens a listen; tells the listens that hear `method`;
    // ends one (false when there was none) or all of them.
    void listen(const Request& request);
    void tellListens(const std::string& method, const nlohmann::json& params);
    bool endListen(const RequestId& id);
    void endListens();
    // A 2026-07-28 result: resultType, the server's identity, and for cacheable methods ttlMs/cacheScope.
    [[nodiscard]] nlohmann::json stampModern(nlohmann::json result, const ModernRequest& request) const;
    void handle(const Notification& notification);
    void initialize(const Request& request);
    void startCall(const Request& request);
    // A request that runs a handler (tools/call, prompts/get): refused (and null) when its id is in use,
    // the in-flight bound is reached, or (2026-07-28) its requestState does not verify; else in flight,
    // with its round.
    std::shared_ptr<Call> beginCall(const Request& request);
    // What a prompt getter gets to reach the client (its questions, its log lines).
    tools::ToolContext contextFor(const RequestId& id, const std::shared_ptr<Call>& call, std::string name);
    // resources/*, prompts/*, completion/complete (server_catalog.cpp).
    void handleCatalog(const Request& request);
    // A response to one of our requests (server -> client): wakes the handler waiting for it.
    void complete(RpcSession::Completed completed);
    // Frames read in one batch (2025-03-26): answered together.
    void receiveBatch(RpcSession::Received received);

    // A request to the client waiting for its answer; cancelling `wake` ends the wait.
    struct Pending {
        explicit Pending(const Executor& ex) : wake(ex, boost::asio::steady_timer::time_point::max()) {}
        boost::asio::steady_timer wake;
        std::optional<expected<nlohmann::json, RpcError>> outcome;
    };
    // The responses of a batch being served, sent as one array when `waiting` is empty.
    struct Batch {
        std::set<RequestId> waiting;
        std::vector<std::string> responses;
        std::optional<RequestId> first;
    };

    std::shared_ptr<Server::State> server;
    Executor executor;
    FrameSink sink;
    RpcSession rpc;
    TaskGroup calls;
    std::string callPrefix;
    std::uint64_t nextCall = 1;
    std::map<RequestId, std::shared_ptr<Call>> inFlight;
    bool initialized = false;
    bool closed = false;
    std::string version;
    nlohmann::json clientInfo = nlohmann::json::object();
    nlohmann::json clientCapabilities = nlohmann::json::object();
    LogLevel level;
    std::map<RequestId, std::shared_ptr<Pending>> pending;
    std::set<std::string> subscriptions;
    std::vector<std::shared_ptr<Batch>> batches;
    // 2026-07-28: an open subscriptions/listen and what it hears.
    struct Listen {
        bool tools = false;
        bool prompts = false;
        bool resources = false;
        std::set<std::string> uris;
    };
    std::map<RequestId, Listen> listens;
    // 2026-07-28 requests not answered yet: their answers get the revision's envelope.
    std::map<RequestId, ModernRequest> modern;
    // The spans and durations of the requests being served; none without `ServerOptions::telemetry`.
    std::optional<detail::ServedTrace> traced;
    // A 2026-07-28 request (not a server/discover probe) came before any initialize: the connection
    // speaks that revision, and a later initialize is refused.
    bool pinnedModern = false;
};

}  // namespace reagent::mcp
