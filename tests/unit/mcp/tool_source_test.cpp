// mcp::toolSource over the in-memory transport: an MCP server's tools reach the agent through the sink
// (named server/tool, risk from the annotations), follow list_changed, fail with their MCP cause, and the
// session ends with close; a bad configuration and a server that does not start are refused with a cause.

#include "reagent/mcp/tool_source.hpp"

#include <boost/asio/this_coro.hpp>
#include <catch2/catch.hpp>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fake_mcp_server.hpp"
#include "reagent/llm/scripted_provider.hpp"

using namespace reagent::test::mcpfake;
namespace tools = reagent::tools;
using reagent::expected;
using reagent::Task;

namespace {

// Registers what the source adds, as an agent would, and keeps what it says.
class RecordingSink final : public tools::ToolSink {
  public:
    std::map<std::string, tools::Tool> registered;
    std::vector<std::string> removed;
    std::vector<json> logs;

    [[nodiscard]] expected<void, tools::ToolError> add(tools::Tool tool) override {
        const std::string name = tool.definition.name;
        registered.emplace(name, std::move(tool));
        return {};
    }
    bool remove(std::string_view name) override {
        removed.emplace_back(name);
        return registered.erase(std::string(name)) > 0;
    }
    void log(std::string level, std::string logger, json data) override {
        logs.push_back(json{{"level", level}, {"logger", logger}, {"data", data}});
    }
};

json toolEntry(const std::string& name, json annotations) {
    return json{
        {"name", name}, {"inputSchema", {{"type", "object"}}}, {"annotations", std::move(annotations)}};
}

// Calls a registered tool's handler as the executor would.
Task<tools::ToolResult> callTool(const tools::Tool& tool) {
    tools::ToolContext context;
    context.executor = co_await boost::asio::this_coro::executor;
    auto calling = tool.handler(json::object(), context);
    co_return co_await std::move(calling);
}

// Each connection the source makes reaches `server` over a fresh in-memory transport.
mcp::ToolSourceOptions throughMemory(FakeServer& server, const reagent::Executor& executor) {
    mcp::ToolSourceOptions options;
    options.transport = [factory = factoryFor(server, executor)](const mcp::ServerConfig&) {
        return factory();
    };
    return options;
}

Task<expected<void, tools::ToolError>> open(const std::shared_ptr<tools::ToolSource>& source,
                                            std::shared_ptr<RecordingSink> sink) {
    auto opening = source->open(std::move(sink));
    co_return co_await std::move(opening);
}

}  // namespace

TEST_CASE(
    "mcp tool source: the server's tools through the sink, their errors' MCP cause, list_changed, close",
    "[mcp][tool-source]") {
    asio::io_context io;
    FakeServer server;
    std::vector<json> listed{toolEntry("read", {{"readOnlyHint", true}}),
                             toolEntry("drop", {{"destructiveHint", true}}),
                             toolEntry("boom", json::object()), toolEntry("bad name!", json::object())};
    server.onRequest = [&listed](const json& request) {
        const std::string method = request["method"];
        if (method == "tools/list") {
            return Reply::ok(json{{"tools", listed}});
        }
        const std::string tool = request["params"].value("name", "");
        if (tool == "read") {
            return Reply::ok(json{{"content", {{{"type", "text"}, {"text", "the contents"}}}}});
        }
        if (tool == "drop") {
            return Reply::ok(
                json{{"content", {{{"type", "text"}, {"text", "not allowed"}}}}, {"isError", true}});
        }
        return Reply::rpcError(-32000, "exploded");
    };
    runOn(io, [&]() -> Task<void> {
        const reagent::Executor executor = co_await asio::this_coro::executor;
        const mcp::ToolSourceOptions options = throughMemory(server, executor);
        auto source = mcp::toolSource(memoryConfig(), options);
        REQUIRE(source);
        CHECK((*source)->name() == "mem");
        CHECK((*source)->opens());
        auto sink = std::make_shared<RecordingSink>();
        auto opened = co_await open(*source, sink);
        REQUIRE(opened);
        REQUIRE(sink->registered.size() == 4);
        const tools::Tool& read = sink->registered.at("mem/read");
        CHECK(read.definition.riskLevel == tools::RiskLevel::low);
        CHECK(read.definition.category == "mcp");
        CHECK(read.definition.timeout == memoryConfig().requestTimeout + std::chrono::seconds(1));
        const tools::Tool& drop = sink->registered.at("mem/drop");
        CHECK(drop.definition.riskLevel == tools::RiskLevel::high);
        CHECK(drop.definition.sideEffect);
        // Destructive, and not said to be idempotent: a durable run cut off during it asks a person.
        CHECK_FALSE(drop.definition.idempotent);
        CHECK(read.definition.idempotent);
        CHECK(sink->registered.at("mem/boom").definition.idempotent);
        CHECK(sink->registered.count("mem/bad_name_") == 1);

        auto contents = co_await callTool(read);
        REQUIRE(contents);
        CHECK(*contents == "the contents");

        auto refused = co_await callTool(drop);
        REQUIRE_FALSE(refused);
        CHECK(refused.error().code == tools::ToolErrc::failed);
        CHECK(refused.error().message == "not allowed");
        CHECK(refused.error().details == json{{"mcp", "tool_error"}, {"server", "mem"}});
        REQUIRE(refused.error().cause);
        CHECK(refused.error().cause->domain == "mcp");
        CHECK(refused.error().cause->code == "tool_error");

        auto exploded = co_await callTool(sink->registered.at("mem/boom"));
        REQUIRE_FALSE(exploded);
        CHECK(exploded.error().code == tools::ToolErrc::failed);
        CHECK_THAT(exploded.error().message, Catch::Contains("exploded"));
        REQUIRE(exploded.error().cause);
        CHECK(exploded.error().cause->code == "remote_error");

        // The server's list changes: the sink follows.
        listed = {toolEntry("read", {{"readOnlyHint", true}})};
        server.send(json{{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}});
        co_await until([&] { return sink->registered.size() == 1 && sink->removed.size() == 4; });
        CHECK(sink->registered.count("mem/read") == 1);
        // Its log lines reach the sink.
        server.send(json{{"jsonrpc", "2.0"},
                         {"method", "notifications/message"},
                         {"params", {{"level", "info"}, {"logger", "db"}, {"data", "hello"}}}});
        co_await until([&] { return !sink->logs.empty(); });
        CHECK(sink->logs[0] == json{{"level", "info"}, {"logger", "db"}, {"data", "hello"}});

        co_await (*source)->close();
        CHECK(server.peer()->clientClosed());
        co_await (*source)->close();  // idempotent
    }());
}

TEST_CASE("mcp tool source: a bad configuration is refused at once, a server that does not start fails open",
          "[mcp][tool-source]") {
    mcp::ServerConfig nameless = memoryConfig();
    nameless.name.clear();
    auto refused = mcp::toolSource(nameless);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == tools::ToolErrc::invalid_definition);

    asio::io_context io;
    FakeServer server;
    server.openFaults = 1;
    runOn(io, [&]() -> Task<void> {
        const reagent::Executor executor = co_await asio::this_coro::executor;
        const mcp::ToolSourceOptions options = throughMemory(server, executor);
        auto source = mcp::toolSource(memoryConfig(), options);
        REQUIRE(source);
        auto sink = std::make_shared<RecordingSink>();
        auto opened = co_await open(*source, sink);
        REQUIRE_FALSE(opened);
        CHECK(opened.error().code == tools::ToolErrc::init_failed);
        CHECK_THAT(opened.error().message, Catch::Contains("refused"));
        REQUIRE(opened.error().cause);
        CHECK(opened.error().cause->domain == "mcp");
        CHECK(sink->registered.empty());
        co_await (*source)->close();
    }());
}

TEST_CASE("sampling: fields of the wrong type are read as absent, a missing messages array is refused",
          "[mcp][sampling]") {
    namespace llm = reagent::llm;
    asio::io_context io;
    auto provider = std::make_shared<llm::ScriptedProvider>(std::vector{llm::ScriptedTurn::text("ok")});
    const mcp::RequestHandler sample = mcp::samplingWith(
        provider, [](const std::string&, const json&) { return true; }, "files");
    // A server of another mind: a numeric role, a type that is no string, maxTokens past int.
    const json odd = {
        {"messages", json::array({{{"role", 7}, {"content", {{"type", 5}, {"text", "hi"}}}},
                                  {{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "yo"}}}}})},
        {"systemPrompt", 3},
        {"maxTokens", 1LL << 40}};
    // Built outside the coroutine: g++ 12 miscompiles braced JSON lists in a coroutine frame.
    const json noMessages = {{"messages", "hi"}};
    runOn(io, [&]() -> Task<void> {
        auto answered = co_await sample(odd);
        REQUIRE(answered);
        CHECK((*answered)["content"]["text"] == "ok");
        REQUIRE(provider->requests().size() == 1);
        const llm::ModelRequest& request = provider->requests().front();
        REQUIRE(request.messages.size() == 2);
        CHECK(request.messages[0].role == llm::Role::user);
        CHECK(request.messages[1].role == llm::Role::assistant);
        CHECK(request.maxTokens == std::numeric_limits<int>::max());

        auto refused = co_await sample(noMessages);
        REQUIRE_FALSE(refused);
        CHECK(refused.error().code == reagent::jsonrpc::kInvalidParams);
        CHECK(provider->requests().size() == 1);
    }());
}
