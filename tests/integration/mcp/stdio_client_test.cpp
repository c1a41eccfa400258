// The MCP client over stdio against server-everything (the reference server) and the fault server.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>

#include "mcp_peers.hpp"
#include "reagent/mcp/client.hpp"
#include "run_coro.hpp"
#include "temp_dir.hpp"

namespace asio = boost::asio;
namespace mcp = reagent::mcp;
using nlohmann::json;
using reagent::Task;
using reagent::test::childProcesses;
using reagent::test::runCoro;
using namespace std::chrono_literals;

namespace {

bool hasTool(const std::vector<mcp::ToolInfo>& tools, const std::string& name) {
    return std::any_of(tools.begin(), tools.end(), [&](const mcp::ToolInfo& t) { return t.name == name; });
}

int countLines(const std::string& path) {
    std::ifstream in(path);
    int lines = 0;
    std::string line;
    while (std::getline(in, line)) {
        ++lines;
    }
    return lines;
}

}  // namespace

TEST_CASE("stdio client talks to server-everything: handshake and tools and calls and content and errors",
          "[mcp][stdio]") {
    runCoro([]() -> Task<void> {
        auto client = co_await mcp::Client::connect(reagent::test::everythingStdio());
        REQUIRE(client);
        auto& c = **client;
        CHECK(c.server().protocolVersion == "2025-11-25");
        CHECK(c.server().implementation.name == "mcp-servers/everything");
        CHECK(c.server().capabilities.contains("tools"));

        auto tools = co_await c.listTools();
        REQUIRE(tools);
        REQUIRE(hasTool(*tools, "echo"));
        CHECK_FALSE(hasTool(*tools, "trigger-sampling-request"));  // only offered with the capability
        const auto echo =
            *std::find_if(tools->begin(), tools->end(), [](auto& t) { return t.name == "echo"; });
        CHECK(echo.annotations.readOnlyHint == true);
        CHECK(echo.inputSchema["properties"]["message"]["type"] == "string");

        auto echoed = co_await c.callTool("echo", json::parse(R"({"message":"hello"})"));
        REQUIRE(echoed);
        CHECK(echoed->text == "Echo: hello");
        CHECK_FALSE(echoed->isError);

        auto structured =
            co_await c.callTool("get-structured-content", json::parse(R"({"location":"New York"})"));
        REQUIRE(structured);
        CHECK(structured->structuredContent.contains("temperature"));

        auto image = co_await c.callTool("get-tiny-image", json::object());
        REQUIRE(image);
        CHECK(image->text.find("[image image/png, ") != std::string::npos);
        CHECK(image->text.find("iVBOR") == std::string::npos);  // never the base64

        auto bad = co_await c.callTool("echo", json::object());
        REQUIRE(bad);  // a tool error is a result, not a failed call
        CHECK(bad->isError);
        CHECK(bad->text.find("message") != std::string::npos);

        auto missing = co_await c.callTool("no-such-tool", json::object());
        REQUIRE(missing);
        CHECK(missing->isError);

        auto unknownMethod = co_await c.request("no/such/method");
        REQUIRE_FALSE(unknownMethod);
        CHECK(unknownMethod.error().code == mcp::McpErrc::remote_error);
        CHECK(unknownMethod.error().message.find("-32601") != std::string::npos);

        CHECK(co_await c.ping());
        co_await c.close();
        CHECK(childProcesses().empty());
        auto afterClose = co_await c.ping();
        REQUIRE_FALSE(afterClose);
        CHECK(afterClose.error().code == mcp::McpErrc::connection_closed);
    }());
}

TEST_CASE("stdio client: progress and roots and logging and sampling and elicitation with server-everything",
          "[mcp][stdio]") {
    runCoro([]() -> Task<void> {
        std::vector<mcp::LogMessage> logs;
        mcp::ClientOptions options;
        options.roots = std::vector<mcp::Root>{{"file:///tmp", "tmp"}};
        options.onLog = [&](const mcp::LogMessage& m) { logs.push_back(m); };
        json sampled;
        options.sampling = [&](json params) -> Task<reagent::expected<json, mcp::RpcError>> {
            sampled = params;
            co_return json{{"role", "assistant"},
                           {"content", {{"type", "text"}, {"text", "sampled-reply"}}},
                           {"model", "scripted"},
                           {"stopReason", "endTurn"}};
        };
        options.elicitation = [](json) -> Task<reagent::expected<json, mcp::RpcError>> {
            co_return json{{"action", "accept"}, {"content", {{"name", "Ada"}}}};
        };
        auto client = co_await mcp::Client::connect(reagent::test::everythingStdio(), options);
        REQUIRE(client);
        auto& c = **client;
        auto tools = co_await c.listTools();
        REQUIRE(tools);
        CHECK(hasTool(*tools, "trigger-sampling-request"));
        CHECK(hasTool(*tools, "trigger-elicitation-request"));

        std::vector<mcp::Progress> progress;
        mcp::CallOptions call;
        call.onProgress = [&](const mcp::Progress& p) { progress.push_back(p); };
        auto longRun = co_await c.callTool("trigger-long-running-operation",
                                           json::parse(R"({"duration":0.3,"steps":3})"), call);
        REQUIRE(longRun);
        REQUIRE(progress.size() == 3);
        CHECK(progress.back().progress == 3);
        CHECK(progress.back().total == 3);

        auto sampling = co_await c.callTool("trigger-sampling-request",
                                            json::parse(R"({"prompt":"say hi","maxTokens":20})"));
        REQUIRE(sampling);
        CHECK(sampling->text.find("sampled-reply") != std::string::npos);
        CHECK(sampled["maxTokens"] == 20);

        auto elicited = co_await c.callTool("trigger-elicitation-request", json::object());
        REQUIRE(elicited);
        CHECK_FALSE(elicited->isError);
        // The schema's defaults were filled in beside the handler's own answer.
        CHECK(elicited->text.find("Ada") != std::string::npos);
        CHECK(elicited->text.find("It was a dark and stormy night.") != std::string::npos);

        auto roots = co_await c.callTool("get-roots-list", json::object());
        REQUIRE(roots);
        CHECK(roots->text.find("file:///tmp") != std::string::npos);
        const bool rootsLogged = std::any_of(logs.begin(), logs.end(), [](const mcp::LogMessage& m) {
            return m.data.is_string() && m.data.get<std::string>().find("Roots updated") != std::string::npos;
        });
        CHECK(rootsLogged);
        co_await c.close();
    }());
}

TEST_CASE("stdio client: a call that outlives its timeout or is cancelled ends at once - the session goes on",
          "[mcp][stdio]") {
    runCoro([]() -> Task<void> {
        auto client = co_await mcp::Client::connect(reagent::test::faultServer());
        REQUIRE(client);
        auto& c = **client;
        mcp::CallOptions quick;
        quick.timeout = 150ms;
        const auto start = std::chrono::steady_clock::now();
        auto hung = co_await c.callTool("hang", json::object(), quick);
        REQUIRE_FALSE(hung);
        CHECK(hung.error().code == mcp::McpErrc::timeout);
        CHECK(reagent::test::elapsedMs(start) < 1000);

        asio::cancellation_signal signal;
        auto executor = co_await asio::this_coro::executor;
        asio::steady_timer trigger(executor, 100ms);
        trigger.async_wait(
            [&](boost::system::error_code) { signal.emit(asio::cancellation_type::terminal); });
        auto task = c.callTool("hang", json::object());
        const auto cancelStart = std::chrono::steady_clock::now();
        auto cancelled = co_await asio::co_spawn(
            executor, std::move(task), asio::bind_cancellation_slot(signal.slot(), asio::use_awaitable));
        REQUIRE_FALSE(cancelled);
        CHECK(cancelled.error().code == mcp::McpErrc::cancelled);
        CHECK(reagent::test::elapsedMs(cancelStart) < 1000);
        auto echoed = co_await c.callTool("echo", json::parse(R"({"text":"still here"})"));
        REQUIRE(echoed);
        CHECK(echoed->text == "still here");
        co_await c.close();
    }());
}

TEST_CASE(
    "stdio client: a server that dies mid-call is restarted, only read-only or idempotent calls are resent",
    "[mcp][stdio][faults]") {
    reagent::test::TempDir dir;
    const std::string starts = (dir.path / "starts").string();
    runCoro([&]() -> Task<void> {
        std::vector<std::string> problems;
        mcp::ClientOptions options;
        options.onProblem = [&](const mcp::McpError& e) { problems.push_back(e.message); };
        auto config = reagent::test::faultServer({"--state", starts});
        config.maxReconnects = 2;
        auto client = co_await mcp::Client::connect(config, options);
        REQUIRE(client);
        auto& c = **client;
        REQUIRE(co_await c.listTools());

        // readOnlyHint: the call that killed the first process is sent again to the second, and succeeds.
        auto survived = co_await c.callTool("crash_once", json::object());
        REQUIRE(survived);
        CHECK(survived->text == "survived on start 2");
        CHECK(countLines(starts) == 2);

        // No hint: the call is not resent; the caller learns the connection dropped, with the exit status.
        auto unsafe = co_await c.callTool("unsafe_crash", json::object());
        REQUIRE_FALSE(unsafe);
        CHECK(unsafe.error().code == mcp::McpErrc::connection_closed);
        CHECK(unsafe.error().message.find("exited with status 7") != std::string::npos);
        auto after = co_await c.callTool("echo", json::parse(R"({"text":"back"})"));
        REQUIRE(after);
        CHECK(after->text == "back");
        CHECK(countLines(starts) == 3);
        CHECK_FALSE(problems.empty());
        co_await c.close();
        CHECK(childProcesses().empty());
    }());
}

TEST_CASE("stdio client gives up after maxReconnects restarts in a row and says why",
          "[mcp][stdio][faults]") {
    reagent::test::TempDir dir;
    const std::string starts = (dir.path / "starts").string();
    runCoro([&]() -> Task<void> {
        auto config = reagent::test::faultServer({"--state", starts});
        config.maxReconnects = 1;
        auto client = co_await mcp::Client::connect(config);
        REQUIRE(client);
        auto& c = **client;
        REQUIRE(co_await c.listTools());
        auto first = co_await c.callTool("crash", json::object());  // idempotent: resent once, crashes again
        REQUIRE_FALSE(first);
        CHECK(first.error().code == mcp::McpErrc::connection_closed);
        auto given = co_await c.callTool("echo", json::parse(R"({"text":"x"})"));
        REQUIRE_FALSE(given);
        CHECK(given.error().message.find("gave up after 1 reconnection") != std::string::npos);
        CHECK_FALSE(c.connected());
        CHECK(countLines(starts) == 2);
        co_await c.close();
        CHECK(childProcesses().empty());
    }());
}

TEST_CASE("stdio client: malformed and oversized frames and stderr flood", "[mcp][stdio][faults]") {
    runCoro([]() -> Task<void> {
        std::vector<std::string> problems;
        mcp::ClientOptions options;
        options.onProblem = [&](const mcp::McpError& e) { problems.push_back(e.describe()); };
        auto config = reagent::test::faultServer({"--garbage-first"});
        config.limits.maxMessageBytes = 64 * 1024;
        config.stderrLogBytes = 4096;
        auto client = co_await mcp::Client::connect(config, options);
        REQUIRE(client);
        auto& c = **client;
        auto garbage = co_await c.callTool("garbage", json::object());
        REQUIRE(garbage);
        CHECK(garbage->text == "after garbage");
        REQUIRE(problems.size() >= 2);
        CHECK(problems.front().find("malformed_message") != std::string::npos);

        auto flood = co_await c.callTool("flood", json::parse(R"({"bytes":1000000})"));
        REQUIRE(flood);
        CHECK(c.diagnostics().size() <= 4096);
        CHECK(c.diagnostics().find("flood end") != std::string::npos);

        auto huge = co_await c.callTool("huge", json::parse(R"({"bytes":100000})"));
        REQUIRE_FALSE(huge);
        CHECK(huge.error().code == mcp::McpErrc::connection_closed);
        CHECK(huge.error().message.find("longer than 65536 bytes") != std::string::npos);
        // The server was restarted.
        auto echoed = co_await c.callTool("echo", json::parse(R"({"text":"ok"})"));
        REQUIRE(echoed);
        co_await c.close();
    }());
}

TEST_CASE("stdio client: a server writing stderr as it answers leaves every answer intact",
          "[mcp][stdio][faults]") {
    // stderr and stdout often become readable together: what stderr holds is read into a buffer of its
    // own, never into the one a completed stdout read has filled and its handler has yet to take.
    runCoro([]() -> Task<void> {
        auto config = reagent::test::faultServer();
        config.requestTimeout = std::chrono::seconds(5);  // a lost answer fails the call, not the test run
        auto client = co_await mcp::Client::connect(config);
        REQUIRE(client);
        auto& c = **client;
        int intact = 0;
        for (int n = 0; n < 400; ++n) {
            json arguments = json::object();
            arguments["n"] = n;
            auto answer = co_await c.callTool("chatty", std::move(arguments));
            std::string expected;
            for (int i = 0; i < 500; ++i) {
                expected += std::to_string(n) + " ";
            }
            if (!answer || answer->text != expected) {
                break;  // the first broken answer is enough
            }
            ++intact;
        }
        CHECK(intact == 400);
        CHECK(c.diagnostics().find("chatty 399") != std::string::npos);
        co_await c.close();
    }());
}

TEST_CASE("stdio client reports servers that cannot start and naming them and with their stderr",
          "[mcp][stdio][faults]") {
    runCoro([]() -> Task<void> {
        mcp::ServerConfig missing;
        missing.name = "nowhere";
        missing.command = "reagent-no-such-mcp-server";
        auto notFound = co_await mcp::Client::connect(missing);
        REQUIRE_FALSE(notFound);
        CHECK(notFound.error().code == mcp::McpErrc::connect_failed);
        CHECK(notFound.error().message.find("'nowhere'") != std::string::npos);
        CHECK(notFound.error().message.find("not found on PATH") != std::string::npos);

        const auto refusingConfig = reagent::test::faultServer({"--fail-start"});
        auto refusing = co_await mcp::Client::connect(refusingConfig);
        REQUIRE_FALSE(refusing);
        CHECK(refusing.error().code == mcp::McpErrc::connect_failed);
        CHECK(refusing.error().message.find("exited with status 3") != std::string::npos);
        CHECK(refusing.error().message.find("refusing to start") != std::string::npos);

        mcp::ServerConfig bad = reagent::test::faultServer();
        bad.name = "bad name";
        auto invalid = co_await mcp::Client::connect(bad);
        REQUIRE_FALSE(invalid);
        CHECK(invalid.error().code == mcp::McpErrc::invalid_config);
        CHECK(childProcesses().empty());
    }());
}

TEST_CASE("stdio client: a server that ignores stdin's close and SIGTERM is killed - no zombie and no orphan",
          "[mcp][stdio][faults]") {
    runCoro([]() -> Task<void> {
        const auto stubborn = reagent::test::faultServer({"--ignore-stdin-close"});
        auto client = co_await mcp::Client::connect(stubborn);
        REQUIRE(client);
        auto pid = co_await (*client)->callTool("pid", json::object());
        REQUIRE(pid);
        const auto start = std::chrono::steady_clock::now();
        co_await (*client)->close();
        CHECK(reagent::test::elapsedMs(start) < 6000);
        CHECK(childProcesses().empty());
        CHECK_FALSE(std::filesystem::exists("/proc/" + pid->text));
    }());
}

TEST_CASE("stdio client dropped without close kills and reaps its server", "[mcp][stdio][faults]") {
    std::string pid;
    runCoro([&]() -> Task<void> {
        auto client = co_await mcp::Client::connect(reagent::test::faultServer());
        REQUIRE(client);
        auto answer = co_await (*client)->callTool("pid", json::object());
        REQUIRE(answer);
        pid = answer->text;
    }());
    CHECK(childProcesses().empty());
    CHECK_FALSE(std::filesystem::exists("/proc/" + pid));
}

TEST_CASE("stdio client: an event loop destroyed while a call waits frees the call and kills the server",
          "[mcp][stdio][faults]") {
    // The waiting call is owned by no pending operation of the loop (the reader resumes it directly); the
    // loop's shutdown must still destroy it, with the client it holds (ASan reports a leak otherwise).
    bool waiting = false;
    {
        boost::asio::io_context io;
        boost::asio::co_spawn(
            io,
            [&waiting]() -> Task<void> {
                auto client = co_await mcp::Client::connect(reagent::test::faultServer());
                REQUIRE(client);
                waiting = true;
                auto hung = co_await (*client)->callTool("hang", json::object());
                FAIL("the hung call returned");
            },
            boost::asio::detached);
        for (int i = 0; i < 500 && !waiting; ++i) {
            io.run_for(10ms);
        }
        io.run_for(100ms);  // the call is out and waits
        REQUIRE(waiting);
    }
    CHECK(childProcesses().empty());
}

TEST_CASE("stdio client: env is merged over the parent's environment and cwd is honoured", "[mcp][stdio]") {
    reagent::test::TempDir dir;
    runCoro([&]() -> Task<void> {
        auto config = reagent::test::everythingStdio();
        config.env = {{"REAGENT_MCP_TEST_VARIABLE", "merged-value"}};
        config.cwd = dir.path.string();
        auto client = co_await mcp::Client::connect(config);
        REQUIRE(client);
        auto env = co_await (*client)->callTool("get-env", json::object());
        REQUIRE(env);
        CHECK(env->text.find("merged-value") != std::string::npos);
        CHECK(env->text.find("\"PATH\"") != std::string::npos);  // the parent's variables are kept
        co_await (*client)->close();
    }());
}

TEST_CASE("stdio client with server-filesystem: structured results and the server's own access errors",
          "[mcp][stdio]") {
    reagent::test::TempDir dir;
    const std::string root = std::filesystem::canonical(dir.path).string();
    std::ofstream(root + "/notes.txt") << "line one\nline two\n";
    runCoro([&]() -> Task<void> {
        auto client = co_await mcp::Client::connect(reagent::test::filesystemStdio(root));
        REQUIRE(client);
        auto& c = **client;
        CHECK(c.server().implementation.name == "secure-filesystem-server");
        auto tools = co_await c.listTools();
        REQUIRE(tools);
        CHECK(hasTool(*tools, "read_text_file"));
        const auto readArgs = json{{"path", root + "/notes.txt"}};
        auto read = co_await c.callTool("read_text_file", readArgs);
        REQUIRE(read);
        CHECK(read->text == "line one\nline two\n");
        CHECK(read->structuredContent["content"] == "line one\nline two\n");
        const auto listArgs = json{{"path", root}};
        auto listed = co_await c.callTool("list_directory", listArgs);
        REQUIRE(listed);
        CHECK(listed->text.find("[FILE] notes.txt") != std::string::npos);
        const auto outsideArgs = json{{"path", "/etc/passwd"}};
        auto outside = co_await c.callTool("read_text_file", outsideArgs);
        REQUIRE(outside);
        CHECK(outside->isError);
        CHECK(outside->text.find("Access denied") != std::string::npos);
        co_await c.close();
    }());
}

TEST_CASE("stdio client survives a server's deeply nested log notification and structuredContent",
          "[mcp][stdio][faults]") {
    runCoro([]() -> Task<void> {
        std::vector<std::string> problems;
        int logs = 0;
        mcp::ClientOptions options;
        options.onProblem = [&](const mcp::McpError& e) { problems.push_back(e.describe()); };
        options.onLog = [&](const mcp::LogMessage&) { ++logs; };
        auto config = reagent::test::faultServer();
        config.limits.maxMessageBytes = 4 * 1024 * 1024;
        auto client = co_await mcp::Client::connect(config, options);
        REQUIRE(client);
        auto& c = **client;

        // A log notification nested 100,000 deep is refused as a malformed frame, not walked.
        auto logged = co_await c.callTool("deep_log", json::parse(R"({"depth":100000})"));
        REQUIRE(logged);
        CHECK(logged->text == "logged");
        CHECK(logs == 0);
        REQUIRE_FALSE(problems.empty());
        CHECK(problems.back().find("deeper than 512") != std::string::npos);

        // An answer nested 300,000 deep ends its call at once with the reason.
        auto structured = co_await c.callTool("deep_structured", json::parse(R"({"depth":300000})"));
        REQUIRE_FALSE(structured);
        CHECK(structured.error().message.find("deeper than 512") != std::string::npos);

        // At the limit's side of the line, the answer is read.
        auto shallow = co_await c.callTool("deep_structured", json::parse(R"({"depth":500})"));
        REQUIRE(shallow);

        auto echoed = co_await c.callTool("echo", json::parse(R"({"text":"still here"})"));
        REQUIRE(echoed);
        CHECK(echoed->text == "still here");
        co_await c.close();
    }());
}
