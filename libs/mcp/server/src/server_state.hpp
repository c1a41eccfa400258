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

#include "reagent/core/event.hpp"
#include "reagent/core/task_group.hpp"
#include "reagent/mcp/rpc_session.hpp"
#include "reagent/mcp/server.hpp"

namespace reagent::mcp {

// Where a call's progress reports go: the request they belong to, and the client's token.
struct ProgressRoute {
    std::weak_ptr<ServerSession::State> session;
    RequestId request;
    nlohmann::json token;
};

struct Server::State {
    State(std::shared_ptr<tools::ToolRegistry> r, ServerOptions o)
        : registry(std::move(r)), options(std::move(o)), executor(*registry, options.execution) {}
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
    tools::ToolEventSink sink;
    std::uint64_t listener = 0;
    std::uint64_t sessionsOpened = 0;
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
        PromptGetter getter;
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
    };

    void send(OutgoingFrame frame);
    // Answers a request (inside a batch being served: adds to its array).
    void respond(const RequestId& id, expected<nlohmann::json, RpcError> outcome);
    // A request of a batch gets no answer (cancelled) or was just answered: sends the array when complete.
    void unanswered(const RequestId& id);
    void notify(std::string method, nlohmann::json params);
    void log(LogLevel at, nlohmann::json data, const std::string& logger);
    void handle(Request request);
    void handle(const Notification& notification);
    void initialize(const Request& request);
    void startCall(const Request& request);
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
};

}  // namespace reagent::mcp
