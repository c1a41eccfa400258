// reagent's MCP server over streamable HTTP (serveHttp, in this process on 127.0.0.1) driven by reagent's
// own client and by raw HTTP requests: sessions, progress, cancellation, the GET stream, resumption,
// DELETE, every refusal (each followed by a request that still works), expiry and shutdown.

#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "reagent/mcp/client.hpp"
#include "reagent/mcp/remote_transports.hpp"
#include "reagent/mcp/serve_http.hpp"
#include "reagent/tools/tool_builder.hpp"
#include "run_coro.hpp"

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace mcp = reagent::mcp;
namespace tools = reagent::tools;
using nlohmann::json;
using reagent::Task;
using reagent::test::runCoro;
using reagent::test::sleepFor;
using namespace std::chrono_literals;

namespace {

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

// What the tools saw: the slow tool's handler ends cancelled or finished.
struct Witness {
    int slowCancelled = 0;
    int slowFinished = 0;
};

struct SlowGuard {
    std::shared_ptr<Witness> witness;
    bool finished = false;
    ~SlowGuard() {
        if (!finished) {
            ++witness->slowCancelled;
        }
    }
};

Task<tools::ToolResult> slow(json args, tools::ToolContext context, std::shared_ptr<Witness> witness) {
    SlowGuard guard{witness};
    asio::steady_timer timer(context.executor);
    const int steps = args["steps"].get<int>();
    for (int i = 1; i <= steps; ++i) {
        timer.expires_after(std::chrono::milliseconds(args.value("delayMs", 10)));
        co_await timer.async_wait(asio::use_awaitable);
        context.reportProgress(tools::ToolProgress{static_cast<double>(i), static_cast<double>(steps), ""});
    }
    guard.finished = true;
    ++witness->slowFinished;
    co_return "done " + std::to_string(steps);
}

void add(tools::ToolRegistry& registry, tools::ToolBuilder& builder) {
    auto tool = builder.build();
    REQUIRE(tool);
    REQUIRE(registry.add(std::move(*tool)));
}

struct Fixture {
    std::shared_ptr<tools::ToolRegistry> registry = std::make_shared<tools::ToolRegistry>();
    std::shared_ptr<Witness> witness = std::make_shared<Witness>();
    std::shared_ptr<std::optional<mcp::Server>> server = std::make_shared<std::optional<mcp::Server>>();

    Fixture() {
        using tools::ParamOptions;
        auto echo = tools::ToolBuilder::create("echo");
        echo.description("Returns its message")
            .param("message", "string", "the text", ParamOptions{.required = true})
            .handler([](json args, tools::ToolContext) -> Task<tools::ToolResult> {
                co_return args["message"].get<std::string>();
            });
        add(*registry, echo);
        auto slowTool = tools::ToolBuilder::create("slow");
        slowTool.description("Counts steps with progress")
            .param("steps", "integer", "how many", ParamOptions{.required = true})
            .param("delayMs", "integer", "pause per step", ParamOptions{.defaultValue = 10})
            .handler([w = witness](json args, tools::ToolContext context) {
                return slow(std::move(args), std::move(context), w);
            });
        add(*registry, slowTool);
        std::weak_ptr<std::optional<mcp::Server>> weak = server;
        auto grow = tools::ToolBuilder::create("grow");
        grow.description("Registers a tool and logs")
            .param("name", "string", "its name", ParamOptions{.required = true})
            .handler([weak](json args, tools::ToolContext) -> Task<tools::ToolResult> {
                auto owner = weak.lock();
                auto builder = tools::ToolBuilder::create(args["name"].get<std::string>());
                builder.description("new").handler([](json, tools::ToolContext) -> Task<tools::ToolResult> {
                    co_return std::string("new");
                });
                auto tool = builder.build();
                (void)(*owner)->registry()->add(std::move(*tool));
                (*owner)->log(mcp::LogLevel::warning, "grown", "test");
                co_return std::string("grown");
            });
        add(*registry, grow);
        mcp::ServerOptions options;
        options.info = mcp::Implementation{"http-test-server", "1.0.0", {}};
        server->emplace(registry, options);
    }
};

// serveHttp running on this io_context until `stop`.
struct Running {
    std::shared_ptr<asio::cancellation_signal> stop = std::make_shared<asio::cancellation_signal>();
    std::shared_ptr<std::optional<reagent::expected<void, mcp::McpError>>> result =
        std::make_shared<std::optional<reagent::expected<void, mcp::McpError>>>();
    std::uint16_t port = 0;

    [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port) + "/mcp"; }
};

Task<Running> start(const mcp::Server& server, mcp::HttpServeOptions options) {
    auto executor = co_await asio::this_coro::executor;
    Running running;
    auto port = std::make_shared<std::uint16_t>(0);
    options.onListening = [port](std::uint16_t p) { *port = p; };
    auto result = running.result;
    auto done = [result](std::exception_ptr error, reagent::expected<void, mcp::McpError> served) {
        if (error) {
            *result = reagent::unexpected(mcp::McpError{mcp::McpErrc::protocol_error, "threw"});
        } else {
            *result = std::move(served);
        }
    };
    asio::co_spawn(executor, mcp::serveHttp(server, options),
                   asio::bind_cancellation_slot(running.stop->slot(), std::move(done)));
    for (int i = 0; i < 500 && *port == 0 && !*result; ++i) {
        co_await sleepFor(2ms);
    }
    REQUIRE(*port != 0);
    running.port = *port;
    co_return running;
}

// Cancels the server and waits (up to 5 s) for serveHttp to return.
Task<void> stop(Running running) {
    running.stop->emit(asio::cancellation_type::terminal);
    for (int i = 0; i < 500 && !*running.result; ++i) {
        co_await sleepFor(10ms);
    }
    REQUIRE(running.result->has_value());
    CHECK(**running.result);
}

mcp::ServerConfig httpConfig(const Running& running) {
    mcp::ServerConfig config;
    config.name = "http";
    config.transport = mcp::TransportKind::streamable_http;
    config.url = running.url();
    config.requestTimeout = 10s;
    config.maxReconnects = 0;
    config.era = mcp::ProtocolEra::legacy;  // the 2025 session; 2026-07-28 is tested on its own
    return config;
}

struct Raw {
    unsigned status = 0;
    std::map<std::string, std::string> headers;
    std::string body;
    [[nodiscard]] json error() const { return json::parse(body, nullptr, false)["error"]; }
};

using Headers = std::map<std::string, std::string>;

const Headers kAccept = {{"Accept", "application/json, text/event-stream"},
                         {"Content-Type", "application/json"}};

Headers with(Headers headers, const std::string& name, const std::string& value) {
    headers[name] = value;
    return headers;
}

// One request on a fresh connection; the whole reply (an event stream that ends is read whole).
Task<Raw> raw(std::uint16_t port, bhttp::verb method, Headers headers, std::string body) {
    auto executor = co_await asio::this_coro::executor;
    beast::tcp_stream stream(executor);
    stream.expires_after(10s);
    const asio::ip::tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), port);
    auto [connected] = co_await stream.async_connect(endpoint, kTuple);
    REQUIRE_FALSE(connected);
    bhttp::request<bhttp::string_body> request{method, "/mcp", 11};
    request.set(bhttp::field::host, "127.0.0.1:" + std::to_string(port));
    for (const auto& [name, value] : headers) {
        request.set(name, value);
    }
    request.body() = std::move(body);
    request.prepare_payload();
    auto [written, n] = co_await bhttp::async_write(stream, request, kTuple);
    REQUIRE_FALSE(written);
    beast::flat_buffer buffer;
    bhttp::response_parser<bhttp::string_body> parser;
    parser.body_limit(64U << 20U);
    auto [read, m] = co_await bhttp::async_read(stream, buffer, parser, kTuple);
    (void)n;
    (void)m;
    Raw reply;
    if (read) {
        co_return reply;
    }
    reply.status = parser.get().result_int();
    for (const auto& field : parser.get()) {
        reply.headers[std::string(field.name_string())] = std::string(field.value());
    }
    reply.body = parser.get().body();
    co_return reply;
}

std::string initializeBody(int id = 1, const std::string& version = "2025-11-25") {
    return json{{"jsonrpc", "2.0"},
                {"id", id},
                {"method", "initialize"},
                {"params",
                 {{"protocolVersion", version},
                  {"capabilities", json::object()},
                  {"clientInfo", {{"name", "raw"}, {"version", "1"}}}}}}
        .dump();
}

std::string request(int id, const std::string& method, json params = json::object()) {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}}.dump();
}

// Opens a session with a raw initialize (of `version`); its id.
Task<std::string> openSession(std::uint16_t port, std::string version = "2025-11-25") {
    auto init = raw(port, bhttp::verb::post, kAccept, initializeBody(1, version));
    auto reply = co_await std::move(init);
    REQUIRE(reply.status == 200);
    REQUIRE(reply.headers.contains("Mcp-Session-Id"));
    CHECK(reply.headers["Mcp-Session-Id"].size() == 32);
    co_return reply.headers["Mcp-Session-Id"];
}

// A ping in `session` answers 200 with an empty result: the server still serves.
Task<void> stillServes(std::uint16_t port, std::string session) {
    auto pingCall =
        raw(port, bhttp::verb::post, with(kAccept, "Mcp-Session-Id", session), request(99, "ping"));
    auto ping = co_await std::move(pingCall);
    CHECK(ping.status == 200);
    CHECK(ping.body.find(R"("result":{})") != std::string::npos);
}

}  // namespace

TEST_CASE("mcp server over http: reagent's client lists, calls, gets progress and ends the session",
          "[mcp][server][http]") {
    Fixture fixture;
    runCoro([](Fixture& f) -> Task<void> {
        auto startup = start(**f.server, mcp::HttpServeOptions{});
        auto running = co_await std::move(startup);
        auto connected = co_await mcp::connectAny(httpConfig(running));
        REQUIRE(connected);
        auto client = *connected;
        CHECK(client->server().protocolVersion == "2025-11-25");
        CHECK(client->server().implementation.name == "http-test-server");
        auto tools = co_await client->listTools();
        REQUIRE(tools);
        CHECK(tools->size() == 3);
        auto echoCall = client->callTool("echo", json{{"message", "héllo"}});
        auto echoed = co_await std::move(echoCall);
        REQUIRE(echoed);
        CHECK(echoed->text == "héllo");

        std::vector<mcp::Progress> reports;
        mcp::CallOptions options;
        options.onProgress = [&reports](const mcp::Progress& p) { reports.push_back(p); };
        auto slowCall = client->callTool("slow", json{{"steps", 3}, {"delayMs", 5}}, options);
        auto slowed = co_await std::move(slowCall);
        REQUIRE(slowed);
        CHECK(slowed->text == "done 3");
        REQUIRE(reports.size() == 3);
        CHECK(reports[2].progress == 3);

        // Concurrent calls on one session, each on its own POST stream: each answer to its caller.
        auto executor = co_await asio::this_coro::executor;
        std::vector<std::string> answers(20);
        int done = 0;
        for (int i = 0; i < 20; ++i) {
            auto call = [](std::shared_ptr<mcp::Client> c, int n, std::string* out,
                           int* count) -> Task<void> {
                auto rCall = c->callTool("slow", json{{"steps", 2}, {"delayMs", 5 + n % 3}});
                auto r = co_await std::move(rCall);
                auto eCall = c->callTool("echo", json{{"message", std::to_string(n)}});
                auto e = co_await std::move(eCall);
                *out = (r ? r->text : r.error().message) + "/" + (e ? e->text : e.error().message);
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
        co_await client->close();  // DELETE
        auto stopping = stop(running);
        co_await std::move(stopping);
    }(fixture));
}

TEST_CASE("mcp server over http: cancellation, list_changed and log lines on the GET stream",
          "[mcp][server][http]") {
    Fixture fixture;
    runCoro([](Fixture& f) -> Task<void> {
        auto startup = start(**f.server, mcp::HttpServeOptions{});
        auto running = co_await std::move(startup);
        int changes = 0;
        std::vector<mcp::LogMessage> logs;
        mcp::ClientOptions clientOptions;
        clientOptions.onToolsChanged = [&changes] { ++changes; };
        clientOptions.onLog = [&logs](const mcp::LogMessage& m) { logs.push_back(m); };
        auto connecting = mcp::connectAny(httpConfig(running), clientOptions);
        auto connected = co_await std::move(connecting);
        REQUIRE(connected);
        auto client = *connected;

        mcp::CallOptions options;
        options.timeout = 200ms;  // the client sends notifications/cancelled
        auto slowCall = client->callTool("slow", json{{"steps", 500}, {"delayMs", 20}}, options);
        auto slowed = co_await std::move(slowCall);
        REQUIRE_FALSE(slowed);
        CHECK(slowed.error().code == mcp::McpErrc::timeout);
        for (int i = 0; i < 100 && f.witness->slowCancelled == 0; ++i) {
            co_await sleepFor(10ms);
        }
        CHECK(f.witness->slowCancelled == 1);
        CHECK(f.witness->slowFinished == 0);

        co_await sleepFor(100ms);  // the client opens its GET stream after initialized
        auto growCall = client->callTool("grow", json{{"name", "fresh"}});
        auto grown = co_await std::move(growCall);
        REQUIRE(grown);
        for (int i = 0; i < 200 && (changes == 0 || logs.empty()); ++i) {
            co_await sleepFor(10ms);
        }
        CHECK(changes == 1);
        REQUIRE(logs.size() == 1);
        CHECK(logs[0].data == "grown");
        auto tools = co_await client->listTools();
        REQUIRE(tools);
        CHECK(tools->size() == 4);
        co_await client->close();
        auto stopping = stop(running);
        co_await std::move(stopping);
    }(fixture));
}

TEST_CASE("mcp server over http: JSON replies", "[mcp][server][http]") {
    Fixture fixture;
    runCoro([](Fixture& f) -> Task<void> {
        mcp::HttpServeOptions options;
        options.replyMode = mcp::HttpReplyMode::json;
        auto startup = start(**f.server, options);
        auto running = co_await std::move(startup);
        auto session = co_await openSession(running.port);
        auto slowCall = raw(running.port, bhttp::verb::post, with(kAccept, "Mcp-Session-Id", session),
                            request(3, "tools/call", json{{"name", "slow"}, {"arguments", {{"steps", 2}}}}));
        auto slow = co_await std::move(slowCall);
        CHECK(slow.status == 200);
        CHECK(slow.headers["Content-Type"] == "application/json");
        const auto reply = json::parse(slow.body);
        REQUIRE(reply.is_object());
        CHECK(reply["result"]["content"][0]["text"] == "done 2");

        // This session agreed on 2025-11-25, which has no batches: refused on the POST itself.
        auto batchCall = raw(running.port, bhttp::verb::post, with(kAccept, "Mcp-Session-Id", session),
                             "[" + request(4, "ping") + "," + request(5, "ping") + "]");
        auto batch = co_await std::move(batchCall);
        CHECK(batch.status == 400);
        CHECK_THAT(batch.body, Catch::Contains("no JSON-RPC batches"));

        auto connected = co_await mcp::connectAny(httpConfig(running));
        REQUIRE(connected);
        auto echoCall = (*connected)->callTool("echo", json{{"message", "json"}});
        auto echoed = co_await std::move(echoCall);
        REQUIRE(echoed);
        CHECK(echoed->text == "json");
        co_await (*connected)->close();
        auto stopping = stop(running);
        co_await std::move(stopping);
    }(fixture));
}

TEST_CASE("mcp server over http: every refusal answers with a JSON-RPC error and serving goes on",
          "[mcp][server][http]") {
    Fixture fixture;
    runCoro([](Fixture& f) -> Task<void> {
        mcp::HttpServeOptions options;
        options.maxBodyBytes = 4096;
        options.maxSessions = 3;
        auto startup = start(**f.server, options);
        auto running = co_await std::move(startup);
        const auto port = running.port;
        auto session = co_await openSession(port);
        const Headers inSession = with(kAccept, "Mcp-Session-Id", session);
        struct Case {
            std::string name;
            bhttp::verb method;
            Headers headers;
            std::string body;
            unsigned status;
            int code;
            std::string says;
        };
        const std::vector<Case> cases = {
            {"malformed JSON", bhttp::verb::post, inSession, "{oops", 400, -32700, "not valid JSON"},
            {"oversized body", bhttp::verb::post, inSession, std::string(5000, ' '), 413, -32000,
             "4096 bytes"},
            {"unknown session", bhttp::verb::post, with(kAccept, "Mcp-Session-Id", "0123"),
             request(2, "ping"), 404, -32001, "does not exist"},
            {"no session", bhttp::verb::post, kAccept, request(2, "ping"), 400, -32000, "no Mcp-Session-Id"},
            {"wrong Accept", bhttp::verb::post, with(inSession, "Accept", "application/json"),
             request(2, "ping"), 406, -32000, "Not Acceptable"},
            {"bad protocol version", bhttp::verb::post, with(inSession, "MCP-Protocol-Version", "1999-01-01"),
             request(2, "ping"), 400, -32602, "1999-01-01"},
            {"evil Host", bhttp::verb::post, with(kAccept, "Host", "evil.example.com"), initializeBody(), 403,
             -32000, "evil.example.com"},
            {"evil Origin", bhttp::verb::post, with(kAccept, "Origin", "http://evil.example.com"),
             initializeBody(), 403, -32000, "origin"},
            {"other method", bhttp::verb::put, inSession, "", 405, -32000, "Method Not Allowed"},
            {"GET without event streams", bhttp::verb::get, with(inSession, "Accept", "application/json"), "",
             406, -32000, "text/event-stream"},
            {"DELETE of an unknown session", bhttp::verb::delete_, with(kAccept, "Mcp-Session-Id", "nope"),
             "", 404, -32001, "nope"},
        };
        for (const auto& c : cases) {
            INFO(c.name);
            auto replyCall = raw(port, c.method, c.headers, c.body);
            auto reply = co_await std::move(replyCall);
            CHECK(reply.status == c.status);
            CHECK(reply.error()["code"] == c.code);
            CHECK(reply.error()["message"].get<std::string>().find(c.says) != std::string::npos);
            if (c.status == 405) {
                CHECK(reply.headers["Allow"] == "GET, POST, DELETE");
            }
            auto serving = stillServes(port, session);
            co_await std::move(serving);
        }
        // An unknown method is JSON-RPC's business: 200 with -32601 in the stream.
        auto unknownCall = raw(port, bhttp::verb::post, inSession, request(5, "nope/nope"));
        auto unknown = co_await std::move(unknownCall);
        CHECK(unknown.status == 200);
        CHECK(unknown.body.find("-32601") != std::string::npos);
        // A notification is accepted with 202 and no body.
        auto notifyCall = raw(port, bhttp::verb::post, inSession,
                              json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump());
        auto notified = co_await std::move(notifyCall);
        CHECK(notified.status == 202);
        CHECK(notified.body.empty());
        // Local hosts and origins are welcome.
        auto localCall =
            raw(port, bhttp::verb::post,
                with(with(inSession, "Host", "localhost:1234"), "Origin", "http://localhost:5173"),
                request(6, "ping"));
        auto local = co_await std::move(localCall);
        CHECK(local.status == 200);
        // Too many sessions: 3 allowed, one is open.
        (void)co_await openSession(port);
        (void)co_await openSession(port);
        auto fourthCall = raw(port, bhttp::verb::post, kAccept, initializeBody());
        auto fourth = co_await std::move(fourthCall);
        CHECK(fourth.status == 503);
        CHECK(fourth.error()["message"].get<std::string>().find("limit") != std::string::npos);
        // DELETE ends the session: later requests with it get 404, and a new session fits.
        auto deleteCall = raw(port, bhttp::verb::delete_, inSession, "");
        auto deleted = co_await std::move(deleteCall);
        CHECK(deleted.status == 200);
        auto afterCall = raw(port, bhttp::verb::post, inSession, request(7, "ping"));
        auto after = co_await std::move(afterCall);
        CHECK(after.status == 404);
        auto fresh = co_await openSession(port);
        auto serving = stillServes(port, fresh);
        co_await std::move(serving);
        auto stopping = stop(running);
        co_await std::move(stopping);
    }(fixture));
}

// The JSON-RPC messages of a reply: its body as JSON, or each `data:` line of an event stream.
std::vector<json> messagesOf(const Raw& reply) {
    std::vector<json> out;
    if (reply.headers.count("Content-Type") > 0 && reply.headers.at("Content-Type") == "application/json") {
        out.push_back(json::parse(reply.body, nullptr, false));
        return out;
    }
    std::size_t at = 0;
    while ((at = reply.body.find("data: ", at)) != std::string::npos) {
        const std::size_t end = reply.body.find('\n', at);
        const auto data = json::parse(reply.body.substr(at + 6, end - at - 6), nullptr, false);
        if (!data.is_discarded()) {
            out.push_back(data);
        }
        at = end;
    }
    return out;
}

TEST_CASE("mcp server over http: a request with scalar params, and batches, get their answers",
          "[mcp][server][http]") {
    Fixture fixture;
    for (const auto mode : {mcp::HttpReplyMode::event_stream, mcp::HttpReplyMode::json}) {
        const bool inJson = mode == mcp::HttpReplyMode::json;
        INFO((inJson ? "JSON replies" : "event-stream replies"));
        runCoro([](Fixture& f, mcp::HttpReplyMode replyMode, bool jsonReplies) -> Task<void> {
            mcp::HttpServeOptions options;
            options.replyMode = replyMode;
            auto startup = start(**f.server, options);
            auto running = co_await std::move(startup);
            const auto port = running.port;
            const auto started = std::chrono::steady_clock::now();

            // params must be an object or an array: -32600 for request 7, and the POST ends.
            auto session = co_await openSession(port);
            auto scalarCall = raw(port, bhttp::verb::post, with(kAccept, "Mcp-Session-Id", session),
                                  R"({"jsonrpc":"2.0","id":7,"method":"tools/list","params":5})");
            auto scalar = co_await std::move(scalarCall);
            CHECK(scalar.status == 200);
            auto answers = messagesOf(scalar);
            REQUIRE(answers.size() == 1);
            CHECK(answers[0]["id"] == 7);
            CHECK(answers[0]["error"]["code"] == -32600);
            CHECK_THAT(answers[0]["error"]["message"].get<std::string>(), Catch::Contains("params"));

            // 2025-03-26 has batches: two requests (one of them a call that takes a while), two answers.
            auto old = co_await openSession(port, "2025-03-26");
            const std::string twoRequests =
                "[" + request(1, "ping") + "," +
                request(2, "tools/call", json{{"name", "slow"}, {"arguments", {{"steps", 2}}}}) + "]";
            auto batchCall =
                raw(port, bhttp::verb::post,
                    with(with(kAccept, "Mcp-Session-Id", old), "MCP-Protocol-Version", "2025-03-26"),
                    twoRequests);
            auto batch = co_await std::move(batchCall);
            CHECK(batch.status == 200);
            std::vector<json> responses;
            for (auto& message : messagesOf(batch)) {
                if (message.is_array()) {
                    for (auto& member : message) {
                        responses.push_back(member);
                    }
                } else if (message.contains("id")) {
                    responses.push_back(message);
                }
            }
            REQUIRE(responses.size() == 2);
            if (jsonReplies) {
                CHECK(messagesOf(batch)[0].is_array());  // one body: the array of the responses
            }
            std::set<int> ids;
            for (const auto& response : responses) {
                ids.insert(response["id"].get<int>());
            }
            CHECK(ids == std::set<int>{1, 2});

            // A batch one member of which is malformed: refused whole, and answered.
            const std::string broken =
                "[" + request(3, "ping") + R"(,{"jsonrpc":"2.0","id":4,"method":"ping","params":5}])";
            auto brokenCall =
                raw(port, bhttp::verb::post,
                    with(with(kAccept, "Mcp-Session-Id", old), "MCP-Protocol-Version", "2025-03-26"), broken);
            auto refused = co_await std::move(brokenCall);
            CHECK(refused.status == 200);
            CHECK_THAT(refused.body, Catch::Contains("-32600"));
            // Every answer came at once: none waited for a client timeout.
            CHECK(std::chrono::steady_clock::now() - started < 5s);
            auto serving = stillServes(port, old);
            co_await std::move(serving);
            auto stopping = stop(running);
            co_await std::move(stopping);
        }(fixture, mode, inJson));
    }
}

TEST_CASE("mcp server over http: one GET stream per session, resumption with Last-Event-ID",
          "[mcp][server][http]") {
    Fixture fixture;
    runCoro([](Fixture& f) -> Task<void> {
        auto startup = start(**f.server, mcp::HttpServeOptions{});
        auto running = co_await std::move(startup);
        const auto port = running.port;
        auto session = co_await openSession(port);
        auto executor = co_await asio::this_coro::executor;

        // A GET stream held open (its header read), then a second GET: 409.
        beast::tcp_stream held(executor);
        const asio::ip::tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), port);
        auto [connected] = co_await held.async_connect(endpoint, kTuple);
        REQUIRE_FALSE(connected);
        bhttp::request<bhttp::string_body> get{bhttp::verb::get, "/mcp", 11};
        get.set(bhttp::field::host, "127.0.0.1");
        get.set(bhttp::field::accept, "text/event-stream");
        get.set("Mcp-Session-Id", session);
        auto [written, n] = co_await bhttp::async_write(held, get, kTuple);
        REQUIRE_FALSE(written);
        beast::flat_buffer buffer;
        bhttp::response_parser<bhttp::string_body> head;
        auto [headRead, m] = co_await bhttp::async_read_header(held, buffer, head, kTuple);
        REQUIRE_FALSE(headRead);
        CHECK(head.get().result_int() == 200);
        auto secondCall = raw(port, bhttp::verb::get,
                              Headers{{"Accept", "text/event-stream"}, {"Mcp-Session-Id", session}}, "");
        auto second = co_await std::move(secondCall);
        CHECK(second.status == 409);
        held.close();
        co_await sleepFor(50ms);

        // A POST stream cut off after its first progress event, resumed with GET and Last-Event-ID.
        beast::tcp_stream cut(executor);
        auto [connected2] = co_await cut.async_connect(endpoint, kTuple);
        REQUIRE_FALSE(connected2);
        bhttp::request<bhttp::string_body> post{bhttp::verb::post, "/mcp", 11};
        post.set(bhttp::field::host, "127.0.0.1");
        post.set(bhttp::field::accept, "application/json, text/event-stream");
        post.set(bhttp::field::content_type, "application/json");
        post.set("Mcp-Session-Id", session);
        post.body() = request(8, "tools/call",
                              json{{"name", "slow"},
                                   {"arguments", {{"steps", 4}, {"delayMs", 50}}},
                                   {"_meta", {{"progressToken", "t"}}}});
        post.prepare_payload();
        auto [written2, n2] = co_await bhttp::async_write(cut, post, kTuple);
        REQUIRE_FALSE(written2);
        std::string seen;
        while (seen.find("notifications/progress") == std::string::npos) {
            std::array<char, 4096> chunk{};
            auto [ec, got] = co_await cut.async_read_some(asio::buffer(chunk), kTuple);
            REQUIRE_FALSE(ec);
            seen.append(chunk.data(), got);
        }
        const auto idAt = seen.rfind("id: ");
        const auto lastId = seen.substr(idAt + 4, seen.find('\n', idAt) - idAt - 4);
        cut.close();
        co_await sleepFor(50ms);  // the server notices the client went away
        (void)n;
        (void)m;
        (void)n2;
        auto resumedCall = raw(
            port, bhttp::verb::get,
            Headers{{"Accept", "text/event-stream"}, {"Mcp-Session-Id", session}, {"Last-Event-ID", lastId}},
            "");
        auto resumed = co_await std::move(resumedCall);
        CHECK(resumed.status == 200);
        CHECK(resumed.body.find(R"("text":"done 4")") != std::string::npos);
        CHECK(resumed.body.find("id: " + lastId + "\nevent:") == std::string::npos);  // not sent twice
        auto serving = stillServes(port, session);
        co_await std::move(serving);
        auto stopping = stop(running);
        co_await std::move(stopping);
    }(fixture));
}

TEST_CASE("mcp server over http: idle sessions expire and shutdown cancels calls in flight",
          "[mcp][server][http]") {
    Fixture fixture;
    runCoro([](Fixture& f) -> Task<void> {
        mcp::HttpServeOptions options;
        options.sessionIdleTimeout = 200ms;
        auto startup = start(**f.server, options);
        auto running = co_await std::move(startup);
        auto session = co_await openSession(running.port);
        co_await sleepFor(600ms);
        auto lateCall = raw(running.port, bhttp::verb::post, with(kAccept, "Mcp-Session-Id", session),
                            request(2, "ping"));
        auto late = co_await std::move(lateCall);
        CHECK(late.status == 404);

        auto connected = co_await mcp::connectAny(httpConfig(running));
        REQUIRE(connected);
        auto client = *connected;
        auto executor = co_await asio::this_coro::executor;
        auto outcome = std::make_shared<std::optional<bool>>();
        auto longCall = [](std::shared_ptr<mcp::Client> c,
                           std::shared_ptr<std::optional<bool>> out) -> Task<void> {
            auto call = c->callTool("slow", json{{"steps", 500}, {"delayMs", 20}});
            auto r = co_await std::move(call);
            *out = r.has_value();
        };
        asio::co_spawn(executor, longCall(client, outcome), asio::detached);
        co_await sleepFor(100ms);
        const auto before = std::chrono::steady_clock::now();
        auto stopping = stop(running);
        co_await std::move(stopping);
        CHECK(std::chrono::steady_clock::now() - before < 4s);
        CHECK(f.witness->slowCancelled == 1);
        for (int i = 0; i < 300 && !*outcome; ++i) {
            co_await sleepFor(10ms);
        }
        REQUIRE(outcome->has_value());
        CHECK_FALSE(**outcome);  // the client learns that the call will not be answered
        co_await client->close();
    }(fixture));
}

TEST_CASE(
    "mcp server over http, 2026-07-28: no session, statuses of refusals, a closed stream cancels the call",
    "[mcp][server][http][era]") {
    Fixture fixture;
    runCoro([](Fixture& f) -> Task<void> {
        auto startup = start(**f.server, mcp::HttpServeOptions{});
        auto running = co_await std::move(startup);

        // A raw 2026 request: a JSON reply, no session id; refusals are 4xx echoing the request's id.
        const json envelope = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                               {"io.modelcontextprotocol/clientCapabilities", json::object()}};
        const json discover = {
            {"jsonrpc", "2.0"}, {"id", 7}, {"method", "server/discover"}, {"params", {{"_meta", envelope}}}};
        const Headers modern =
            with(with(kAccept, "MCP-Protocol-Version", "2026-07-28"), "Mcp-Method", "server/discover");
        auto discovered = co_await raw(running.port, bhttp::verb::post, modern, discover.dump());
        CHECK(discovered.status == 200);
        CHECK_FALSE(discovered.headers.contains("Mcp-Session-Id"));
        const json answer = json::parse(discovered.body, nullptr, false);
        CHECK(answer["result"]["supportedVersions"] == json::array({"2026-07-28"}));
        CHECK(answer["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "http-test-server");

        const json ping = {
            {"jsonrpc", "2.0"}, {"id", 8}, {"method", "ping"}, {"params", {{"_meta", envelope}}}};
        auto pinged =
            co_await raw(running.port, bhttp::verb::post, with(modern, "Mcp-Method", "ping"), ping.dump());
        CHECK(pinged.status == 404);
        CHECK(pinged.error()["code"] == -32601);
        CHECK(json::parse(pinged.body, nullptr, false)["id"] == 8);
        auto mismatched = co_await raw(running.port, bhttp::verb::post,
                                       with(modern, "Mcp-Method", "tools/list"), discover.dump());
        CHECK(mismatched.status == 400);
        CHECK(mismatched.error()["code"] == -32020);
        auto badName = co_await raw(running.port, bhttp::verb::post,
                                    with(modern, "Mcp-Name", "=?base64?SGVsbG8?="), discover.dump());
        CHECK(badName.status == 400);
        CHECK(badName.error()["code"] == -32020);

        // reagent's client pinned to the revision: a call it gives up on closes its stream, which cancels
        // the handler on the server.
        auto config = httpConfig(running);
        config.era = mcp::ProtocolEra::modern;
        auto connected = co_await mcp::connectAny(config);
        REQUIRE(connected);
        auto client = *connected;
        CHECK(client->server().protocolVersion == "2026-07-28");
        mcp::CallOptions brief;
        brief.timeout = 300ms;
        const json longRun = {{"steps", 500}, {"delayMs", 20}};
        auto given = co_await client->callTool("slow", longRun, brief);
        REQUIRE_FALSE(given);
        CHECK(given.error().code == mcp::McpErrc::timeout);
        for (int i = 0; i < 200 && f.witness->slowCancelled == 0; ++i) {
            co_await sleepFor(10ms);
        }
        CHECK(f.witness->slowCancelled == 1);
        const json quick = {{"steps", 1}, {"delayMs", 1}};
        auto again = co_await client->callTool("slow", quick);
        CHECK(again);
        co_await client->close();
        auto stopping = stop(running);
        co_await std::move(stopping);
    }(fixture));
}
