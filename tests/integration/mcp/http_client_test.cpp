// The public Client over the HTTP transports: the whole stack against server-everything and the SDK peer.

#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "mcp_session.hpp"
#include "node_peer.hpp"
#include "reagent/mcp/client.hpp"
#include "reagent/mcp/remote_transports.hpp"
#include "run_coro.hpp"

using namespace reagent;
using namespace reagent::test;
using mcp::TransportKind;
using nlohmann::json;

namespace {

// Default arguments of aggregate type are temporaries inside the co_await expression (g++ 12): pass a named
// one.
const mcp::CallOptions noOptions;

}  // namespace

TEST_CASE("Client over streamable-http: tools and roots with server-everything",
          "[mcp][client][streamable-http]") {
    auto peer = startEverything("streamableHttp");
    runCoro([&]() -> Task<void> {
        mcp::ClientOptions options;
        options.roots = std::vector<mcp::Root>{{"file:///tmp/reagent-roots", "roots"}};
        const auto config = httpConfig(TransportKind::streamable_http, peer.url("/mcp"));
        auto connected = co_await mcp::connectAny(config, options);
        REQUIRE(connected);
        auto client = *connected;
        CHECK(client->server().protocolVersion == "2025-11-25");

        auto tools = co_await client->listTools();
        REQUIRE(tools);
        bool hasRootsTool = false;
        for (const auto& tool : *tools) {
            hasRootsTool = hasRootsTool || tool.name == "get-roots-list";
        }
        CHECK(hasRootsTool);

        json message = {{"message", "through the client"}};
        auto echo = co_await client->callTool("echo", std::move(message), noOptions);
        REQUIRE(echo);
        CHECK(echo->text == "Echo: through the client");

        // The server fetched the roots with roots/list on the standalone stream after `initialized`.
        std::string roots;
        for (int attempt = 0; attempt < 20 && roots.find("reagent-roots") == std::string::npos; ++attempt) {
            co_await sleepFor(std::chrono::milliseconds(100));
            auto listed = co_await client->callTool("get-roots-list", json::object(), noOptions);
            REQUIRE(listed);
            roots = listed->text;
        }
        CHECK(roots.find("file:///tmp/reagent-roots") != std::string::npos);
        co_await client->close();
    }());
}

TEST_CASE("Client over sse: a call with server-everything", "[mcp][client][sse]") {
    auto peer = startEverything("sse");
    runCoro([&]() -> Task<void> {
        const auto config = httpConfig(TransportKind::sse, peer.url("/sse"));
        const mcp::ClientOptions options;
        auto connected = co_await mcp::connectAny(config, options);
        REQUIRE(connected);
        auto client = *connected;
        json message = {{"message", "legacy"}};
        auto echo = co_await client->callTool("echo", std::move(message), noOptions);
        REQUIRE(echo);
        CHECK(echo->text == "Echo: legacy");
        co_await client->close();
    }());
}

TEST_CASE("Client over streamable-http: a forgotten session is initialised again",
          "[mcp][client][streamable-http]") {
    auto peer = startSdkPeer(true);
    runCoro([&]() -> Task<void> {
        auto config = httpConfig(TransportKind::streamable_http, peer.url("/mcp"));
        config.reconnectDelay = std::chrono::milliseconds(20);
        const mcp::ClientOptions options;
        auto connected = co_await mcp::connectAny(config, options);
        REQUIRE(connected);
        auto client = *connected;
        auto expired = co_await client->callTool("expire_session", json::object(), noOptions);
        REQUIRE(expired);

        // The next request meets 404: it fails, and the client initialises a new session.
        auto lost = co_await client->ping();
        REQUIRE_FALSE(lost);
        CHECK(lost.error().code == mcp::McpErrc::session_expired);
        std::optional<mcp::CallResult> sum;
        for (int attempt = 0; attempt < 50 && !sum; ++attempt) {
            co_await sleepFor(std::chrono::milliseconds(50));
            json operands = {{"a", 1}, {"b", 2}};
            auto call = co_await client->callTool("add", std::move(operands), noOptions);
            if (call) {
                sum = std::move(*call);
            }
        }
        REQUIRE(sum);
        CHECK(sum->structuredContent["sum"] == 3);
        co_await client->close();
    }());
}
