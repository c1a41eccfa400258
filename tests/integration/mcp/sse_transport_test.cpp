// The legacy HTTP+SSE transport against server-everything's `sse` mode, and against a server announcing an
// endpoint on another origin.

#include <catch2/catch.hpp>
#include <chrono>
#include <optional>
#include <string>

#include "mcp_session.hpp"
#include "node_peer.hpp"
#include "peer_process.hpp"
#include "reagent/mcp/remote_transports.hpp"
#include "reagent/mcp/transport.hpp"
#include "run_coro.hpp"

using namespace reagent;
using namespace reagent::test;
using mcp::TransportKind;
using nlohmann::json;

namespace {

std::unique_ptr<mcp::Transport> legacy(const std::string& url) {
    return mcp::makeAnyTransport(httpConfig(TransportKind::sse, url));
}

}  // namespace

TEST_CASE("sse: a whole session with server-everything", "[mcp][sse]") {
    auto peer = startEverything("sse");
    runCoro([&]() -> Task<void> {
        RawSession session(legacy(peer.url("/sse")));
        auto opened = co_await session.transport().open();
        REQUIRE(opened);

        auto init = co_await session.initialize(json::object(), "2024-11-05");
        REQUIRE(init);
        CHECK((*init)["serverInfo"]["name"] == "mcp-servers/everything");

        json message = {{"message", "over sse"}};
        auto echo = co_await session.callTool("echo", std::move(message));
        REQUIRE(echo);
        CHECK(*echo == "Echo: over sse");
        auto ping = co_await session.call("ping");
        REQUIRE(ping);

        const auto start = std::chrono::steady_clock::now();
        co_await session.transport().close();
        CHECK(elapsedMs(start) < 1000);
        co_await session.transport().close();
        auto after = co_await session.transport().receive();
        REQUIRE_FALSE(after);
        CHECK(after.error().code == McpErrc::connection_closed);
    }());
}

TEST_CASE("sse: an endpoint on another origin is refused", "[mcp][sse]") {
    NodePeer peer({"bad-endpoint"});
    runCoro([&]() -> Task<void> {
        auto transport = legacy(peer.url("/sse"));
        auto opened = co_await transport->open();
        REQUIRE_FALSE(opened);
        CHECK(opened.error().code == McpErrc::protocol_error);
        CHECK(opened.error().message.find("example.com") != std::string::npos);
        co_await transport->close();
    }());
}

TEST_CASE("sse: an unreachable server is connect_failed", "[mcp][sse]") {
    const ClosedPort closed;
    const auto port = closed.port();
    runCoro([&]() -> Task<void> {
        auto transport = legacy("http://127.0.0.1:" + std::to_string(port) + "/sse");
        auto opened = co_await transport->open();
        REQUIRE_FALSE(opened);
        CHECK(opened.error().code == McpErrc::connect_failed);
        co_await transport->close();
    }());
}

TEST_CASE("sse: a killed server ends receive with connection_closed", "[mcp][sse]") {
    auto peer = startEverything("sse");
    runCoro([&]() -> Task<void> {
        RawSession session(legacy(peer.url("/sse")));
        auto step25 = co_await session.transport().open();
        REQUIRE(step25);
        auto step26 = co_await session.initialize(json::object(), "2024-11-05");
        REQUIRE(step26);
        co_await session.drain();
        peer.kill();
        const auto start = std::chrono::steady_clock::now();
        auto next = co_await session.next(std::chrono::seconds(5));
        REQUIRE_FALSE(next);
        CHECK(next.error().code == McpErrc::connection_closed);
        CHECK(elapsedMs(start) < 2000);
        co_await session.transport().close();
    }());
}
