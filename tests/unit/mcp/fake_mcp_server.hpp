#pragma once
// A scripted MCP server over the in-memory transport, for the client's and the tool source's unit tests:
// it answers `initialize`, records every frame, and answers other requests as the test says.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <exception>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reagent/mcp/client.hpp"
#include "reagent/mcp/memory_transport.hpp"
#include "reagent/mcp/protocol_version.hpp"
#include "run_coro.hpp"

namespace reagent::test::mcpfake {

namespace asio = boost::asio;
namespace mcp = reagent::mcp;
using nlohmann::json;
using namespace std::chrono_literals;

// Runs `body` detached. The closure is moved into the spawned frame: a lambda coroutine reaches its
// captures through its closure, which must outlive it.
template <class Body>
void spawn(const reagent::Executor& executor, Body body, asio::cancellation_slot slot = {}) {
    auto hold = [](Body held) -> Task<void> { co_await held(); };
    asio::co_spawn(executor, hold(std::move(body)), asio::bind_cancellation_slot(slot, asio::detached));
}

// Runs `task` on `io` to its end; rethrows what it threw. Each test's io_context is declared before its
// FakeServer, so the peers (whose queues hold Asio timers) go before the context does.
inline void runOn(asio::io_context& io, Task<void> task) {
    std::exception_ptr error;
    asio::co_spawn(io, std::move(task), [&](std::exception_ptr thrown) { error = thrown; });
    io.restart();
    io.run();
    if (error) {
        std::rethrow_exception(error);
    }
}

// Waits until `done` holds, checking every millisecond; fails the test after 10 s instead of hanging.
inline Task<void> until(std::function<bool()> done) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!done()) {
        REQUIRE(std::chrono::steady_clock::now() < deadline);
        co_await sleepFor(1ms);
    }
}

inline mcp::ServerConfig memoryConfig() {
    mcp::ServerConfig config;
    config.name = "mem";
    config.command = "unused";  // the in-memory factory replaces the process
    config.requestTimeout = 2s;
    config.connectTimeout = 2s;
    config.reconnectDelay = 1ms;
    // The handshake era: the tests of its rules see initialize first. The era's own tests set `automatic`.
    config.era = mcp::ProtocolEra::legacy;
    return config;
}

// What a request from the client gets: a result, an error, or nothing (the server stays silent).
struct Reply {
    std::optional<json> result;
    std::optional<json> error;
    static Reply ok(json value) { return Reply{std::move(value), std::nullopt}; }
    static Reply rpcError(int code, std::string message) {
        return Reply{std::nullopt, json{{"code", code}, {"message", std::move(message)}}};
    }
    static Reply silence() { return Reply{}; }
};

// Plays the server on the peers of every connection the client makes: answers `initialize` (with
// `version`), records every frame, and answers other requests with `onRequest`.
struct FakeServer {
    std::string version = std::string(mcp::kLatestProtocolVersion);
    std::function<Reply(const json& request)> onRequest = [](const json&) {
        return Reply::ok(json::object());
    };
    std::vector<json> frames;
    std::vector<std::shared_ptr<mcp::MemoryPeer>> peers;
    // The next `openFaults` connections fail to open with `openFault`.
    mcp::McpError openFault{mcp::McpErrc::connect_failed, "refused"};
    int openFaults = 0;
    bool silentInitialize = false;
    // Replaces the answer to initialize.
    std::optional<Reply> initializeReply;
    // Runs just before initialize is answered.
    std::function<void()> beforeInitializeReply;
    // server/discover: answered as a 2026-07-28 server does when `modern`, else as a server of the
    // handshake era (-32601); `discoverReplies` replace the answers in turn.
    bool modern = false;
    std::vector<Reply> discoverReplies;

    [[nodiscard]] std::vector<json> framesWith(const std::string& method) const {
        std::vector<json> found;
        for (const json& frame : frames) {
            if (frame.is_object() && frame.value("method", "") == method) {
                found.push_back(frame);
            }
        }
        return found;
    }

    [[nodiscard]] std::shared_ptr<mcp::MemoryPeer> peer() const { return peers.back(); }

    void send(const json& frame) const { REQUIRE(peer()->send(frame.dump())); }
};

inline Task<void> serve(FakeServer& server, std::shared_ptr<mcp::MemoryPeer> peer) {
    for (;;) {
        auto frame = co_await peer->receive();
        if (!frame) {
            co_return;
        }
        json message = json::parse(*frame, nullptr, false);
        server.frames.push_back(message);
        if (!message.is_object() || !message.contains("method") || !message.contains("id")) {
            continue;  // a notification or a response
        }
        const std::string method = message["method"];
        Reply reply;
        if (method == "initialize") {
            if (server.silentInitialize) {
                continue;
            }
            if (server.beforeInitializeReply) {
                server.beforeInitializeReply();
            }
            reply = server.initializeReply
                        ? *server.initializeReply
                        : Reply::ok(json{{"protocolVersion", server.version},
                                         {"capabilities", {{"tools", {{"listChanged", true}}}}},
                                         {"serverInfo", {{"name", "fake"}, {"version", "1.2.3"}}},
                                         {"instructions", "be kind"}});
        } else if (method == "server/discover") {
            if (!server.discoverReplies.empty()) {
                reply = server.discoverReplies.front();
                server.discoverReplies.erase(server.discoverReplies.begin());
            } else if (server.modern) {
                reply = Reply::ok(json{
                    {"supportedVersions", {std::string(mcp::kModernProtocolVersion)}},
                    {"capabilities", {{"tools", {{"listChanged", true}}}}},
                    {"resultType", "complete"},
                    {"ttlMs", 0},
                    {"cacheScope", "private"},
                    {"_meta",
                     {{"io.modelcontextprotocol/serverInfo", {{"name", "fake"}, {"version", "2.0.0"}}}}}});
            } else {
                reply = Reply::rpcError(-32601, "Method not found");
            }
        } else {
            reply = server.onRequest(message);
        }
        json response{{"jsonrpc", "2.0"}, {"id", message["id"]}};
        if (reply.result) {
            response["result"] = *reply.result;
        } else if (reply.error) {
            response["error"] = *reply.error;
        } else {
            continue;
        }
        (void)peer->send(response.dump());
    }
}

// The factory the client reconnects through: each connection gets a fresh peer served by `server`.
inline mcp::TransportFactory factoryFor(FakeServer& server, const reagent::Executor& executor) {
    return [&server, executor] {
        auto connection = mcp::makeMemoryConnection(executor);
        if (server.openFaults > 0) {
            --server.openFaults;
            connection.peer->failNextOpen(server.openFault);
        }
        server.peers.push_back(connection.peer);
        asio::co_spawn(executor, serve(server, connection.peer), asio::detached);
        return std::move(connection.client);
    };
}

}  // namespace reagent::test::mcpfake
