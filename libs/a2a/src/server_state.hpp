#pragma once
// The A2A server's state: the task store, each task's event log, and the settings. Shared by the
// decisions (server_decisions) and the driver (server.cpp); used from the server's strand.

#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reagent/a2a/server.hpp"
#include "reagent/core/event.hpp"
#include "reagent/http/server_rules.hpp"
#include "reagent/jsonrpc/message.hpp"

namespace reagent::a2a {

namespace detail {

/// One task of the store: its snapshot, the events it produced, and how to wake and cancel it.
struct TaskEntry {
    explicit TaskEntry(const Executor& ex) : changed(ex) {}
    AgentTask task;
    std::vector<StreamEvent> events;
    /// Set on every change, waking every waiter; a waiter resets it (after looking at what it waits for)
    /// before it waits.
    Event changed;
    boost::asio::cancellation_signal cancel;
    bool cancelRequested = false;
    /// Kept where `tasks/get` finds it: at once without a task directory; with one, when the run function
    /// says so.
    bool accepted = false;

    void push(StreamEvent event) {
        events.push_back(std::move(event));
        changed.set();
    }
    /// Its run has ended (`settled`): terminal, or `unknown` to a server that stopped with a directory.
    bool ended = false;
    [[nodiscard]] bool terminal() const { return ended || isTerminal(task.status.state); }
};

using EntryPtr = std::shared_ptr<TaskEntry>;

}  // namespace detail

struct Server::State {
    State(Executor executor, ServerConfig cfg, AgentCard c, TracedRunFunction r)
        : ex(std::move(executor)),
          acceptor(ex),
          config(std::move(cfg)),
          card(std::move(c)),
          run(std::move(r)),
          idle(ex) {}
    Executor ex;
    boost::asio::ip::tcp::acceptor acceptor;
    ServerConfig config;
    /// Whom requests are taken from (set by `bind`, which knows whether the address is loopback).
    http::CallerPolicy callers;
    AgentCard card;
    TracedRunFunction run;
    std::map<std::string, detail::EntryPtr> tasks;
    std::deque<std::string> finished;
    std::size_t running = 0;
    bool stopping = false;
    std::uint16_t port = 0;
    /// Set whenever `running` drops.
    Event idle;

    /// Records a task's end: its artifact and terminal status as events, and its place among the finished
    /// tasks kept (the oldest beyond `maxStoredTasks` are forgotten).
    void settled(const detail::EntryPtr& entry, TaskStatus status, std::optional<Artifact> artifact);
};

namespace detail {

using StatePtr = std::shared_ptr<Server::State>;

/// Starts a task for the message in `params` (a send's): its entry, running; or why not, as the JSON-RPC
/// error to answer.
[[nodiscard]] expected<EntryPtr, jsonrpc::RpcError> startTask(const StatePtr& s, const nlohmann::json& params,
                                                              const SpanContext& trace);

}  // namespace detail

}  // namespace reagent::a2a
