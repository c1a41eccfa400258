// Agents that use MCP servers' tools: withMCP, buildAsync, runOnce, dispose, events, sampling through the
// agent's provider, list_changed, several servers at once.

#include <algorithm>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <memory>

#include "mcp_peers.hpp"
#include "reagent/agent/agent.hpp"
#include "reagent/llm/scripted_provider.hpp"
#include "reagent/umbrella/agent_builder.hpp"
#include "run_coro.hpp"
#include "temp_dir.hpp"

namespace agent = reagent::agent;
namespace llm = reagent::llm;
namespace mcp = reagent::mcp;
namespace tools = reagent::tools;
using nlohmann::json;
using reagent::Task;
using reagent::test::childProcesses;
using reagent::test::runCoro;

namespace {

const tools::ToolCallRecord* findCall(const agent::RunResult& result, const std::string& name) {
    for (const auto& record : result.toolCalls) {
        if (record.name == name) {
            return &record;
        }
    }
    return nullptr;
}

}  // namespace

TEST_CASE("an agent calls tools of two MCP servers end to end and dispose stops them", "[mcp][agent]") {
    auto provider = std::make_shared<llm::ScriptedProvider>();
    const auto echoArgs = json::parse(R"({"message":"from the model"})");
    const auto faultArgs = json::parse(R"({"text":"fault says hi"})");
    provider->then(llm::ScriptedTurn::toolCalls(
        {llm::ToolCall{"c1", "everything/echo", echoArgs}, llm::ToolCall{"c2", "fault/echo", faultArgs}}));
    provider->then(llm::ScriptedTurn::text("done"));
    std::vector<agent::AgentEvent> events;
    runCoro([&]() -> Task<void> {
        auto builder = reagent::Agent::create()
                           .withProvider(provider)
                           .withMCP(std::vector<mcp::ServerConfig>{reagent::test::everythingStdio(),
                                                                   reagent::test::faultServer()})
                           .withEventHandler([&](const agent::AgentEvent& e) { events.push_back(e); });
        auto built = co_await builder.buildAsync();
        REQUIRE(built);
        agent::Agent& a = *built;
        const auto definitions = a.toolDefinitions();
        const bool hasEcho = std::any_of(definitions.begin(), definitions.end(), [](const auto& d) {
            return d.name == "everything/echo" && d.inputSchema["required"][0] == "message" &&
                   d.category == "mcp";
        });
        CHECK(hasEcho);
        auto result = co_await a.run("use both servers");
        CHECK(result.success());
        const auto* echo = findCall(result, "everything/echo");
        REQUIRE(echo);
        REQUIRE(echo->succeeded());
        CHECK(*echo->outcome == "Echo: from the model");
        const auto* fault = findCall(result, "fault/echo");
        REQUIRE(fault);
        REQUIRE(fault->succeeded());
        CHECK(*fault->outcome == "fault says hi");
        // The model saw the results under the names it used.
        const auto& lastRequest = provider->requests().back();
        CHECK(lastRequest.messages.back().text.find("fault says hi") != std::string::npos);
        co_await a.dispose();
        CHECK(childProcesses().empty());
    }());
}

TEST_CASE(
    "MCP tool errors and bad arguments reach the model as tool errors and the schema is checked before the "
    "call",
    "[mcp][agent]") {
    auto provider = std::make_shared<llm::ScriptedProvider>();
    const auto wrongType = json::parse(R"({"message":42})");
    provider->then(llm::ScriptedTurn::toolCall("everything/echo", wrongType));
    provider->then(llm::ScriptedTurn::toolCall("fault/unknown_tool_of_server", json::object()));
    provider->then(llm::ScriptedTurn::text("gave up"));
    runCoro([&]() -> Task<void> {
        auto builtBuilder = reagent::Agent::create()
                                .withProvider(provider)
                                .withMCP(reagent::test::everythingStdio())
                                .withMCP(reagent::test::faultServer());
        auto built = co_await builtBuilder.buildAsync();
        REQUIRE(built);
        auto result = co_await built->run("try");
        REQUIRE(result.toolCalls.size() == 2);
        REQUIRE_FALSE(result.toolCalls[0].succeeded());
        CHECK(result.toolCalls[0].outcome.error().code == tools::ToolErrc::invalid_arguments);
        REQUIRE_FALSE(result.toolCalls[1].succeeded());
        CHECK(result.toolCalls[1].outcome.error().code == tools::ToolErrc::unknown_tool);
        co_await built->dispose();
    }());
}

TEST_CASE("buildAsync names the MCP server that failed to start and stops the others", "[mcp][agent]") {
    auto provider = std::make_shared<llm::ScriptedProvider>();
    runCoro([&]() -> Task<void> {
        const auto broken = reagent::test::faultServer({"--fail-start"}, "broken");
        auto builtBuilder = reagent::Agent::create()
                                .withProvider(provider)
                                .withMCP(reagent::test::everythingStdio())
                                .withMCP(broken);
        auto built = co_await builtBuilder.buildAsync();
        REQUIRE_FALSE(built);
        CHECK(built.error().code == agent::AgentErrc::invalid_config);
        CHECK(built.error().message.find("'broken'") != std::string::npos);
        CHECK(built.error().message.find("refusing to start") != std::string::npos);
        CHECK(built.error().message.find("'everything'") == std::string::npos);
        CHECK(childProcesses().empty());

        auto syncBuilt =
            reagent::Agent::create().withProvider(provider).withMCP(reagent::test::faultServer()).build();
        REQUIRE_FALSE(syncBuilt);
        CHECK(syncBuilt.error().message.find("buildAsync") != std::string::npos);

        auto duplicateBuilder = reagent::Agent::create()
                                    .withProvider(provider)
                                    .withMCP(reagent::test::faultServer())
                                    .withMCP(reagent::test::faultServer());
        auto duplicate = co_await duplicateBuilder.buildAsync();
        REQUIRE_FALSE(duplicate);
        CHECK(duplicate.error().message.find("two MCP servers are named 'fault'") != std::string::npos);
    }());
}

TEST_CASE("buildAsync starts at most maxConcurrentOpens MCP servers at once", "[mcp][agent]") {
    reagent::test::TempDir dir;
    auto provider = std::make_shared<llm::ScriptedProvider>();
    constexpr int kServers = 16;
    runCoro([&]() -> Task<void> {
        auto builder = reagent::Agent::create().withProvider(provider);
        for (int i = 0; i < kServers; ++i) {
            builder.withMCP(reagent::test::faultServer(
                {"--startup-dir", dir.path.string(), "--startup-hold", "5"}, "fault" + std::to_string(i)));
        }
        auto built = co_await builder.buildAsync();
        REQUIRE(built);
        co_await built->dispose();
    }());
    int seen = 0;
    int most = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("seen-", 0) == 0) {
            ++seen;
            std::ifstream in(entry.path());
            int starting = 0;
            in >> starting;
            most = std::max(most, starting);
        }
    }
    CHECK(seen == kServers);
    CHECK(most >= 1);
    CHECK(most <= 4);  // AgentConfig::maxConcurrentOpens
}

TEST_CASE("runOnce builds runs and disposes and progress and logs become agent events", "[mcp][agent]") {
    auto provider = std::make_shared<llm::ScriptedProvider>();
    const auto args = json::parse(R"({"duration":0.2,"steps":2})");
    provider->then(llm::ScriptedTurn::toolCall("everything/trigger-long-running-operation", args));
    provider->then(llm::ScriptedTurn::text("finished"));
    std::vector<tools::ToolProgressed> progress;
    std::vector<agent::ServerLogged> logs;
    runCoro([&]() -> Task<void> {
        auto builder = reagent::Agent::create()
                           .withProvider(provider)
                           .withMCP(reagent::test::everythingStdio())
                           .withMCPRoots({mcp::Root{"file:///tmp", "tmp"}})
                           .withEventHandler([&](const agent::AgentEvent& e) {
                               if (auto* p = std::get_if<tools::ToolProgressed>(&e)) {
                                   progress.push_back(*p);
                               } else if (auto* l = std::get_if<agent::ServerLogged>(&e)) {
                                   logs.push_back(*l);
                               }
                           });
        auto result = co_await builder.runOnce("run the long operation");
        REQUIRE(result);
        CHECK(result->success());
        CHECK(result->output == "finished");
    }());
    REQUIRE(progress.size() == 2);
    CHECK(progress[0].tool == "everything/trigger-long-running-operation");
    CHECK(progress[1].progress.progress == 2);
    CHECK(progress[1].progress.total == 2);
    CHECK(childProcesses().empty());
}

TEST_CASE("a server's sampling request goes through the agent's provider only when allowed", "[mcp][agent]") {
    for (const bool allow : {true, false}) {
        auto provider = std::make_shared<llm::ScriptedProvider>();
        const auto args = json::parse(R"({"prompt":"say hi","maxTokens":20})");
        provider->then(llm::ScriptedTurn::toolCall("everything/trigger-sampling-request", args));
        if (allow) {
            provider->then(llm::ScriptedTurn::text("sampled by the agent's model"));
        }
        provider->then(llm::ScriptedTurn::text("done"));
        std::vector<std::string> asked;
        runCoro([&]() -> Task<void> {
            auto builder = reagent::Agent::create()
                               .withProvider(provider)
                               .withMCP(reagent::test::everythingStdio())
                               .withMCPSampling([&](const std::string& server, const json&) {
                                   asked.push_back(server);
                                   return allow;
                               });
            auto built = co_await builder.buildAsync();
            REQUIRE(built);
            auto result = co_await built->run("sample");
            const auto* call = findCall(result, "everything/trigger-sampling-request");
            REQUIRE(call);
            if (allow) {
                REQUIRE(call->succeeded());
                CHECK(call->outcome->find("sampled by the agent's model") != std::string::npos);
                // The server's prompt reached the provider.
                CHECK(provider->requests()[1].messages.back().text.find("say hi") != std::string::npos);
            } else {
                const std::string text = call->succeeded() ? *call->outcome : call->outcome.error().message;
                CHECK(text.find("declined") != std::string::npos);
            }
            co_await built->dispose();
        }());
        CHECK(asked == std::vector<std::string>{"everything"});
    }
}

TEST_CASE("tools/list_changed refreshes the agent's tools for later runs", "[mcp][agent]") {
    auto provider = std::make_shared<llm::ScriptedProvider>();
    provider->then(llm::ScriptedTurn::toolCall("fault/grow", json::object()));
    provider->then(llm::ScriptedTurn::text("grew"));
    const auto args = json::parse(R"({"n":7})");
    provider->then(llm::ScriptedTurn::toolCall("fault/grown", args));
    provider->then(llm::ScriptedTurn::text("used it"));
    runCoro([&]() -> Task<void> {
        auto builder = reagent::Agent::create().withProvider(provider).withMCP(reagent::test::faultServer());
        auto built = co_await builder.buildAsync();
        REQUIRE(built);
        const auto has = [&](const std::string& name) {
            const auto definitions = built->toolDefinitions();
            return std::any_of(definitions.begin(), definitions.end(),
                               [&](const auto& d) { return d.name == name; });
        };
        CHECK_FALSE(has("fault/grown"));
        auto first = co_await built->run("grow");
        CHECK(first.success());
        // The refresh runs beside the run; give it a moment to land.
        for (int i = 0; i < 100 && !has("fault/grown"); ++i) {
            co_await reagent::test::sleepFor(std::chrono::milliseconds(10));
        }
        REQUIRE(has("fault/grown"));
        auto second = co_await built->run("use the new tool");
        const auto* call = findCall(second, "fault/grown");
        REQUIRE(call);
        REQUIRE(call->succeeded());
        CHECK(*call->outcome == "grown called with 7");
        co_await built->dispose();
    }());
}

TEST_CASE("cancelling a run cancels its MCP call and the server is told", "[mcp][agent]") {
    auto provider = std::make_shared<llm::ScriptedProvider>();
    provider->then(llm::ScriptedTurn::toolCall("fault/hang", json::object()));
    runCoro([&]() -> Task<void> {
        auto builder = reagent::Agent::create().withProvider(provider).withMCP(reagent::test::faultServer());
        auto built = co_await builder.buildAsync();
        REQUIRE(built);
        auto executor = co_await boost::asio::this_coro::executor;
        boost::asio::cancellation_signal signal;
        boost::asio::steady_timer trigger(executor, std::chrono::milliseconds(200));
        trigger.async_wait(
            [&](boost::system::error_code) { signal.emit(boost::asio::cancellation_type::terminal); });
        const auto start = std::chrono::steady_clock::now();
        auto run = built->run("hang");
        auto result = co_await boost::asio::co_spawn(
            executor, std::move(run),
            boost::asio::bind_cancellation_slot(signal.slot(), boost::asio::use_awaitable));
        CHECK(result.terminatedBy == agent::TerminatedBy::cancelled);
        CHECK(reagent::test::elapsedMs(start) < 2000);
        REQUIRE(result.toolCalls.size() == 1);
        CHECK(result.toolCalls[0].outcome.error().code == tools::ToolErrc::cancelled);
        co_await built->dispose();
        CHECK(childProcesses().empty());
    }());
}

TEST_CASE("an MCP tool's image reaches the next model request as an attachment of its result",
          "[mcp][agent][attachments]") {
    auto provider = std::make_shared<llm::ScriptedProvider>();
    provider->then(llm::ScriptedTurn::toolCall("everything/get-tiny-image", json::object()));
    provider->then(llm::ScriptedTurn::text("It is the MCP logo."));
    runCoro([&]() -> Task<void> {
        auto builder =
            reagent::Agent::create().withProvider(provider).withMCP(reagent::test::everythingStdio());
        auto built = co_await builder.buildAsync();
        REQUIRE(built);
        auto result = co_await built->run("Show me the tiny image");
        INFO(result.errorMessage);
        REQUIRE(result.success());
        const auto* call = findCall(result, "everything/get-tiny-image");
        REQUIRE(call);
        REQUIRE(call->succeeded());
        // The text names the image; its bytes are not in the text the model reads or compression sees.
        CHECK(call->outcome->find("[image image/png") != std::string::npos);
        CHECK(call->outcome->find("iVBORw0KGgo") == std::string::npos);
        const auto& second = provider->requests().at(1).messages;
        const llm::Message& toolMessage = second.back();
        REQUIRE(toolMessage.role == llm::Role::tool);
        REQUIRE(toolMessage.attachments.size() == 1);
        CHECK(toolMessage.attachments[0].mediaType == "image/png");
        CHECK(toolMessage.attachments[0].kind == llm::MediaKind::image);
        CHECK(toolMessage.attachments[0].size() > 1000);
        co_await built->dispose();
    }());
}
