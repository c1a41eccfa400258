// The streamable-http transport against real servers: server-everything (event-stream replies, an event
// store, a standalone stream carrying roots/list) and the SDK peer of ref_server.mjs (JSON replies,
// 404 for a forgotten session).

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <optional>
#include <string>

#include "mcp_session.hpp"
#include "node_peer.hpp"
#include "peer_process.hpp"
#include "reagent/mcp/oauth.hpp"
#include "reagent/mcp/remote_transports.hpp"
#include "reagent/mcp/transport.hpp"
#include "run_coro.hpp"

using namespace reagent;
using namespace reagent::test;
using mcp::TransportKind;
using nlohmann::json;

namespace {

std::unique_ptr<mcp::Transport> streamable(const std::string& url, std::size_t maxMessageBytes = 0) {
    auto config = httpConfig(TransportKind::streamable_http, url);
    if (maxMessageBytes > 0) {
        config.limits.maxMessageBytes = maxMessageBytes;
    }
    return mcp::makeAnyTransport(config);
}

// A server that crashes `delay` from now (a coroutine of its own: a lambda's captures would not outlive it).
Task<void> killAfter(NodePeer* peer, std::chrono::milliseconds delay) {
    co_await sleepFor(delay);
    peer->kill();
}

json rootsCapability() {
    return {{"roots", {{"listChanged", true}}}};
}

}  // namespace

TEST_CASE("streamable-http: a whole session with server-everything", "[mcp][streamable-http]") {
    auto peer = startEverything("streamableHttp");
    runCoro([&]() -> Task<void> {
        RawSession session(streamable(peer.url("/mcp")));
        auto step1 = co_await session.transport().open();
        REQUIRE(step1);

        auto init = co_await session.initialize(rootsCapability());
        REQUIRE(init);
        CHECK((*init)["protocolVersion"] == "2025-11-25");
        CHECK((*init)["serverInfo"]["name"] == "mcp-servers/everything");

        // The server asks for the roots on the standalone GET stream, 350 ms after `initialized`.
        auto roots = co_await session.serverRequest("roots/list");
        REQUIRE(roots);

        auto tools = co_await session.call("tools/list");
        REQUIRE(tools);
        bool hasEcho = false;
        for (const auto& tool : (*tools)["result"]["tools"]) {
            hasEcho = hasEcho || tool["name"] == "echo";
        }
        CHECK(hasEcho);

        json hi = {{"message", "hi"}};
        auto echo = co_await session.callTool("echo", std::move(hi));
        REQUIRE(echo);
        CHECK(*echo == "Echo: hi");

        auto ping = co_await session.call("ping");
        REQUIRE(ping);
        CHECK((*ping)["result"] == json::object());

        // Progress notifications travel on the call's own stream, before its result.
        json params = {{"name", "trigger-long-running-operation"},
                       {"arguments", {{"duration", 0.3}, {"steps", 3}}},
                       {"_meta", {{"progressToken", "p1"}}}};
        auto longCall = co_await session.call("tools/call", std::move(params));
        REQUIRE(longCall);
        int progress = 0;
        for (const auto& note : session.notifications) {
            progress += note["method"] == "notifications/progress" ? 1 : 0;
        }
        CHECK(progress == 3);  // every one, in order, before the result

        const auto start = std::chrono::steady_clock::now();
        co_await session.transport().close();
        CHECK(elapsedMs(start) < 2500);
        co_await session.transport().close();  // idempotent

        auto after = co_await session.transport().receive();
        REQUIRE_FALSE(after);
        CHECK(after.error().code == McpErrc::connection_closed);
        auto sendAfter = co_await session.transport().send(R"({"jsonrpc":"2.0","method":"x"})");
        REQUIRE_FALSE(sendAfter);
        CHECK(sendAfter.error().code == McpErrc::connection_closed);
    }());
}

TEST_CASE("streamable-http: JSON replies, the standalone stream and DELETE with the SDK peer",
          "[mcp][streamable-http]") {
    auto peer = startSdkPeer(true);
    runCoro([&]() -> Task<void> {
        RawSession session(streamable(peer.url("/mcp")));
        auto step2 = co_await session.transport().open();
        REQUIRE(step2);
        auto init = co_await session.initialize(rootsCapability());
        REQUIRE(init);
        CHECK((*init)["serverInfo"]["name"] == "reagent-ref-peer");

        auto tools = co_await session.call("tools/list");
        REQUIRE(tools);
        CHECK((*tools)["result"]["tools"].size() >= 5);

        json add = {{"name", "add"}, {"arguments", {{"a", 2}, {"b", 3}}}};
        auto sum = co_await session.call("tools/call", std::move(add));
        REQUIRE(sum);
        CHECK((*sum)["result"]["structuredContent"]["sum"] == 5);

        // The tool's roots/list request is tied to no POST: it comes on the standalone GET stream.
        auto roots = co_await session.callTool("roots", json::object());
        REQUIRE(roots);
        CHECK(*roots == "file:///tmp");
        REQUIRE(session.serverRequests.size() == 1);
        CHECK(session.serverRequests[0]["method"] == "roots/list");

        // A second session sees both; after the first one's close (DELETE) only itself.
        RawSession other(streamable(peer.url("/mcp")));
        auto step3 = co_await other.transport().open();
        REQUIRE(step3);
        auto step4 = co_await other.initialize();
        REQUIRE(step4);
        auto before = co_await other.callTool("sessions", json::object());
        REQUIRE(before);
        CHECK(*before == "2");
        co_await session.transport().close();
        auto afterClose = co_await other.callTool("sessions", json::object());
        REQUIRE(afterClose);
        CHECK(*afterClose == "1");
        co_await other.transport().close();
    }());
}

TEST_CASE("streamable-http: concurrent calls complete independently", "[mcp][streamable-http]") {
    auto peer = startSdkPeer(false);
    runCoro([&]() -> Task<void> {
        RawSession session(streamable(peer.url("/mcp")));
        auto step5 = co_await session.transport().open();
        REQUIRE(step5);
        auto step6 = co_await session.initialize();
        REQUIRE(step6);
        // A slow call does not hold back a quick one sent after it.
        json slow = {{"jsonrpc", "2.0"},
                     {"id", 100},
                     {"method", "tools/call"},
                     {"params", {{"name", "sleep"}, {"arguments", {{"ms", 400}}}}}};
        auto step7 = co_await session.sendRaw(std::move(slow));
        REQUIRE(step7);
        json quick = {{"message", "quick"}};
        auto echo = co_await session.callTool("echo", std::move(quick));
        REQUIRE(echo);
        CHECK(*echo == "Echo: quick");
        auto late = co_await session.responseTo(100);
        REQUIRE(late);
        CHECK((*late)["result"]["content"][0]["text"] == "slept 400");
        co_await session.transport().close();
    }());
}

TEST_CASE("streamable-http: an unreachable server is connect_failed", "[mcp][streamable-http]") {
    const ClosedPort closed;
    const auto port = closed.port();
    runCoro([&]() -> Task<void> {
        RawSession session(streamable("http://127.0.0.1:" + std::to_string(port) + "/mcp"));
        auto step8 = co_await session.transport().open();
        REQUIRE(step8);
        auto init = co_await session.initialize();
        REQUIRE_FALSE(init);
        CHECK(init.error().code == McpErrc::connect_failed);
        CHECK(init.error().message.find("127.0.0.1:" + std::to_string(port)) != std::string::npos);
        co_await session.transport().close();
    }());
}

TEST_CASE("streamable-http: a refusal says the status, never a header value", "[mcp][streamable-http]") {
    NodePeer peer({"refuse"});
    runCoro([&]() -> Task<void> {
        auto config = httpConfig(TransportKind::streamable_http, peer.url("/mcp"));
        config.headers["Authorization"] = "Bearer very-secret-token";
        RawSession session(mcp::makeAnyTransport(config));
        auto step9 = co_await session.transport().open();
        REQUIRE(step9);
        auto init = co_await session.initialize();
        REQUIRE_FALSE(init);
        CHECK(init.error().code == McpErrc::unauthorized);
        INFO(init.error().message);
        CHECK(init.error().message.find("HTTP 401") != std::string::npos);
        // The server received the header and quoted it back; the message masks it.
        CHECK(init.error().message.find("invalid credentials: ***") != std::string::npos);
        CHECK(init.error().message.find("very-secret-token") == std::string::npos);
        co_await session.transport().close();
    }());
}

TEST_CASE("streamable-http: OAuth tokens a server quotes are masked in errors and messages",
          "[mcp][streamable-http][oauth]") {
    for (const char* form : {"status", "rpc"}) {
        CAPTURE(form);
        NodePeer peer(std::string(form) == "rpc" ? std::vector<std::string>{"echo-token", "rpc"}
                                                 : std::vector<std::string>{"echo-token"});
        runCoro([&]() -> Task<void> {
            auto config = httpConfig(TransportKind::streamable_http, peer.url("/mcp"));
            mcp::OAuthSettings oauth;
            oauth.clientId = "reagent-test";
            oauth.store->saveTokens(
                mcp::OAuthTokens{"live-access-token-1234", "live-refresh-token-5678", "", {}});
            config.oauth = std::move(oauth);
            RawSession session(mcp::makeAnyTransport(config));
            auto opened = co_await session.transport().open();
            REQUIRE(opened);
            auto init = co_await session.initialize();
            REQUIRE_FALSE(init);
            INFO(init.error().message);
            // The server received the token and quoted it back; the message masks it.
            CHECK(init.error().message.find("Bearer ***") != std::string::npos);
            CHECK(init.error().message.find("live-access-token") == std::string::npos);
            co_await session.transport().close();
        }());
    }
}

TEST_CASE("streamable-http: a server killed during a call ends receive with an error",
          "[mcp][streamable-http]") {
    auto peer = startEverything("streamableHttp");
    runCoro([&]() -> Task<void> {
        RawSession session(streamable(peer.url("/mcp")));
        auto step10 = co_await session.transport().open();
        REQUIRE(step10);
        auto step11 = co_await session.initialize();
        REQUIRE(step11);
        json call = {{"jsonrpc", "2.0"},
                     {"id", 50},
                     {"method", "tools/call"},
                     {"params",
                      {{"name", "trigger-long-running-operation"},
                       {"arguments", {{"duration", 10}, {"steps", 10}}},
                       {"_meta", {{"progressToken", 7}}}}}};
        auto step12 = co_await session.sendRaw(std::move(call));
        REQUIRE(step12);
        // Wait for the first progress notification: the call is under way.
        for (;;) {
            auto message = co_await session.next();
            REQUIRE(message);
            if (message->value("method", "") == "notifications/progress") {
                break;
            }
        }
        peer.kill();
        const auto start = std::chrono::steady_clock::now();
        std::optional<McpError> end;
        while (!end) {
            auto message = co_await session.next(std::chrono::seconds(8));
            if (!message) {
                end = message.error();
            }
        }
        CHECK(end->code == McpErrc::connection_closed);
        CHECK(elapsedMs(start) < 5000);
        INFO(end->describe());
        const auto closing = std::chrono::steady_clock::now();
        co_await session.transport().close();
        CHECK(elapsedMs(closing) < 2500);
    }());
}

TEST_CASE("streamable-http: a JSON-reply server killed during a call", "[mcp][streamable-http]") {
    auto peer = startSdkPeer(true);
    runCoro([&]() -> Task<void> {
        RawSession session(streamable(peer.url("/mcp")));
        auto step13 = co_await session.transport().open();
        REQUIRE(step13);
        auto step14 = co_await session.initialize();
        REQUIRE(step14);
        auto executor = co_await boost::asio::this_coro::executor;
        boost::asio::co_spawn(executor, killAfter(&peer, std::chrono::milliseconds(300)),
                              boost::asio::detached);
        // The POST waits for its reply's head, which comes with the result: the call fails at once...
        const auto start = std::chrono::steady_clock::now();
        json longSleep = {{"ms", 5000}};
        auto slow = co_await session.callTool("sleep", std::move(longSleep));
        REQUIRE_FALSE(slow);
        CHECK(slow.error().code == McpErrc::connection_closed);
        CHECK(elapsedMs(start) < 2000);
        // ...and the standalone stream, cut too, finds the server gone.
        auto received = co_await session.next(std::chrono::seconds(5));
        REQUIRE_FALSE(received);
        CHECK(received.error().code == McpErrc::connection_closed);
        CHECK(elapsedMs(start) < 4000);
        co_await session.transport().close();
    }());
}

TEST_CASE("streamable-http: a forgotten session is session_expired", "[mcp][streamable-http]") {
    for (const bool json : {false, true}) {
        DYNAMIC_SECTION((json ? "JSON replies" : "event-stream replies")) {
            auto peer = startSdkPeer(json);
            runCoro([&]() -> Task<void> {
                RawSession session(streamable(peer.url("/mcp")));
                auto step15 = co_await session.transport().open();
                REQUIRE(step15);
                auto step16 = co_await session.initialize();
                REQUIRE(step16);
                auto expire = co_await session.callTool("expire_session", nlohmann::json::object());
                REQUIRE(expire);
                auto ping = co_await session.call("ping");
                REQUIRE_FALSE(ping);
                CHECK(ping.error().code == McpErrc::session_expired);
                CHECK(ping.error().message.find("404") != std::string::npos);
                auto received = co_await session.transport().receive();
                REQUIRE_FALSE(received);
                CHECK(received.error().code == McpErrc::session_expired);
                co_await session.transport().close();
            }());
        }
    }
}

TEST_CASE("streamable-http: a message over the bound is protocol_error", "[mcp][streamable-http]") {
    SECTION("an event of server-everything") {
        auto peer = startEverything("streamableHttp");
        runCoro([&]() -> Task<void> {
            RawSession session(streamable(peer.url("/mcp"), 4096));
            auto step17 = co_await session.transport().open();
            REQUIRE(step17);
            auto step18 = co_await session.initialize();
            REQUIRE(step18);
            json large = {{"message", std::string(10000, 'a')}};
            auto echo = co_await session.callTool("echo", std::move(large));
            REQUIRE_FALSE(echo);
            CHECK(echo.error().code == McpErrc::protocol_error);
            CHECK(echo.error().message.find("4096") != std::string::npos);
            co_await session.transport().close();
        }());
    }
    SECTION("a JSON reply of the SDK peer") {
        auto peer = startSdkPeer(true);
        runCoro([&]() -> Task<void> {
            RawSession session(streamable(peer.url("/mcp"), 4096));
            auto step19 = co_await session.transport().open();
            REQUIRE(step19);
            auto step20 = co_await session.initialize();
            REQUIRE(step20);
            json size = {{"n", 10000}};
            auto big = co_await session.callTool("big", std::move(size));
            REQUIRE_FALSE(big);
            CHECK(big.error().code == McpErrc::protocol_error);
            co_await session.transport().close();
        }());
    }
}

TEST_CASE("streamable-http: cancelling a pending receive", "[mcp][streamable-http]") {
    auto peer = startEverything("streamableHttp");
    runCoro([&]() -> Task<void> {
        RawSession session(streamable(peer.url("/mcp")));
        auto& transport = session.transport();
        auto step21 = co_await transport.open();
        REQUIRE(step21);
        auto step22 = co_await session.initialize();
        REQUIRE(step22);
        co_await session.drain();
        co_await session.quiesce();

        auto executor = co_await boost::asio::this_coro::executor;
        boost::asio::cancellation_signal signal;
        std::optional<expected<std::string, McpError>> received;
        boost::asio::co_spawn(executor, transport.receive(),
                              boost::asio::bind_cancellation_slot(
                                  signal.slot(), [&](std::exception_ptr, expected<std::string, McpError> r) {
                                      received = std::move(r);
                                  }));
        co_await sleepFor(std::chrono::milliseconds(50));
        CHECK_FALSE(received);
        const auto start = std::chrono::steady_clock::now();
        signal.emit(boost::asio::cancellation_type::terminal);
        while (!received && elapsedMs(start) < 2000) {
            co_await sleepFor(std::chrono::milliseconds(5));
        }
        REQUIRE(received);
        REQUIRE_FALSE(*received);
        CHECK(received->error().code == McpErrc::cancelled);

        // The transport still works.
        auto ping = co_await session.call("ping");
        REQUIRE(ping);
        co_await transport.close();
    }());
}

TEST_CASE("streamable-http: close ends a pending receive", "[mcp][streamable-http]") {
    auto peer = startEverything("streamableHttp");
    runCoro([&]() -> Task<void> {
        RawSession session(streamable(peer.url("/mcp")));
        auto& transport = session.transport();
        auto step23 = co_await transport.open();
        REQUIRE(step23);
        auto step24 = co_await session.initialize();
        REQUIRE(step24);
        co_await session.drain();
        co_await session.quiesce();
        auto executor = co_await boost::asio::this_coro::executor;
        std::optional<expected<std::string, McpError>> received;
        boost::asio::co_spawn(
            executor, transport.receive(),
            [&](std::exception_ptr, expected<std::string, McpError> r) { received = std::move(r); });
        co_await sleepFor(std::chrono::milliseconds(20));
        co_await transport.close();
        co_await sleepFor(std::chrono::milliseconds(5));
        REQUIRE(received);
        REQUIRE_FALSE(*received);
        CHECK(received->error().code == McpErrc::connection_closed);
    }());
}
