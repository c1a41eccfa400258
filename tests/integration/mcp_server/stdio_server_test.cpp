// reagent's MCP server over stdio (tests/integration/mcp_server/tool_server.cpp) driven by reagent's own
// MCP client: listing with pagination, calls, tool errors, progress, cancellation, logging, list changes,
// resources, templates, prompts and completion.

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
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
    config.era = mcp::ProtocolEra::legacy;  // the 2025 session; 2026-07-28 is tested on its own
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
        const auto config = toolServer({"--page-size", "3"});
        auto connected = co_await mcp::Client::connect(config);
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
        auto badCursorCall = client.request("tools/list", json{{"cursor", "bogus"}});
        auto badCursor = co_await std::move(badCursorCall);
        REQUIRE_FALSE(badCursor);
        CHECK(badCursor.error().message.find("-32602") != std::string::npos);

        auto tools = co_await client.listTools();  // follows every page
        REQUIRE(tools);
        CHECK(tools->size() == 10);
        for (const auto* name :
             {"echo", "add", "slow", "fail", "sleepy", "guarded", "log", "grow", "ask_model", "ask_user"}) {
            CHECK(hasTool(*tools, name));
        }
        const auto guarded =
            *std::find_if(tools->begin(), tools->end(), [](auto& t) { return t.name == "guarded"; });
        CHECK(guarded.annotations.readOnlyHint == false);
        CHECK(guarded.annotations.destructiveHint == true);
        CHECK(guarded.annotations.idempotentHint == false);
        const auto echo =
            *std::find_if(tools->begin(), tools->end(), [](auto& t) { return t.name == "echo"; });
        CHECK(echo.annotations.readOnlyHint == true);
        CHECK(echo.annotations.idempotentHint == true);
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
        auto echoedCall = client.callTool("echo", json{{"message", "héllo"}});
        auto echoed = co_await std::move(echoedCall);
        REQUIRE(echoed);
        CHECK(echoed->text == "héllo");
        CHECK_FALSE(echoed->isError);
        auto sumCall = client.callTool("add", json{{"a", 2}, {"b", 40}});
        auto sum = co_await std::move(sumCall);
        REQUIRE(sum);
        CHECK(sum->text == "42");

        auto failed = co_await client.callTool("fail", json::object());
        REQUIRE(failed);
        CHECK(failed->isError);
        CHECK(failed->text == "failed: boom: it always fails");

        auto badCall = client.callTool("add", json{{"a", "two"}});
        auto bad = co_await std::move(badCall);
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

        auto method = co_await client.request("no/such/method", json::object());
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
        auto slowCall = client->callTool("slow", json{{"steps", 4}, {"delayMs", 5}}, options);
        auto slow = co_await std::move(slowCall);
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
                auto rCall = c->callTool("slow", json{{"steps", 2}, {"delayMs", 10 + n % 3}});
                auto r = co_await std::move(rCall);
                *out = r ? r->text : r.error().message;
                auto echoedCall = c->callTool("echo", json{{"message", std::to_string(n)}});
                auto echoed = co_await std::move(echoedCall);
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
        const auto config = toolServer({"--marker-dir", markers});
        auto connected = co_await mcp::Client::connect(config);
        REQUIRE(connected);
        auto& client = **connected;
        mcp::CallOptions options;
        options.timeout = 300ms;  // the client cancels (notifications/cancelled) when it runs out
        auto slowCall = client.callTool("slow", json{{"steps", 500}, {"delayMs", 20}}, options);
        auto slow = co_await std::move(slowCall);
        REQUIRE_FALSE(slow);
        CHECK(slow.error().code == mcp::McpErrc::timeout);
        CHECK(co_await appears(markers + "/slow-cancelled"));
        CHECK_FALSE(std::filesystem::exists(markers + "/slow-finished"));
        auto echoedCall = client.callTool("echo", json{{"message", "after"}});
        auto echoed = co_await std::move(echoedCall);
        REQUIRE(echoed);
        CHECK(echoed->text == "after");
        co_await client.close();
    }(dir.path.string()));
}

TEST_CASE("mcp server over stdio: in-flight bound refuses the call beyond it", "[mcp][server]") {
    runCoro([]() -> Task<void> {
        const auto config = toolServer({"--max-in-flight", "2"});
        auto connected = co_await mcp::Client::connect(config);
        REQUIRE(connected);
        auto client = *connected;
        auto executor = co_await asio::this_coro::executor;
        int finished = 0;
        auto longCall = [](std::shared_ptr<mcp::Client> c, int* count) -> Task<void> {
            auto call10 = c->callTool("slow", json{{"steps", 10}, {"delayMs", 20}});
            (void)co_await std::move(call10);
            ++*count;
        };
        asio::co_spawn(executor, longCall(client, &finished), asio::detached);
        asio::co_spawn(executor, longCall(client, &finished), asio::detached);
        co_await sleepFor(50ms);
        auto thirdCall = client->callTool("echo", json{{"message", "x"}});
        auto third = co_await std::move(thirdCall);
        REQUIRE_FALSE(third);
        CHECK(third.error().message.find("too many requests in flight (limit 2)") != std::string::npos);
        for (int i = 0; i < 300 && finished < 2; ++i) {
            co_await sleepFor(10ms);
        }
        CHECK(finished == 2);
        auto laterCall = client->callTool("echo", json{{"message", "y"}});
        auto later = co_await std::move(laterCall);
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
        auto setCall = client.request("logging/setLevel", json{{"level", "warning"}});
        auto set = co_await std::move(setCall);
        REQUIRE(set);
        auto badLevelCall = client.request("logging/setLevel", json{{"level", "loud"}});
        auto badLevel = co_await std::move(badLevelCall);
        REQUIRE_FALSE(badLevel);
        auto call15 = client.callTool("log", json{{"level", "info"}, {"message", "quiet"}});
        (void)co_await std::move(call15);
        auto call16 = client.callTool("log", json{{"level", "error"}, {"message", "loud"}});
        (void)co_await std::move(call16);
        REQUIRE(logs.size() == 1);
        CHECK(logs[0].level == "error");
        CHECK(logs[0].logger == "tool_server");
        CHECK(logs[0].data == "loud");

        auto grownCall = client.callTool("grow", json{{"name", "fresh"}});
        auto grown = co_await std::move(grownCall);
        REQUIRE(grown);
        CHECK(grown->text == "grown");
        CHECK(changes == 1);
        auto tools = co_await client.listTools();
        REQUIRE(tools);
        CHECK(hasTool(*tools, "fresh"));
        co_await client.close();
    }());
}

// Hidden (run by hand: `integration_mcp_server_stdio "[bench]"`): sequential echo calls from reagent's
// client, after a warm-up; prints calls/s and the median latency.
TEST_CASE("mcp server over stdio: sequential echo throughput", "[.][bench]") {
    runCoro([]() -> Task<void> {
        auto connected = co_await mcp::Client::connect(toolServer());
        REQUIRE(connected);
        auto& client = **connected;
        const json args = {{"message", "ping"}};
        for (int i = 0; i < 200; ++i) {
            REQUIRE((co_await client.callTool("echo", args)));
        }
        constexpr int kCalls = 5000;
        std::vector<double> latencies;
        latencies.reserve(kCalls);
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < kCalls; ++i) {
            const auto before = std::chrono::steady_clock::now();
            auto echoed = co_await client.callTool("echo", args);
            REQUIRE(echoed);
            latencies.push_back(
                std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - before).count());
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::sort(latencies.begin(), latencies.end());
        std::printf("echo x%d: %.0f calls/s, median %.0f us, p90 %.0f us\n", kCalls, kCalls / seconds,
                    latencies[latencies.size() / 2], latencies[latencies.size() * 9 / 10]);
        co_await client.close();
    }());
}

TEST_CASE("mcp server over stdio: resources, templates, prompts, completion", "[mcp][server]") {
    runCoro([]() -> Task<void> {
        auto connected = co_await mcp::Client::connect(toolServer());
        REQUIRE(connected);
        auto& client = **connected;
        const auto& capabilities = client.server().capabilities;
        CHECK(capabilities["resources"] == json{{"subscribe", true}, {"listChanged", true}});
        CHECK(capabilities.contains("prompts"));
        CHECK(capabilities.contains("completions"));

        const json greetingUri = {{"uri", "test://greeting"}};
        auto read = co_await client.request("resources/read", greetingUri);
        REQUIRE(read);
        CHECK((*read)["contents"][0]["text"] == "hello from reagent");
        const json itemUri = {{"uri", "test://items/42"}};
        auto item = co_await client.request("resources/read", itemUri);
        REQUIRE(item);
        CHECK((*item)["contents"][0]["text"] == "item 42");
        const json nowhere = {{"uri", "test://nowhere"}};
        auto missing = co_await client.request("resources/read", nowhere);
        REQUIRE_FALSE(missing);
        CHECK(missing.error().message.find("-32002") != std::string::npos);

        const json greet = {{"name", "greet"}, {"arguments", {{"who", "Ada"}}}};
        auto prompt = co_await client.request("prompts/get", greet);
        REQUIRE(prompt);
        CHECK((*prompt)["messages"][0]["content"]["text"] == "Say hello to Ada");
        const json bare = {{"name", "greet"}};
        auto refused = co_await client.request("prompts/get", bare);
        REQUIRE_FALSE(refused);
        CHECK(refused.error().message.find("needs argument who") != std::string::npos);

        const json complete = {{"ref", {{"type", "ref/prompt"}, {"name", "greet"}}},
                               {"argument", {{"name", "who"}, {"value", "g"}}}};
        auto completed = co_await client.request("completion/complete", complete);
        REQUIRE(completed);
        CHECK((*completed)["completion"]["values"] == json::array({"grace"}));

        // reagent's client declares no sampling capability: the handler's request is refused clearly.
        const json question = {{"question", "hi"}};
        auto sampled = co_await client.callTool("ask_model", question);
        REQUIRE(sampled);
        CHECK(sampled->isError);
        CHECK(sampled->text.find("did not declare the sampling capability") != std::string::npos);
        co_await client.close();
    }());
}

TEST_CASE(
    "mcp server over stdio, 2026-07-28: a client that probes speaks it, and questions come back as rounds",
    "[mcp][server][era]") {
    runCoro([]() -> Task<void> {
        auto config = toolServer();
        config.era = mcp::ProtocolEra::automatic;
        mcp::ClientOptions options;
        options.sampling = [](json params) -> Task<reagent::expected<json, mcp::RpcError>> {
            const std::string asked = params["messages"][0]["content"]["text"].get<std::string>();
            co_return json{{"role", "assistant"},
                           {"content", {{"type", "text"}, {"text", "you asked " + asked}}},
                           {"model", "m1"}};
        };
        options.elicitation = [](json) -> Task<reagent::expected<json, mcp::RpcError>> {
            co_return json{{"action", "accept"}, {"content", {{"name", "Ada"}}}};
        };
        int changes = 0;
        std::vector<std::string> problems;
        options.onToolsChanged = [&changes] { ++changes; };
        options.onProblem = [&problems](const mcp::McpError& problem) {
            problems.push_back(problem.message);
        };
        auto connected = co_await mcp::Client::connect(config, options);
        REQUIRE(connected);
        auto& client = **connected;
        CHECK(client.server().protocolVersion == "2026-07-28");

        const json question = {{"question", "hi"}};
        auto sampled = co_await client.callTool("ask_model", question);
        if (!sampled) {
            FAIL(sampled.error().describe());
        }
        CHECK_FALSE(sampled->isError);
        CHECK(sampled->text == "m1: you asked hi");
        const json message = {{"message", "who?"}};
        auto elicited = co_await client.callTool("ask_user", message);
        REQUIRE(elicited);
        CHECK(elicited->text == R"(accept {"name":"Ada"})");

        // List changes come on the subscriptions/listen the client opened.
        const json fresh = {{"name", "fresh"}};
        auto grown = co_await client.callTool("grow", fresh);
        REQUIRE(grown);
        for (int i = 0; i < 100 && changes == 0; ++i) {
            co_await sleepFor(20ms);
        }
        CHECK(changes == 1);
        CHECK(problems.empty());
        co_await client.close();

        // A client that offers no sampling: the request declares none, and the server says what it lacks.
        auto bare = co_await mcp::Client::connect(config);
        REQUIRE(bare);
        auto refused = co_await (*bare)->callTool("ask_model", question);
        REQUIRE_FALSE(refused);
        CHECK(refused.error().message.find("-32021") != std::string::npos);
        co_await (*bare)->close();
    }());
}
