// MCP 2026-07-28 between reagent's client and the official SDK v2 server (tests/peers/mcp/sdk2_server.mjs,
// @modelcontextprotocol/server 2.4.0): over streamable HTTP and stdio, against a server of that revision
// only and a dual-era one; and the probe against a server of the handshake era (server-everything).

#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "mcp_peers.hpp"
#include "mcp_session.hpp"
#include "node_peer.hpp"
#include "reagent/mcp/client.hpp"
#include "reagent/mcp/protocol_version.hpp"
#include "reagent/mcp/remote_transports.hpp"
#include "run_coro.hpp"

using namespace reagent;
using namespace reagent::test;
using mcp::ProtocolEra;
using mcp::TransportKind;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

const std::string kPeer = std::string(REAGENT_MCP_PEERS_DIR) + "/sdk2_server.mjs";
// Default arguments of aggregate type are temporaries inside the co_await expression (g++ 12).
const mcp::CallOptions noOptions;

mcp::ServerConfig sdk2Stdio(const std::string& legacy, ProtocolEra era) {
    mcp::ServerConfig config;
    config.name = "sdk2";
    config.command = REAGENT_NODE;
    config.args = {kPeer, "stdio", legacy};
    config.era = era;
    config.connectTimeout = 10s;
    return config;
}

mcp::ServerConfig sdk2Http(const NodePeer& peer, ProtocolEra era) {
    auto config = httpConfig(TransportKind::streamable_http, peer.url("/mcp"));
    config.era = era;
    return config;
}

// Lists the tools and calls two of them; the server must be of the 2026 era.
Task<void> useModernServer(mcp::ServerConfig config) {
    const mcp::ClientOptions options;
    auto connected = co_await mcp::connectAny(config, options);
    REQUIRE(connected);
    auto client = *connected;
    CHECK(client->server().protocolVersion == mcp::kModernProtocolVersion);
    CHECK(client->server().implementation.name == "sdk2-peer");
    auto tools = co_await client->listTools();
    REQUIRE(tools);
    CHECK(tools->size() == 3);
    json text = {{"text", "grüße, world"}};
    auto echo = co_await client->callTool("echo", std::move(text), noOptions);
    REQUIRE(echo);
    CHECK_FALSE(echo->isError);
    CHECK(echo->text == "echo: grüße, world");
    json numbers = {{"a", 5}, {"b", 3}};
    auto sum = co_await client->callTool("add", std::move(numbers), noOptions);
    REQUIRE(sum);
    CHECK(sum->text == "8");
    auto pinged = co_await client->ping();
    CHECK(pinged);
    co_await client->close();
}

}  // namespace

TEST_CASE("2026-07-28 over streamable HTTP: a server of that revision only is spoken to without a handshake",
          "[mcp][era][streamable-http]") {
    NodePeer peer(kPeer, {"http", "reject"});
    runCoro(useModernServer(sdk2Http(peer, ProtocolEra::automatic)));
    runCoro(useModernServer(sdk2Http(peer, ProtocolEra::modern)));
    // Forced to the handshake, the client is refused with the versions the server serves.
    runCoro([&]() -> Task<void> {
        const mcp::ClientOptions options;
        const auto config = sdk2Http(peer, ProtocolEra::legacy);
        auto connected = co_await mcp::connectAny(config, options);
        REQUIRE_FALSE(connected);
        CHECK(connected.error().message.find("2026-07-28") != std::string::npos);
    }());
}

TEST_CASE("2026-07-28 over streamable HTTP: a dual-era server answers the probe, and initialize when forced",
          "[mcp][era][streamable-http]") {
    NodePeer peer(kPeer, {"http", "stateless"});
    runCoro(useModernServer(sdk2Http(peer, ProtocolEra::automatic)));
    runCoro([&]() -> Task<void> {
        const mcp::ClientOptions options;
        const auto config = sdk2Http(peer, ProtocolEra::legacy);
        auto connected = co_await mcp::connectAny(config, options);
        REQUIRE(connected);
        CHECK((*connected)->server().protocolVersion == mcp::kLatestProtocolVersion);
        json numbers = {{"a", 1}, {"b", 2}};
        auto sum = co_await (*connected)->callTool("add", std::move(numbers), noOptions);
        REQUIRE(sum);
        CHECK(sum->text == "3");
        co_await (*connected)->close();
    }());
}

TEST_CASE("2026-07-28 over stdio: the SDK's serveStdio, modern after the probe or legacy when forced",
          "[mcp][era][stdio]") {
    runCoro(useModernServer(sdk2Stdio("serve", ProtocolEra::automatic)));
    runCoro(useModernServer(sdk2Stdio("reject", ProtocolEra::modern)));
    runCoro([&]() -> Task<void> {
        const mcp::ClientOptions options;
        const auto config = sdk2Stdio("serve", ProtocolEra::legacy);
        auto connected = co_await mcp::connectAny(config, options);
        REQUIRE(connected);
        CHECK((*connected)->server().protocolVersion == mcp::kLatestProtocolVersion);
        co_await (*connected)->close();
    }());
}

TEST_CASE("2026-07-28: a call past its deadline ends its stream, and the next call is answered",
          "[mcp][era][streamable-http]") {
    NodePeer peer(kPeer, {"http", "reject"});
    runCoro([&]() -> Task<void> {
        const mcp::ClientOptions options;
        const auto config = sdk2Http(peer, ProtocolEra::automatic);
        auto connected = co_await mcp::connectAny(config, options);
        REQUIRE(connected);
        auto client = *connected;
        mcp::CallOptions quick;
        quick.timeout = 300ms;
        json wait = {{"ms", 5000}};
        const auto start = std::chrono::steady_clock::now();
        auto slow = co_await client->callTool("slow", std::move(wait), quick);
        REQUIRE_FALSE(slow);
        CHECK(slow.error().code == mcp::McpErrc::timeout);
        CHECK(std::chrono::steady_clock::now() - start < 3s);
        json numbers = {{"a", 2}, {"b", 2}};
        auto sum = co_await client->callTool("add", std::move(numbers), noOptions);
        REQUIRE(sum);
        CHECK(sum->text == "4");
        co_await client->close();
    }());
}

TEST_CASE("the probe: servers of the handshake era get initialize, `modern` refuses them", "[mcp][era]") {
    auto everything = startEverything("streamableHttp");
    runCoro([&]() -> Task<void> {
        const mcp::ClientOptions options;
        const auto httpServer = httpConfig(TransportKind::streamable_http, everything.url("/mcp"));
        auto http = co_await mcp::connectAny(httpServer, options);
        REQUIRE(http);
        CHECK((*http)->server().protocolVersion == mcp::kLatestProtocolVersion);
        co_await (*http)->close();

        const auto stdioServer = everythingStdio();
        auto stdio = co_await mcp::connectAny(stdioServer, options);
        REQUIRE(stdio);
        CHECK((*stdio)->server().protocolVersion == mcp::kLatestProtocolVersion);
        co_await (*stdio)->close();

        auto modern = everythingStdio();
        modern.era = ProtocolEra::modern;
        auto refused = co_await mcp::connectAny(modern, options);
        REQUIRE_FALSE(refused);
        CHECK(refused.error().code == mcp::McpErrc::unsupported_version);
    }());
}
