// An agent whose MCP server is reached over each network transport calls its tool end to end.

#include <catch2/catch.hpp>
#include <memory>

#include "mcp_peers.hpp"
#include "node_peer.hpp"
#include "reagent/agent/agent.hpp"
#include "reagent/llm/scripted_provider.hpp"
#include "reagent/mcp/remote_transports.hpp"
#include "reagent/umbrella/agent_builder.hpp"
#include "run_coro.hpp"

namespace agent = reagent::agent;
namespace llm = reagent::llm;
namespace mcp = reagent::mcp;
using nlohmann::json;
using reagent::Task;
using reagent::test::runCoro;

namespace {

// Runs an agent whose model calls `everything/echo` once, through `server`; returns what the tool gave.
std::string echoThrough(mcp::ServerConfig server) {
    auto provider = std::make_shared<llm::ScriptedProvider>();
    const auto args = json::parse(R"({"message":"over the wire"})");
    provider->then(llm::ScriptedTurn::toolCall("everything/echo", args));
    provider->then(llm::ScriptedTurn::text("done"));
    std::string outcome;
    runCoro([&]() -> Task<void> {
        auto builder = reagent::Agent::create().withProvider(provider).withMCP(server);
        auto built = co_await builder.buildAsync();
        if (!built) {
            outcome = "build failed: " + built.error().message;
            co_return;
        }
        auto result = co_await built->run("echo");
        if (result.toolCalls.size() == 1) {
            const auto& record = result.toolCalls[0];
            outcome = record.succeeded() ? *record.outcome : record.outcome.error().describe();
        }
        co_await built->dispose();
    }());
    return outcome;
}

mcp::ServerConfig remote(mcp::TransportKind kind, std::string url) {
    mcp::ServerConfig server;
    server.name = "everything";
    server.transport = kind;
    server.url = std::move(url);
    return server;
}

}  // namespace

TEST_CASE("an agent uses an MCP server over WebSocket", "[mcp][agent][websocket]") {
    auto peer = reagent::test::startWebSocketBridge();
    const std::string url = "ws://127.0.0.1:" + std::to_string(peer.port()) + "/mcp";
    CHECK(echoThrough(remote(mcp::TransportKind::websocket, url)) == "Echo: over the wire");
}

TEST_CASE("an agent uses an MCP server over streamable HTTP", "[mcp][agent][streamable-http]") {
    auto peer = reagent::test::startEverything("streamableHttp");
    CHECK(echoThrough(remote(mcp::TransportKind::streamable_http, peer.url("/mcp"))) ==
          "Echo: over the wire");
}

TEST_CASE("an agent uses an MCP server over the legacy SSE transport", "[mcp][agent][sse]") {
    auto peer = reagent::test::startEverything("sse");
    CHECK(echoThrough(remote(mcp::TransportKind::sse, peer.url("/sse"))) == "Echo: over the wire");
}

TEST_CASE("a request to a server that replies with JSON is bounded by its time limit",
          "[mcp][streamable-http]") {
    auto peer = reagent::test::startSdkPeer(true);
    runCoro([&]() -> Task<void> {
        auto config = remote(mcp::TransportKind::streamable_http, peer.url("/mcp"));
        auto connecting = mcp::connectAny(config);
        auto client = co_await std::move(connecting);
        REQUIRE(client);
        mcp::CallOptions quick;
        quick.timeout = std::chrono::milliseconds(300);
        const auto start = std::chrono::steady_clock::now();
        const auto args = json::parse(R"({"ms":3000})");
        auto calling = (*client)->callTool("sleep", args, quick);
        auto slept = co_await std::move(calling);
        REQUIRE_FALSE(slept);
        CHECK(slept.error().code == mcp::McpErrc::timeout);
        CHECK(reagent::test::elapsedMs(start) < 1500);
        co_await (*client)->close();
    }());
}
