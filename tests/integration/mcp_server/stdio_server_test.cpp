// reagent's MCP server over stdio (tests/integration/mcp_server/tool_server.cpp) driven by reagent's own
// MCP client: listing with pagination, calls, tool errors, progress, cancellation, logging, list changes.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <vector>

#include "reagent/mcp/client.hpp"
#include "run_coro.hpp"
#include "temp_dir.hpp"

namespace asio = boost::asio;
namespace mcp = reagent::mcp;
using nlohmann::json;
using reagent::Task;
using reagent::test::runCoro;
using reagent::test::sleepFor;
using namespace std::chrono_literals;

namespace {

mcp::ServerConfig toolServer(std::vector<std::string> args = {}) {
    mcp::ServerConfig config;
    config.name = "tools";
    config.command = REAGENT_TOOL_SERVER;
    config.args = std::move(args);
    config.requestTimeout = 10s;
    config.maxReconnects = 0;
    return config;
}

bool hasTool(const std::vector<mcp::ToolInfo>& tools, const std::string& name) {
    return std::any_of(tools.begin(), tools.end(), [&](const mcp::ToolInfo& t) { return t.name == name; });
}

// Waits up to 3 s for `path` to exist.
Task<bool> appears(std::filesystem::path path) {
    for (int i = 0; i < 150 && !std::filesystem::exists(path); ++i) {
        co_await sleepFor(20ms);
    }
    co_return std::filesystem::exists(path);
}

}  // namespace

TEST_CASE("mcp server over stdio: initialize and paginated listing and annotations", "[mcp][server]") {
    runCoro([]() -> Task<void> {
        auto connected = co_await mcp::Client::connect(toolServer({"--page-size", "3"}));
        REQUIRE(connected);
        auto& client = **connected;
        CHECK(client.server().protocolVersion == "2025-11-25");
        CHECK(client.server().implementation.name == "reagent-tool-server");
        CHECK(client.server().instructions == "Test tools for reagent's MCP server.");
        CHECK(client.server().capabilities["tools"]["listChanged"] == true);
        CHECK(client.server().capabilities.contains("logging"));

        auto first = co_await client.request("tools/list", json::object());
        REQUIRE(first);
        CHECK((*first)["tools"].size() == 3);
        REQUIRE((*first)["nextCursor"].is_string());
        auto badCursor = co_await client.request("tools/list", json{{"cursor", "bogus"}});
        REQUIRE_FALSE(badCursor);
        CHECK(badCursor.error().message.find("-32602") != std::string::npos);

        auto tools = co_await client.listTools();  // follows every page
        REQUIRE(tools);
        CHECK(tools->size() == 8);
        for (const auto* name : {"echo", "add", "slow", "fail", "sleepy", "guarded", "log", "grow"}) {
            CHECK(hasTool(*tools, name));
        }
        const auto guarded =
            *std::find_if(tools->begin(), tools->end(), [](auto& t) { return t.name == "guarded"; });
        CHECK(guarded.annotations.readOnlyHint == false);
        CHECK(guarded.annotations.destructiveHint == true);
        const auto echo =
            *std::find_if(tools->begin(), tools->end(), [](auto& t) { return t.name == "echo"; });
        CHECK(echo.annotations.readOnlyHint == true);
        CHECK(echo.inputSchema["required"] == json::array({"message"}));
        CHECK((co_await client.ping()));
        co_await client.close();
    }());
}

TEST_CASE("mcp server over stdio: calls and tool errors as isError and unknown tools", "[mcp][server]") {
    runCoro([]() -> Task<void> {
        auto connected = co_await mcp::Client::connect(toolServer());
        REQUIRE(connected);
        auto& client = **connected;
        auto echoed = co_await client.callTool("echo", json{{"message", "héllo"}});
        REQUIRE(echoed);
        CHECK(echoed->text == "héllo");
        CHECK_FALSE(echoed->isError);
        auto sum = co_await client.callTool("add", json{{"a", 2}, {"b", 40}});
        REQUIRE(sum);
        CHECK(sum->text == "42");

        auto failed = co_await client.callTool("fail", json::object());
        REQUIRE(failed);
        CHECK(failed->isError);
        CHECK(failed->text == "failed: boom: it always fails");

        auto bad = co_await client.callTool("add", json{{"a", "two"}});
        REQUIRE(bad);
        CHECK(bad->isError);
        CHECK(bad->text.rfind("invalid_arguments: ", 0) == 0);

        auto slept = co_await client.callTool("sleepy", json::object());
        REQUIRE(slept);
        CHECK(slept->isError);
        CHECK(slept->text == "timeout: tool sleepy timed out after 100 ms");

        auto refused = co_await client.callTool("guarded", json::object());
        REQUIRE(refused);
        CHECK(refused->isError);
        CHECK(refused->text.rfind("approval_unavailable: ", 0) == 0);

        auto unknown = co_await client.callTool("nope", json::object());
        REQUIRE_FALSE(unknown);
        CHECK(unknown.error().code == mcp::McpErrc::remote_error);
        CHECK(unknown.error().message.find("Unknown tool: nope") != std::string::npos);

        auto method = co_await client.request("resources/list", json::object());
        REQUIRE_FALSE(method);
        CHECK(method.error().message.find("-32601") != std::string::npos);
        co_await client.close();
    }());
}

TEST_CASE("mcp server over stdio: progress and concurrent calls", "[mcp][server]") {
    runCoro([]() -> Task<void> {
        auto connected = co_await mcp::Client::connect(toolServer());
        REQUIRE(connected);
        auto client = *connected;
        std::vector<mcp::Progress> reports;
        mcp::CallOptions options;
        options.onProgress = [&reports](const mcp::Progress& p) { reports.push_back(p); };
        auto slow = co_await client->callTool("slow", json{{"steps", 4}, {"delayMs", 5}}, options);
        REQUIRE(slow);
        CHECK(slow->text == "done 4");
        REQUIRE(reports.size() == 4);
        CHECK(reports[3].progress == 4);
        CHECK(reports[3].total == 4);
        CHECK(reports[0].message == "step 1");

        // Many calls at once: each answer reaches its own caller.
        auto executor = co_await asio::this_coro::executor;
        std::vector<std::string> answers(20);
        int done = 0;
        for (int i = 0; i < 20; ++i) {
            auto call = [](std::shared_ptr<mcp::Client> c, int n, std::string* out,
                           int* count) -> Task<void> {
                auto r = co_await c->callTool("slow", json{{"steps", 2}, {"delayMs", 10 + n % 3}});
                *out = r ? r->text : r.error().message;
                auto echoed = co_await c->callTool("echo", json{{"message", std::to_string(n)}});
                *out += echoed ? "/" + echoed->text : "/error";
                ++*count;
            };
            asio::co_spawn(executor, call(client, i, &answers[static_cast<std::size_t>(i)], &done),
                           asio::detached);
        }
        for (int i = 0; i < 500 && done < 20; ++i) {
            co_await sleepFor(10ms);
        }
        REQUIRE(done == 20);
        for (int i = 0; i < 20; ++i) {
            CHECK(answers[static_cast<std::size_t>(i)] == "done 2/" + std::to_string(i));
        }
        co_await client->close();
    }());
}

TEST_CASE("mcp server over stdio: a cancelled call stops its handler and the server goes on",
          "[mcp][server]") {
    reagent::test::TempDir dir;
    runCoro([](std::string markers) -> Task<void> {
        auto connected = co_await mcp::Client::connect(toolServer({"--marker-dir", markers}));
        REQUIRE(connected);
        auto& client = **connected;
        mcp::CallOptions options;
        options.timeout = 300ms;  // the client cancels (notifications/cancelled) when it runs out
        auto slow = co_await client.callTool("slow", json{{"steps", 500}, {"delayMs", 20}}, options);
        REQUIRE_FALSE(slow);
        CHECK(slow.error().code == mcp::McpErrc::timeout);
        CHECK(co_await appears(markers + "/slow-cancelled"));
        CHECK_FALSE(std::filesystem::exists(markers + "/slow-finished"));
        auto echoed = co_await client.callTool("echo", json{{"message", "after"}});
        REQUIRE(echoed);
        CHECK(echoed->text == "after");
        co_await client.close();
    }(dir.path.string()));
}

TEST_CASE("mcp server over stdio: in-flight bound refuses the call beyond it", "[mcp][server]") {
    runCoro([]() -> Task<void> {
        auto connected = co_await mcp::Client::connect(toolServer({"--max-in-flight", "2"}));
        REQUIRE(connected);
        auto client = *connected;
        auto executor = co_await asio::this_coro::executor;
        int finished = 0;
        auto longCall = [](std::shared_ptr<mcp::Client> c, int* count) -> Task<void> {
            (void)co_await c->callTool("slow", json{{"steps", 10}, {"delayMs", 20}});
            ++*count;
        };
        asio::co_spawn(executor, longCall(client, &finished), asio::detached);
        asio::co_spawn(executor, longCall(client, &finished), asio::detached);
        co_await sleepFor(50ms);
        auto third = co_await client->callTool("echo", json{{"message", "x"}});
        REQUIRE_FALSE(third);
        CHECK(third.error().message.find("too many requests in flight (limit 2)") != std::string::npos);
        for (int i = 0; i < 300 && finished < 2; ++i) {
            co_await sleepFor(10ms);
        }
        CHECK(finished == 2);
        auto later = co_await client->callTool("echo", json{{"message", "y"}});
        REQUIRE(later);
        co_await client->close();
    }());
}

TEST_CASE("mcp server over stdio: logging levels and list_changed", "[mcp][server]") {
    runCoro([]() -> Task<void> {
        std::vector<mcp::LogMessage> logs;
        int changes = 0;
        mcp::ClientOptions options;
        options.onLog = [&logs](const mcp::LogMessage& m) { logs.push_back(m); };
        options.onToolsChanged = [&changes] { ++changes; };
        auto connected = co_await mcp::Client::connect(toolServer(), options);
        REQUIRE(connected);
        auto& client = **connected;
        auto set = co_await client.request("logging/setLevel", json{{"level", "warning"}});
        REQUIRE(set);
        auto badLevel = co_await client.request("logging/setLevel", json{{"level", "loud"}});
        REQUIRE_FALSE(badLevel);
        (void)co_await client.callTool("log", json{{"level", "info"}, {"message", "quiet"}});
        (void)co_await client.callTool("log", json{{"level", "error"}, {"message", "loud"}});
        REQUIRE(logs.size() == 1);
        CHECK(logs[0].level == "error");
        CHECK(logs[0].logger == "tool_server");
        CHECK(logs[0].data == "loud");

        auto grown = co_await client.callTool("grow", json{{"name", "fresh"}});
        REQUIRE(grown);
        CHECK(grown->text == "grown");
        CHECK(changes == 1);
        auto tools = co_await client.listTools();
        REQUIRE(tools);
        CHECK(hasTool(*tools, "fresh"));
        co_await client.close();
    }());
}
