// The MCP client's rules, step by step, over the in-memory transport: the handshake and version
// agreement, the request table, deadlines and cancellation (with notifications/cancelled), requests and
// notifications from the server, faults at each step, reconnection and the retry of safe calls, close.

#include "reagent/mcp/client.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/this_coro.hpp>
#include <catch2/catch.hpp>
#include <functional>
#include <optional>
#include <vector>

#include "fake_mcp_server.hpp"
#include "reagent/mcp/memory_transport.hpp"
#include "reagent/mcp/protocol_version.hpp"
#include "reagent/telemetry/telemetry.hpp"
#include "run_coro.hpp"

namespace asio = boost::asio;
namespace mcp = reagent::mcp;
using nlohmann::json;
using reagent::Task;
using reagent::test::sleepFor;
using namespace std::chrono_literals;

namespace {

using namespace reagent::test::mcpfake;

Task<reagent::expected<std::shared_ptr<mcp::Client>, mcp::McpError>> connect(FakeServer& server,
                                                                             mcp::ServerConfig config,
                                                                             mcp::ClientOptions options) {
    const reagent::Executor executor = co_await asio::this_coro::executor;
    auto connecting =
        mcp::Client::connect(std::move(config), std::move(options), factoryFor(server, executor));
    co_return co_await std::move(connecting);
}

Task<reagent::expected<std::shared_ptr<mcp::Client>, mcp::McpError>> connect(FakeServer& server) {
    mcp::ClientOptions options;
    auto connecting = connect(server, memoryConfig(), std::move(options));
    co_return co_await std::move(connecting);
}

// Connects to `server` in `era` with default options.
Task<reagent::expected<std::shared_ptr<mcp::Client>, mcp::McpError>> connectIn(FakeServer& server,
                                                                               mcp::ProtocolEra era) {
    mcp::ServerConfig config = memoryConfig();
    config.era = era;
    auto connecting = connect(server, std::move(config), mcp::ClientOptions{});
    co_return co_await std::move(connecting);
}

json toolsPage(std::vector<std::string> names, std::optional<std::string> next) {
    json tools = json::array();
    for (const auto& name : names) {
        tools.push_back(json{{"name", name}, {"inputSchema", {{"type", "object"}}}});
    }
    json page{{"tools", tools}};
    if (next) {
        page["nextCursor"] = *next;
    }
    return page;
}

}  // namespace

TEST_CASE("mcp client: the handshake offers the latest version, then sends initialized", "[mcp][client]") {
    asio::io_context io;
    FakeServer server;
    runOn(io, [&]() -> Task<void> {
        mcp::ClientOptions options;
        options.clientInfo = {"tester", "9.9", "The Tester"};
        options.roots = std::vector<mcp::Root>{{"file:///w", "w"}};
        auto connecting = connect(server, memoryConfig(), std::move(options));
        auto client = co_await std::move(connecting);
        REQUIRE(client);
        CHECK((*client)->connected());
        CHECK((*client)->server().protocolVersion == mcp::kLatestProtocolVersion);
        CHECK((*client)->server().implementation.name == "fake");
        CHECK((*client)->server().implementation.version == "1.2.3");
        CHECK((*client)->server().instructions == "be kind");
        CHECK((*client)->server().capabilities["tools"]["listChanged"] == true);
        co_await (*client)->close();
    }());
    REQUIRE(server.frames.size() == 2);
    const json& initialize = server.frames[0];
    CHECK(initialize["method"] == "initialize");
    CHECK(initialize["params"]["protocolVersion"] == mcp::kLatestProtocolVersion);
    CHECK(initialize["params"]["clientInfo"] ==
          json{{"name", "tester"}, {"version", "9.9"}, {"title", "The Tester"}});
    CHECK(initialize["params"]["capabilities"].contains("roots"));
    CHECK_FALSE(initialize["params"]["capabilities"].contains("sampling"));
    CHECK_FALSE(initialize["params"]["capabilities"].contains("elicitation"));
    CHECK(server.frames[1]["method"] == "notifications/initialized");
    CHECK_FALSE(server.frames[1].contains("id"));
    CHECK(server.peer()->protocolVersion() == mcp::kLatestProtocolVersion);
    CHECK(server.peer()->clientClosed());
}

TEST_CASE("mcp client: an older version the client speaks is accepted, an unknown one refused",
          "[mcp][client]") {
    asio::io_context io;
    FakeServer older;
    older.version = "2025-06-18";
    runOn(io, [&]() -> Task<void> {
        auto client = co_await connect(older);
        REQUIRE(client);
        CHECK((*client)->server().protocolVersion == "2025-06-18");
        co_await (*client)->close();
    }());
    CHECK(older.peer()->protocolVersion() == "2025-06-18");

    FakeServer future;
    future.version = "2099-01-01";
    runOn(io, [&]() -> Task<void> {
        auto client = co_await connect(future);
        REQUIRE_FALSE(client);
        CHECK(client.error().code == mcp::McpErrc::unsupported_version);
        CHECK_THAT(client.error().message, Catch::Contains("2099-01-01"));
    }());
    // No initialized notification after a refused version, and the transport is closed.
    CHECK(future.framesWith("notifications/initialized").empty());
    CHECK(future.peer()->clientClosed());
}

TEST_CASE("mcp client: faults while connecting are named, and the transport is closed", "[mcp][client]") {
    SECTION("open fails") {
        asio::io_context io;
        FakeServer server;
        server.openFault = mcp::McpError{mcp::McpErrc::connect_failed, "no route to the fake"};
        server.openFaults = 1;
        runOn(io, [&]() -> Task<void> {
            auto client = co_await connect(server);
            REQUIRE_FALSE(client);
            CHECK(client.error().code == mcp::McpErrc::connect_failed);
            CHECK_THAT(client.error().message, Catch::Contains("no route to the fake"));
        }());
        CHECK_FALSE(server.peer()->opened());
        CHECK(server.frames.empty());
    }
    SECTION("the server never answers initialize") {
        asio::io_context io;
        FakeServer server;
        server.silentInitialize = true;
        auto config = memoryConfig();
        config.connectTimeout = 150ms;
        const auto start = std::chrono::steady_clock::now();
        runOn(io, [&]() -> Task<void> {
            mcp::ClientOptions options;
            auto connecting = connect(server, config, std::move(options));
            auto client = co_await std::move(connecting);
            REQUIRE_FALSE(client);
            CHECK(client.error().code == mcp::McpErrc::timeout);
            CHECK_THAT(client.error().message, Catch::Contains("mem"));
        }());
        CHECK(reagent::test::elapsedMs(start) < 1500);
        CHECK(server.peer()->clientClosed());
    }
    SECTION("the server answers initialize with an error") {
        asio::io_context io;
        FakeServer server;
        server.initializeReply = Reply::rpcError(-32602, "bad client");
        runOn(io, [&]() -> Task<void> {
            auto client = co_await connect(server);
            REQUIRE_FALSE(client);
            CHECK(client.error().code == mcp::McpErrc::connect_failed);
            CHECK_THAT(client.error().message, Catch::Contains("did not initialise"));
            CHECK_THAT(client.error().message, Catch::Contains("bad client"));
        }());
    }
    SECTION("sending initialized fails") {
        asio::io_context io;
        FakeServer server;
        // initialize goes through; the next send, initialized, fails.
        server.beforeInitializeReply = [&server] {
            server.peer()->failNextSend(mcp::McpError{mcp::McpErrc::connection_closed, "pipe broke"});
        };
        runOn(io, [&]() -> Task<void> {
            auto client = co_await connect(server);
            REQUIRE_FALSE(client);
            CHECK(client.error().code == mcp::McpErrc::connect_failed);
            CHECK_THAT(client.error().message, Catch::Contains("pipe broke"));
        }());
        CHECK(server.peer()->clientClosed());
    }
}

TEST_CASE("mcp client: responses find their requests in any order, a stray one is a problem, not an end",
          "[mcp][client]") {
    asio::io_context io;
    FakeServer server;
    std::vector<json> held;
    server.onRequest = [&](const json& request) {
        held.push_back(request);
        return Reply::silence();
    };
    std::vector<mcp::McpError> problems;
    runOn(io, [&]() -> Task<void> {
        mcp::ClientOptions options;
        options.onProblem = [&](const mcp::McpError& error) { problems.push_back(error); };
        auto connecting = connect(server, memoryConfig(), std::move(options));
        auto client = co_await std::move(connecting);
        REQUIRE(client);
        const reagent::Executor executor = co_await asio::this_coro::executor;
        std::optional<reagent::expected<json, mcp::McpError>> first;
        std::optional<reagent::expected<json, mcp::McpError>> second;
        auto ask = [&](std::string method,
                       std::optional<reagent::expected<json, mcp::McpError>>& into) -> Task<void> {
            into = co_await (*client)->request(std::move(method), json::object());
        };
        asio::co_spawn(executor, ask("a/first", first), asio::detached);
        asio::co_spawn(executor, ask("a/second", second), asio::detached);
        auto bothHeld = until([&] { return held.size() >= 2; });
        co_await std::move(bothHeld);
        // A response to an id never sent, then the two answers in reverse order.
        server.send(json{{"jsonrpc", "2.0"}, {"id", 4242}, {"result", json::object()}});
        server.send(json{{"jsonrpc", "2.0"}, {"id", held[1]["id"]}, {"result", {{"n", 2}}}});
        server.send(json{{"jsonrpc", "2.0"}, {"id", held[0]["id"]}, {"result", {{"n", 1}}}});
        auto bothAnswered = until([&] { return first && second; });
        co_await std::move(bothAnswered);
        REQUIRE(*first);
        REQUIRE(*second);
        CHECK((**first)["n"] == 1);
        CHECK((**second)["n"] == 2);
        // Garbage is reported and the session goes on.
        REQUIRE(server.peer()->send("{not json"));
        server.onRequest = [](const json&) { return Reply::ok(json::object()); };
        auto pinged = co_await (*client)->ping();
        CHECK(pinged);
        CHECK((*client)->connected());
        co_await (*client)->close();
    }());
    REQUIRE(problems.size() >= 2);
    CHECK_THAT(problems[0].message, Catch::Contains("4242"));
    CHECK(held[0]["id"] != held[1]["id"]);
}

TEST_CASE("mcp client: a request past its deadline is a timeout and the server is told to cancel it",
          "[mcp][client]") {
    asio::io_context io;
    FakeServer server;
    server.onRequest = [](const json&) { return Reply::silence(); };
    runOn(io, [&]() -> Task<void> {
        auto client = co_await connect(server);
        REQUIRE(client);
        const auto start = std::chrono::steady_clock::now();
        auto answer = co_await (*client)->request("slow/thing", json::object(), 100ms);
        REQUIRE_FALSE(answer);
        CHECK(answer.error().code == mcp::McpErrc::timeout);
        CHECK(reagent::test::elapsedMs(start) < 1500);
        // The session stays usable.
        server.onRequest = [](const json&) { return Reply::ok(json::object()); };
        auto pinged = co_await (*client)->ping();
        CHECK(pinged);
        co_await (*client)->close();
    }());
    const auto cancels = server.framesWith("notifications/cancelled");
    REQUIRE(cancels.size() == 1);
    const auto requests = server.framesWith("slow/thing");
    REQUIRE(requests.size() == 1);
    CHECK(cancels[0]["params"]["requestId"] == requests[0]["id"]);
}

TEST_CASE("mcp client: a call its caller cancels returns cancelled and the server is told", "[mcp][client]") {
    asio::io_context io;
    FakeServer server;
    server.onRequest = [](const json&) { return Reply::silence(); };
    runOn(io, [&]() -> Task<void> {
        auto client = co_await connect(server);
        REQUIRE(client);
        const reagent::Executor executor = co_await asio::this_coro::executor;
        asio::cancellation_signal signal;
        std::optional<reagent::expected<mcp::CallResult, mcp::McpError>> outcome;
        spawn(
            executor, [&]() -> Task<void> { outcome = co_await (*client)->callTool("wait", json::object()); },
            signal.slot());
        auto callSent = until([&] { return !server.framesWith("tools/call").empty(); });
        co_await std::move(callSent);
        signal.emit(asio::cancellation_type::terminal);
        auto callEnded = until([&] { return outcome.has_value(); });
        co_await std::move(callEnded);
        REQUIRE_FALSE(*outcome);
        CHECK(outcome->error().code == mcp::McpErrc::cancelled);
        co_await sleepFor(10ms);
        co_await (*client)->close();
    }());
    const auto cancels = server.framesWith("notifications/cancelled");
    REQUIRE(cancels.size() == 1);
    CHECK(cancels[0]["params"]["requestId"] == server.framesWith("tools/call")[0]["id"]);
}

TEST_CASE("mcp client: the server's requests are answered, unknown ones refused with method not found",
          "[mcp][client]") {
    asio::io_context io;
    FakeServer server;
    runOn(io, [&]() -> Task<void> {
        mcp::ClientOptions options;
        options.roots = std::vector<mcp::Root>{{"file:///work", "work"}};
        options.sampling = [](json params) -> Task<reagent::expected<json, mcp::RpcError>> {
            co_return json{{"role", "assistant"},
                           {"content", {{"type", "text"}, {"text", "sampled " + params.value("q", "")}}},
                           {"model", "m"}};
        };
        auto connecting = connect(server, memoryConfig(), std::move(options));
        auto client = co_await std::move(connecting);
        REQUIRE(client);
        server.send(json{{"jsonrpc", "2.0"}, {"id", "r1"}, {"method", "roots/list"}});
        server.send(json{{"jsonrpc", "2.0"}, {"id", "p1"}, {"method", "ping"}});
        server.send(json{{"jsonrpc", "2.0"},
                         {"id", "s1"},
                         {"method", "sampling/createMessage"},
                         {"params", {{"q", "x"}}}});
        server.send(json{
            {"jsonrpc", "2.0"}, {"id", "e1"}, {"method", "elicitation/create"}, {"params", json::object()}});
        auto allAnswered = until([&] { return server.frames.size() >= 6; });
        co_await std::move(allAnswered);
        co_await (*client)->close();
    }());
    std::map<std::string, json> answers;
    for (const json& frame : server.frames) {
        if (frame.contains("id") && !frame.contains("method")) {
            answers[frame["id"].get<std::string>()] = frame;
        }
    }
    REQUIRE(answers.size() == 4);
    CHECK(answers["r1"]["result"]["roots"] == json::array({{{"uri", "file:///work"}, {"name", "work"}}}));
    CHECK(answers["p1"]["result"] == json::object());
    CHECK(answers["s1"]["result"]["content"]["text"] == "sampled x");
    CHECK(answers["e1"]["error"]["code"] == -32601);
}

TEST_CASE("mcp client: a call in a span carries its trace context in _meta, beside the progress token",
          "[mcp][client][telemetry]") {
    asio::io_context io;
    FakeServer server;
    server.onRequest = [&](const json& request) {
        if (request["method"] == "tools/call") {
            return Reply::ok(json{{"content", json::array({{{"type", "text"}, {"text", "done"}}})}});
        }
        return Reply::ok(json::object());
    };
    runOn(io, [&]() -> Task<void> {
        auto connecting = connect(server, memoryConfig(), mcp::ClientOptions{});
        auto client = co_await std::move(connecting);
        REQUIRE(client);
        mcp::CallOptions traced;
        traced.trace.traceId.bytes[15] = 1;
        traced.trace.spanId.bytes[7] = 2;
        traced.trace.flags = reagent::kSampledFlag;
        traced.trace.traceState = "vendor=1";
        traced.onProgress = [](const mcp::Progress&) {};
        auto calling = (*client)->callTool("work", json::object(), std::move(traced));
        auto called = co_await std::move(calling);
        REQUIRE(called);
        auto plain = (*client)->callTool("work", json::object());
        auto answered = co_await std::move(plain);
        REQUIRE(answered);
        co_await (*client)->close();
    }());
    const auto calls = server.framesWith("tools/call");
    REQUIRE(calls.size() == 2);
    const json meta = calls[0]["params"]["_meta"];
    CHECK(meta["traceparent"] == "00-00000000000000000000000000000001-0000000000000002-01");
    CHECK(meta["tracestate"] == "vendor=1");
    CHECK(meta.contains("progressToken"));
    CHECK_FALSE(calls[1]["params"].contains("_meta"));
}

TEST_CASE("mcp client: given telemetry, each request is a client span sent in _meta, timed by method",
          "[mcp][client][telemetry]") {
    namespace telemetry = reagent::telemetry;
    asio::io_context io;
    FakeServer server;
    server.onRequest = [&](const json& request) {
        const std::string tool = request["params"].value("name", "");
        if (request["method"] == "tools/call" && tool == "work") {
            return Reply::ok(json{{"content", json::array({{{"type", "text"}, {"text", "done"}}})}});
        }
        if (request["method"] == "tools/call") {
            return Reply::ok(
                json{{"content", json::array({{{"type", "text"}, {"text", "no"}}})}, {"isError", true}});
        }
        if (request["method"] == "prompts/get") {
            return Reply::rpcError(-32602, "no prompt 'missing'");
        }
        return Reply::ok(json::object());
    };
    auto sink = std::make_shared<telemetry::InMemorySpanSink>();
    auto traced = std::make_shared<telemetry::Telemetry>(telemetry::SamplerConfig{}, sink);
    mcp::ClientOptions options;
    options.telemetry = traced;
    const auto parent =
        telemetry::parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").value();
    runOn(io, [&]() -> Task<void> {
        auto connecting = connect(server, memoryConfig(), options);
        auto client = co_await std::move(connecting);
        REQUIRE(client);
        mcp::CallOptions child;
        child.trace = parent;
        auto calling = (*client)->callTool("work", json::object(), std::move(child));
        auto called = co_await std::move(calling);
        REQUIRE(called);
        auto failing = (*client)->callTool("refuse", json::object());
        auto failed = co_await std::move(failing);
        REQUIRE(failed);
        CHECK(failed->isError);
        auto asking = (*client)->request("prompts/get", json{{"name", "missing"}});
        auto asked = co_await std::move(asking);
        REQUIRE_FALSE(asked);
        co_await (*client)->close();
    }());
    const auto spans = sink->spans();
    REQUIRE(spans.size() == 3);  // initialize is the session's own, not a call
    const auto text = [](const telemetry::SpanData& span, const std::string& key) {
        for (const auto& attribute : span.attributes) {
            if (attribute.key == key) {
                return std::get<std::string>(attribute.value);
            }
        }
        return std::string("(none)");
    };
    const telemetry::SpanData& work = spans[0];
    CHECK(work.name == "tools/call work");
    CHECK(work.kind == telemetry::SpanKind::client);
    CHECK(work.context.traceId == parent.traceId);
    CHECK(work.parentSpanId == parent.spanId);
    CHECK(text(work, "mcp.method.name") == "tools/call");
    CHECK(text(work, "gen_ai.tool.name") == "work");
    CHECK(text(work, "gen_ai.operation.name") == "execute_tool");
    CHECK(text(work, "network.transport") == "pipe");
    CHECK(text(work, "jsonrpc.request.id") != "(none)");
    CHECK(text(work, "mcp.protocol.version") == mcp::kLatestProtocolVersion);
    CHECK(text(work, "error.type") == "(none)");
    // The server is sent the call's own span, not its parent.
    const auto calls = server.framesWith("tools/call");
    REQUIRE(calls.size() == 2);
    CHECK(calls[0]["params"]["_meta"]["traceparent"] == reagent::formatTraceparent(work.context));
    CHECK(calls[1]["params"]["_meta"]["traceparent"] == reagent::formatTraceparent(spans[1].context));

    const telemetry::SpanData& refused = spans[1];
    CHECK(refused.name == "tools/call refuse");
    CHECK_FALSE(refused.parentSpanId.valid());  // no parent given: a trace of its own
    CHECK(text(refused, "error.type") == "tool_error");
    CHECK(refused.status == telemetry::StatusCode::error);

    const telemetry::SpanData& prompt = spans[2];
    CHECK(prompt.name == "prompts/get missing");
    CHECK(text(prompt, "gen_ai.prompt.name") == "missing");
    CHECK(text(prompt, "error.type") == "-32602");
    CHECK(text(prompt, "rpc.response.status_code") == "-32602");
    CHECK(prompt.status == telemetry::StatusCode::error);

    const auto metrics = traced->collectMetrics();
    REQUIRE(metrics.size() == 1);
    CHECK(metrics[0].name == "mcp.client.operation.duration");
    CHECK(metrics[0].unit == "s");
    std::uint64_t requests = 0;
    for (const auto& point : metrics[0].points) {
        requests += point.count;
    }
    CHECK(requests == 3);
}

TEST_CASE("mcp client: notifications reach log, list-changed and progress handlers", "[mcp][client]") {
    asio::io_context io;
    FakeServer server;
    std::vector<mcp::LogMessage> logs;
    int changed = 0;
    std::vector<mcp::Progress> progress;
    server.onRequest = [&](const json& request) {
        if (request["method"] == "tools/call") {
            const json token = request["params"]["_meta"]["progressToken"];
            server.send(json{
                {"jsonrpc", "2.0"},
                {"method", "notifications/progress"},
                {"params", {{"progressToken", token}, {"progress", 1}, {"total", 2}, {"message", "half"}}}});
            return Reply::ok(json{{"content", json::array({{{"type", "text"}, {"text", "done"}}})}});
        }
        return Reply::ok(json::object());
    };
    runOn(io, [&]() -> Task<void> {
        mcp::ClientOptions options;
        options.onLog = [&](const mcp::LogMessage& message) { logs.push_back(message); };
        options.onToolsChanged = [&] { ++changed; };
        auto connecting = connect(server, memoryConfig(), std::move(options));
        auto client = co_await std::move(connecting);
        REQUIRE(client);
        server.send(json{{"jsonrpc", "2.0"},
                         {"method", "notifications/message"},
                         {"params", {{"level", "warning"}, {"logger", "db"}, {"data", "slow"}}}});
        server.send(json{{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}});
        mcp::CallOptions call;
        call.onProgress = [&](const mcp::Progress& step) { progress.push_back(step); };
        auto calling = (*client)->callTool("work", json::object(), std::move(call));
        auto result = co_await std::move(calling);
        REQUIRE(result);
        CHECK(result->text == "done");
        auto notified = until([&] { return !logs.empty() && changed > 0; });
        co_await std::move(notified);
        co_await (*client)->close();
    }());
    REQUIRE(logs.size() == 1);
    CHECK(logs[0].level == "warning");
    CHECK(logs[0].logger == "db");
    CHECK(logs[0].data == "slow");
    CHECK(changed == 1);
    REQUIRE(progress.size() == 1);
    CHECK(progress[0].progress == 1);
    CHECK(progress[0].total == 2);
    CHECK(progress[0].message == "half");
}

TEST_CASE("mcp client: listTools follows every page, stops a server that never ends, skips a nameless tool",
          "[mcp][client]") {
    asio::io_context io;
    FakeServer server;
    std::vector<mcp::McpError> problems;
    server.onRequest = [](const json& request) {
        const std::string cursor = request["params"].value("cursor", "");
        if (cursor.empty()) {
            return Reply::ok(toolsPage({"a", "b"}, "p2"));
        }
        if (cursor == "p2") {
            return Reply::ok(toolsPage({"c"}, std::nullopt));
        }
        return Reply::rpcError(-32602, "bad cursor");
    };
    runOn(io, [&]() -> Task<void> {
        mcp::ClientOptions options;
        options.onProblem = [&](const mcp::McpError& error) { problems.push_back(error); };
        auto connecting = connect(server, memoryConfig(), std::move(options));
        auto client = co_await std::move(connecting);
        REQUIRE(client);
        auto tools = co_await (*client)->listTools();
        REQUIRE(tools);
        REQUIRE(tools->size() == 3);
        CHECK((*tools)[2].name == "c");
        server.onRequest = [](const json&) { return Reply::ok(toolsPage({"again"}, "forever")); };
        auto endless = co_await (*client)->listTools();
        REQUIRE_FALSE(endless);
        CHECK(endless.error().code == mcp::McpErrc::protocol_error);
        server.onRequest = [](const json&) {
            return Reply::ok(
                json{{"tools", json::array({json{{"title", "no name"}}, json{{"name", "named"}}})}});
        };
        // A nameless tool is left out and reported; the others are listed.
        auto partly = co_await (*client)->listTools();
        REQUIRE(partly);
        REQUIRE(partly->size() == 1);
        CHECK(partly->front().name == "named");
        REQUIRE_FALSE(problems.empty());
        CHECK_THAT(problems.back().message, Catch::Contains("without a name"));
        // A result without a tools array is malformed.
        server.onRequest = [](const json&) { return Reply::ok(json{{"tools", "none"}}); };
        auto malformed = co_await (*client)->listTools();
        REQUIRE_FALSE(malformed);
        CHECK(malformed.error().code == mcp::McpErrc::malformed_message);
        co_await (*client)->close();
    }());
}

TEST_CASE(
    "mcp client: a dropped connection fails the calls in flight, reconnects and re-initialises, and "
    "sends a safe call again",
    "[mcp][client]") {
    asio::io_context io;
    FakeServer server;
    int calls = 0;
    server.onRequest = [&](const json& request) {
        if (request["method"] == "tools/list") {
            return Reply::ok(json{{"tools",
                                   {{{"name", "look"},
                                     {"inputSchema", {{"type", "object"}}},
                                     {"annotations", {{"readOnlyHint", true}}}},
                                    {{"name", "write"}, {"inputSchema", {{"type", "object"}}}}}}});
        }
        if (request["method"] == "tools/call") {
            ++calls;
            if (server.peers.size() == 1) {
                return Reply::silence();  // the first connection drops before it answers
            }
            return Reply::ok(json{{"content", json::array({{{"type", "text"}, {"text", "answered"}}})}});
        }
        return Reply::ok(json::object());
    };
    runOn(io, [&]() -> Task<void> {
        auto client = co_await connect(server);
        REQUIRE(client);
        auto tools = co_await (*client)->listTools();  // learns which tools are safe to retry
        REQUIRE(tools);
        const reagent::Executor executor = co_await asio::this_coro::executor;
        std::optional<reagent::expected<mcp::CallResult, mcp::McpError>> look;
        spawn(executor, [&]() -> Task<void> { look = co_await (*client)->callTool("look", json::object()); });
        auto lookSent = until([&] { return calls >= 1; });
        co_await std::move(lookSent);
        server.peer()->drop(mcp::McpError{mcp::McpErrc::connection_closed, "the fake server exited"});
        auto lookEnded = until([&] { return look.has_value(); });
        co_await std::move(lookEnded);
        REQUIRE(*look);  // sent again on the new connection
        CHECK((*look)->text == "answered");
        CHECK(server.peers.size() == 2);
        CHECK(server.framesWith("initialize").size() == 2);
        CHECK((*client)->connected());

        // A call that is not safe to repeat fails with the drop instead.
        std::optional<reagent::expected<mcp::CallResult, mcp::McpError>> write;
        server.onRequest = [&](const json& request) {
            if (request["method"] == "tools/call") {
                ++calls;
                return Reply::silence();
            }
            return Reply::ok(json::object());
        };
        const int before = calls;
        spawn(executor,
              [&]() -> Task<void> { write = co_await (*client)->callTool("write", json::object()); });
        auto writeSent = until([&] { return calls > before; });
        co_await std::move(writeSent);
        server.peer()->drop(mcp::McpError{mcp::McpErrc::connection_closed, "the fake server exited again"});
        auto writeEnded = until([&] { return write.has_value(); });
        co_await std::move(writeEnded);
        REQUIRE_FALSE(*write);
        CHECK(write->error().code == mcp::McpErrc::connection_closed);
        CHECK(calls == before + 1);
        co_await (*client)->close();
    }());
}

TEST_CASE("mcp client: after maxReconnects failed reconnections the client gives up and says why",
          "[mcp][client]") {
    asio::io_context io;
    FakeServer server;
    auto config = memoryConfig();
    config.maxReconnects = 2;
    std::vector<mcp::McpError> problems;
    runOn(io, [&]() -> Task<void> {
        mcp::ClientOptions options;
        options.onProblem = [&](const mcp::McpError& error) { problems.push_back(error); };
        auto connecting = connect(server, config, std::move(options));
        auto client = co_await std::move(connecting);
        REQUIRE(client);
        // Every later connection fails to open.
        server.openFaults = 1000;
        server.peer()->drop(mcp::McpError{mcp::McpErrc::connection_closed, "gone"});
        // Wait for the client to give up: a call then fails at once with the reason.
        reagent::expected<void, mcp::McpError> pinged;
        for (int i = 0; i < 500; ++i) {
            co_await sleepFor(2ms);
            pinged = co_await (*client)->ping();
            if (!pinged && pinged.error().message.find("gave up") != std::string::npos) {
                break;
            }
        }
        REQUIRE_FALSE(pinged);
        CHECK(pinged.error().code == mcp::McpErrc::connection_closed);
        CHECK_THAT(pinged.error().message, Catch::Contains("gave up after 2 reconnection(s)"));
        CHECK_FALSE((*client)->connected());
        co_await (*client)->close();
    }());
    CHECK(server.peers.size() == 3);  // the first connection and two reconnections
    bool attemptReported = false;
    for (const auto& problem : problems) {
        attemptReported = attemptReported || problem.message.find("attempt 2 of 2") != std::string::npos;
    }
    CHECK(attemptReported);
}

TEST_CASE("mcp client: close fails the requests in flight and closes the transport once", "[mcp][client]") {
    asio::io_context io;
    FakeServer server;
    server.onRequest = [](const json&) { return Reply::silence(); };
    runOn(io, [&]() -> Task<void> {
        auto client = co_await connect(server);
        REQUIRE(client);
        const reagent::Executor executor = co_await asio::this_coro::executor;
        std::optional<reagent::expected<json, mcp::McpError>> pending;
        spawn(executor, [&]() -> Task<void> {
            pending = co_await (*client)->request("never/answered", json::object());
        });
        auto requestSent = until([&] { return !server.framesWith("never/answered").empty(); });
        co_await std::move(requestSent);
        co_await (*client)->close();
        co_await (*client)->close();  // idempotent
        auto requestEnded = until([&] { return pending.has_value(); });
        co_await std::move(requestEnded);
        REQUIRE_FALSE(*pending);
        CHECK(pending->error().code == mcp::McpErrc::connection_closed);
        CHECK_FALSE((*client)->connected());
        auto after = co_await (*client)->ping();
        REQUIRE_FALSE(after);
        CHECK(after.error().code == mcp::McpErrc::connection_closed);
    }());
    CHECK(server.peer()->clientClosed());
    CHECK(server.peers.size() == 1);
}

TEST_CASE("mcp memory transport: frames in order both ways, faults once, and the ends", "[mcp][client]") {
    asio::io_context io;
    runOn(io, []() -> Task<void> {
        const reagent::Executor executor = co_await asio::this_coro::executor;
        auto connection = mcp::makeMemoryConnection(executor);
        auto& client = *connection.client;
        auto& peer = *connection.peer;
        peer.failNextOpen(mcp::McpError{mcp::McpErrc::connect_failed, "first open fails"});
        auto firstOpen = co_await client.open();
        REQUIRE_FALSE(firstOpen);
        CHECK(firstOpen.error().message == "first open fails");
        auto secondOpen = co_await client.open();
        CHECK(secondOpen);
        CHECK(peer.opened());
        auto sent1 = co_await client.send("1");
        auto sent2 = co_await client.send("2");
        CHECK(sent1);
        CHECK(sent2);
        peer.failNextSend(mcp::McpError{mcp::McpErrc::connection_closed, "one lost"});
        auto lost = co_await client.send("3");
        REQUIRE_FALSE(lost);
        auto sent4 = co_await client.send("4");
        CHECK(sent4);
        auto one = co_await peer.receive();
        auto two = co_await peer.receive();
        auto four = co_await peer.receive();
        CHECK(*one == "1");
        CHECK(*two == "2");
        CHECK(*four == "4");
        CHECK(peer.framesReceived() == 3);
        REQUIRE(peer.send("a"));
        REQUIRE(peer.send("b"));
        peer.drop(mcp::McpError{mcp::McpErrc::connection_closed, "server gone"});
        auto a = co_await client.receive();
        auto b = co_await client.receive();
        CHECK(*a == "a");
        CHECK(*b == "b");
        auto end = co_await client.receive();
        REQUIRE_FALSE(end);
        CHECK(end.error().message == "server gone");
        auto late = co_await client.send("5");
        REQUIRE_FALSE(late);
        CHECK(late.error().code == mcp::McpErrc::connection_closed);
        CHECK_FALSE(peer.send("c"));
        co_await client.close();
        CHECK(peer.clientClosed());
        auto after = co_await peer.receive();
        REQUIRE_FALSE(after);
        CHECK(after.error().code == mcp::McpErrc::connection_closed);
    }());
}

TEST_CASE("mcp client: a 2026-07-28 server is spoken to without a handshake, each request enveloped",
          "[mcp][client][era]") {
    asio::io_context io;
    FakeServer server;
    server.modern = true;
    server.onRequest = [](const json& request) {
        if (request["method"] == "tools/list") {
            return Reply::ok(json{{"tools", json::array({json{{"name", "t"}}})}, {"resultType", "complete"}});
        }
        if (request["method"] == "tools/call") {
            return Reply::ok(json{{"content", json::array({json{{"type", "text"}, {"text", "done"}}})}});
        }
        return Reply::rpcError(-32601, "Method not found");
    };
    runOn(io, [&]() -> Task<void> {
        mcp::ServerConfig config = memoryConfig();
        config.era = mcp::ProtocolEra::automatic;
        mcp::ClientOptions options;
        options.clientInfo = {"tester", "9.9", ""};
        auto connecting = connect(server, config, std::move(options));
        auto client = co_await std::move(connecting);
        REQUIRE(client);
        CHECK((*client)->server().protocolVersion == mcp::kModernProtocolVersion);
        CHECK((*client)->server().implementation.name == "fake");
        CHECK((*client)->server().implementation.version == "2.0.0");
        auto tools = co_await (*client)->listTools();
        REQUIRE(tools);
        CHECK(tools->size() == 1);
        auto called = co_await (*client)->callTool("t", json::object());
        REQUIRE(called);
        CHECK(called->text == "done");
        // No ping in this era: the health check asks server/discover again.
        auto pinged = co_await (*client)->ping();
        CHECK(pinged);
        co_await (*client)->close();
    }());
    CHECK(server.framesWith("initialize").empty());
    CHECK(server.framesWith("notifications/initialized").empty());
    CHECK(server.framesWith("ping").empty());
    REQUIRE(server.framesWith("server/discover").size() == 2);
    for (const char* method : {"server/discover", "tools/list", "tools/call"}) {
        const json meta = server.framesWith(method).front()["params"]["_meta"];
        CHECK(meta["io.modelcontextprotocol/protocolVersion"] == mcp::kModernProtocolVersion);
        CHECK(meta["io.modelcontextprotocol/clientInfo"]["name"] == "tester");
        CHECK(meta["io.modelcontextprotocol/clientCapabilities"].is_object());
    }
}

TEST_CASE("mcp client: a server of the handshake era answers the probe with an error and gets initialize",
          "[mcp][client][era]") {
    asio::io_context io;
    FakeServer server;  // answers server/discover with -32601
    runOn(io, [&]() -> Task<void> {
        auto connecting = connectIn(server, mcp::ProtocolEra::automatic);
        auto client = co_await std::move(connecting);
        REQUIRE(client);
        CHECK((*client)->server().protocolVersion == mcp::kLatestProtocolVersion);
        auto tools = co_await (*client)->listTools();
        CHECK(tools);
        co_await (*client)->close();
    }());
    REQUIRE(server.frames.size() >= 3);
    CHECK(server.frames[0]["method"] == "server/discover");
    CHECK(server.frames[1]["method"] == "initialize");
    CHECK(server.peers.size() == 1);  // the same connection
    CHECK_FALSE(server.framesWith("tools/list").front()["params"].contains("_meta"));
}

TEST_CASE("mcp client: -32022 naming 2026-07-28 is corrected once, `modern` refuses a handshake-era server",
          "[mcp][client][era]") {
    asio::io_context io;
    SECTION("corrected") {
        FakeServer server;
        server.modern = true;
        server.discoverReplies.push_back(Reply{
            std::nullopt, json{{"code", -32022},
                               {"message", "Unsupported protocol version"},
                               {"data", {{"supported", {"2026-07-28"}}, {"requested", "2026-07-28"}}}}});
        runOn(io, [&]() -> Task<void> {
            auto connecting = connectIn(server, mcp::ProtocolEra::automatic);
            auto client = co_await std::move(connecting);
            REQUIRE(client);
            CHECK((*client)->server().protocolVersion == mcp::kModernProtocolVersion);
            co_await (*client)->close();
        }());
        CHECK(server.framesWith("server/discover").size() == 2);
        CHECK(server.framesWith("initialize").empty());
    }
    SECTION("refused") {
        FakeServer server;
        runOn(io, [&]() -> Task<void> {
            auto connecting = connectIn(server, mcp::ProtocolEra::modern);
            auto client = co_await std::move(connecting);
            REQUIRE_FALSE(client);
            CHECK(client.error().code == mcp::McpErrc::unsupported_version);
            CHECK(client.error().message.find("2026-07-28") != std::string::npos);
        }());
        CHECK(server.framesWith("initialize").empty());
    }
    SECTION("input_required: questions answered by the handlers, the state echoed, a new id each round") {
        FakeServer server;
        server.modern = true;
        server.onRequest = [](const json& request) {
            const json& params = request["params"];
            if (!params.contains("inputResponses")) {
                json question = {
                    {"method", "elicitation/create"},
                    {"params", {{"message", "name?"}, {"requestedSchema", {{"type", "object"}}}}}};
                return Reply::ok(json{{"resultType", "input_required"},
                                      {"inputRequests", {{"who", question}}},
                                      {"requestState", "opaque-1"}});
            }
            return Reply::ok(
                json{{"content", json::array({{{"type", "text"},
                                               {"text", params["inputResponses"]["who"].dump() + "|" +
                                                            params["requestState"].dump()}}})}});
        };
        runOn(io, [&]() -> Task<void> {
            mcp::ServerConfig config = memoryConfig();
            config.era = mcp::ProtocolEra::automatic;
            mcp::ClientOptions options;
            options.elicitation = [](json) -> Task<reagent::expected<json, mcp::RpcError>> {
                co_return json{{"action", "accept"}, {"content", {{"name", "Ada"}}}};
            };
            auto connecting = connect(server, std::move(config), std::move(options));
            auto client = co_await std::move(connecting);
            REQUIRE(client);
            auto calling = (*client)->callTool("t", json{{"x", 1}});
            auto called = co_await std::move(calling);
            REQUIRE(called);
            CHECK(called->text == R"({"action":"accept","content":{"name":"Ada"}}|"opaque-1")");
            co_await (*client)->close();
        }());
        const auto calls = server.framesWith("tools/call");
        REQUIRE(calls.size() == 2);
        CHECK(calls[0]["id"] != calls[1]["id"]);
        CHECK(calls[1]["params"]["arguments"] == json{{"x", 1}});
        CHECK(calls[1]["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"].contains(
            "elicitation"));
    }
    SECTION("a tools/list result is reused while its ttlMs lasts") {
        for (const int ttl : {60000, 0}) {
            FakeServer server;
            server.modern = true;
            server.onRequest = [ttl](const json&) {
                json page = toolsPage({"t"}, std::nullopt);
                page["ttlMs"] = ttl;
                page["cacheScope"] = "private";
                return Reply::ok(page);
            };
            runOn(io, [&]() -> Task<void> {
                auto connecting = connectIn(server, mcp::ProtocolEra::automatic);
                auto client = co_await std::move(connecting);
                REQUIRE(client);
                auto first = co_await (*client)->listTools();
                auto second = co_await (*client)->listTools();
                REQUIRE(first);
                REQUIRE(second);
                CHECK(second->size() == 1);
                co_await (*client)->close();
            }());
            INFO("ttlMs " << ttl);
            CHECK(server.framesWith("tools/list").size() == (ttl > 0 ? 1U : 2U));
        }
    }
    SECTION("a tools/call refused for its headers (-32020) goes again once, after listing the tools") {
        FakeServer server;
        server.modern = true;
        int refusals = 0;
        server.onRequest = [&refusals](const json& request) {
            if (request["method"] == "tools/list") {
                return Reply::ok(toolsPage({"t"}, std::nullopt));
            }
            if (refusals++ < 3) {
                return Reply::rpcError(-32020, "Header mismatch: Mcp-Param-Region");
            }
            return Reply::ok(json{{"content", json::array({{{"type", "text"}, {"text", "ok"}}})}});
        };
        runOn(io, [&]() -> Task<void> {
            auto connecting = connectIn(server, mcp::ProtocolEra::automatic);
            auto client = co_await std::move(connecting);
            REQUIRE(client);
            auto calling = (*client)->callTool("t", json::object());
            auto called = co_await std::move(calling);
            REQUIRE_FALSE(called);  // refused again after the one retry: the error is the server's
            CHECK(called.error().message.find("-32020") != std::string::npos);
            co_await (*client)->close();
        }());
        CHECK(server.framesWith("tools/call").size() == 2);
        CHECK(server.framesWith("tools/list").size() == 1);
    }
    SECTION("input_required: a question no handler answers, and a server that never stops asking") {
        FakeServer server;
        server.modern = true;
        server.onRequest = [](const json&) {
            return Reply::ok(
                json{{"resultType", "input_required"},
                     {"inputRequests",
                      {{"q", {{"method", "sampling/createMessage"}, {"params", json::object()}}}}}});
        };
        runOn(io, [&]() -> Task<void> {
            auto connecting = connectIn(server, mcp::ProtocolEra::automatic);
            auto client = co_await std::move(connecting);
            REQUIRE(client);
            auto calling = (*client)->callTool("t", json::object());
            auto called = co_await std::move(calling);
            REQUIRE_FALSE(called);
            CHECK(called.error().code == mcp::McpErrc::protocol_error);
            CHECK(called.error().message.find("sampling/createMessage") != std::string::npos);
            co_await (*client)->close();
        }());
        FakeServer endless;
        endless.modern = true;
        endless.onRequest = [](const json&) {
            return Reply::ok(json{{"resultType", "input_required"}, {"requestState", "again"}});
        };
        runOn(io, [&]() -> Task<void> {
            auto connecting = connectIn(endless, mcp::ProtocolEra::automatic);
            auto client = co_await std::move(connecting);
            REQUIRE(client);
            auto calling = (*client)->callTool("t", json::object());
            auto called = co_await std::move(calling);
            REQUIRE_FALSE(called);
            CHECK(called.error().message.find("10 rounds") != std::string::npos);
            co_await (*client)->close();
        }());
        CHECK(endless.framesWith("tools/call").size() == 10);
    }
}
