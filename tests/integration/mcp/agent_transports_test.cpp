// An agent whose MCP server is reached over each network transport calls its tool end to end.

#include <catch2/catch.hpp>
#include <memory>

#include "mcp_peers.hpp"
#include "reagent/agent/agent.hpp"
#include "reagent/llm/scripted_provider.hpp"
#include "reagent/mcp/remote_transports.hpp"
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
    mcp::enableRemoteTransports();
    auto provider = std::make_shared<llm::ScriptedProvider>();
    const auto args = json::parse(R"({"message":"over the wire"})");
    provider->then(llm::ScriptedTurn::toolCall("everything/echo", args));
    provider->then(llm::ScriptedTurn::text("done"));
    std::string outcome;
    runCoro([&]() -> Task<void> {
        auto builder = agent::Agent::create().withProvider(provider).withMCP(server);
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

}  // namespace

TEST_CASE("an agent uses an MCP server over WebSocket", "[mcp][agent][websocket]") {
    auto peer = reagent::test::everythingWebSocket();
    mcp::ServerConfig server;
    server.name = "everything";
    server.transport = mcp::TransportKind::websocket;
    server.url = peer.url("ws", "/mcp");
    CHECK(echoThrough(server) == "Echo: over the wire");
}
