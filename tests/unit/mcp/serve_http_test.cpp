// The sans-io parts of the streamable HTTP server: header rules (http_rules), event streams and replay
// (sse_stream), the routing of a session's frames to POST streams and the GET stream (http_session), and
// what each request gets (http_router).

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <set>

#include "http_router.hpp"
#include "http_rules.hpp"
#include "http_session.hpp"
#include "reagent/tools/tool_builder.hpp"
#include "sse_stream.hpp"

namespace mcp = reagent::mcp;
namespace detail = reagent::mcp::detail;
namespace tools = reagent::tools;
using nlohmann::json;
using reagent::Task;

TEST_CASE("http rules: Accept and MCP-Protocol-Version", "[mcp][http]") {
    const auto both = detail::parseAccept("application/json, text/event-stream");
    CHECK((both.json && both.eventStream));
    const auto jsonOnly = detail::parseAccept("application/json;q=0.9");
    CHECK((jsonOnly.json && !jsonOnly.eventStream));
    const auto any = detail::parseAccept("*/*");
    CHECK((any.json && any.eventStream));
    const auto absent = detail::parseAccept(std::nullopt);
    CHECK((absent.json && absent.eventStream));
    CHECK_FALSE(detail::parseAccept("text/html").json);

    CHECK_FALSE(detail::checkProtocolVersion(std::nullopt));
    CHECK_FALSE(detail::checkProtocolVersion("2025-06-18"));
    const auto old = detail::checkProtocolVersion("1999-01-01");
    REQUIRE(old);
    CHECK(old->status == 400);
    CHECK(old->message.find("2025-11-25") != std::string::npos);
}

TEST_CASE("http rules: POST bodies, error bodies and session ids", "[mcp][http]") {
    const auto init = detail::inspectPost(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})");
    REQUIRE(init);
    CHECK(init->initialize);
    CHECK(init->requests.size() == 1);
    const auto batch = detail::inspectPost(
        R"([{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},)"
        R"({"jsonrpc":"2.0","id":3,"result":{}}])");
    REQUIRE(batch);
    CHECK(batch->batch);
    CHECK_FALSE(batch->initialize);
    REQUIRE(batch->requests.size() == 1);
    CHECK(batch->requests[0] == mcp::RequestId(std::string("a")));
    const auto broken = detail::inspectPost("{nope");
    REQUIRE_FALSE(broken);
    CHECK(broken.error().code == -32700);
    CHECK_FALSE(detail::inspectPost("[]"));
    CHECK_FALSE(detail::inspectPost("42"));
    const auto deep = detail::inspectPost(std::string(100000, '[') + std::string(100000, ']'));
    REQUIRE_FALSE(deep);  // a batch too deep to read is refused, not a crash
    CHECK(deep.error().status == 400);
}

TEST_CASE("http rules: one message is read without building it, as the document would be", "[mcp][http]") {
    const auto modern = detail::inspectPost(
        R"({"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"echo",)"
        R"("arguments":{"_meta":{"io.modelcontextprotocol/protocolVersion":"no"}},)"
        R"("_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})");
    REQUIRE(modern);
    CHECK(modern->claimsModern);
    CHECK_FALSE(modern->batch);
    REQUIRE(modern->requests.size() == 1);
    CHECK(modern->requests[0] == mcp::RequestId(std::string("x")));
    // The key only counts in params._meta, and the last member of a name wins.
    const auto nested =
        detail::inspectPost(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"_meta":)"
                            R"({"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}})");
    REQUIRE(nested);
    CHECK_FALSE(nested->claimsModern);
    CHECK(nested->requests.at(0) == mcp::RequestId(std::int64_t{7}));
    const auto replaced = detail::inspectPost(
        R"({"id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},)"
        R"("_meta":{}},"id":{"no":1}})");
    REQUIRE(replaced);
    CHECK_FALSE(replaced->claimsModern);
    CHECK(replaced->requests.empty());  // its last id is no request id
    // Not requests: a response, a notification, a method that is not a string.
    for (const char* body : {R"({"jsonrpc":"2.0","id":3,"result":{}})", R"({"jsonrpc":"2.0","method":"n"})",
                             R"({"id":3,"method":5})"}) {
        const auto read = detail::inspectPost(body);
        REQUIRE(read);
        CHECK(read->requests.empty());
        CHECK_FALSE(read->initialize);
    }
    const auto truncated = detail::inspectPost(R"({"jsonrpc":"2.0","id":1,"method":"initialize")");
    REQUIRE_FALSE(truncated);
    CHECK(truncated.error().code == -32700);

    const auto body = json::parse(detail::errorBody(-32700, "Parse error"));
    CHECK(body["jsonrpc"] == "2.0");
    CHECK(body["id"].is_null());
    CHECK(body["error"]["code"] == -32700);
    const auto quoted = json::parse(detail::errorBody(-32000, "Host '\xff' refused"), nullptr, false);
    CHECK_FALSE(quoted.is_discarded());  // invalid UTF-8 from the client does not break the body

    std::set<std::string> ids;
    for (int i = 0; i < 100; ++i) {
        const auto id = detail::newSessionId();
        CHECK(id.size() == 32);
        CHECK(id.find_first_not_of("0123456789abcdef") == std::string::npos);
        ids.insert(id);
    }
    CHECK(ids.size() == 100);
}

TEST_CASE("event streams: ids, formatting, replay bound and resumption", "[mcp][http]") {
    CHECK(detail::formatEvent(detail::EventId{2, 5}, R"({"a":1})") ==
          "id: 2-5\nevent: message\ndata: {\"a\":1}\n\n");
    CHECK(detail::formatEvent(detail::EventId{0, 1}, "x\ny") ==
          "id: 0-1\nevent: message\ndata: x\ndata: y\n\n");
    CHECK(detail::primingEvent(detail::EventId{3, 0}, 1000) == "id: 3-0\nretry: 1000\ndata: \n\n");
    const auto id = detail::parseEventId("12-34");
    REQUIRE(id);
    CHECK(id->stream == 12);
    CHECK(id->sequence == 34);
    CHECK_FALSE(detail::parseEventId("12"));
    CHECK_FALSE(detail::parseEventId("a-1"));
    CHECK_FALSE(detail::parseEventId("1-"));

    detail::EventStream stream(4, 3);
    int wakes = 0;
    stream.onData = [&wakes] { ++wakes; };
    for (int i = 1; i <= 5; ++i) {
        stream.push("m" + std::to_string(i));
    }
    CHECK(wakes == 5);
    CHECK(stream.last() == 5);
    const auto all = stream.after(0);  // only the last 3 are kept
    CHECK(all.last == 5);
    CHECK(all.text.find("data: m2") == std::string::npos);
    CHECK(all.text.find("id: 4-3\nevent: message\ndata: m3") != std::string::npos);
    CHECK(stream.after(4).text == "id: 4-5\nevent: message\ndata: m5\n\n");
    CHECK(stream.canReplayFrom(2));
    CHECK_FALSE(stream.canReplayFrom(1));  // m2 is gone
    CHECK(stream.canReplayFrom(5));
    CHECK_FALSE(stream.canReplayFrom(6));
    stream.end();
    CHECK(stream.ended());
    CHECK(wakes == 6);
    stream.push("late");
    CHECK(stream.last() == 5);
}

namespace {

std::shared_ptr<tools::ToolRegistry> echoRegistry() {
    auto registry = std::make_shared<tools::ToolRegistry>();
    auto builder = tools::ToolBuilder::create("echo");
    builder.description("echo")
        .param("message", "string", "text", tools::ParamOptions{.required = true})
        .handler([](json args, tools::ToolContext context) -> Task<tools::ToolResult> {
            context.reportProgress(tools::ToolProgress{1, 1, "half"});
            co_return args["message"].get<std::string>();
        });
    REQUIRE(registry->add(std::move(*builder.build())));
    return registry;
}

std::shared_ptr<detail::HttpSession> openSession(boost::asio::io_context& io, const mcp::Server& server) {
    auto session = std::make_shared<detail::HttpSession>("sid", 16);
    std::weak_ptr<detail::HttpSession> weak = session;
    session->core = server.connect(io.get_executor(), [weak](mcp::OutgoingFrame frame) {
        if (auto alive = weak.lock()) {
            alive->route(std::move(frame));
        }
    });
    auto init = session->openExchange(false);
    session->deliver(
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})", init,
        {mcp::RequestId(std::int64_t{0})});
    REQUIRE(init->events.ended());
    REQUIRE(session->core->initialized());
    return session;
}

}  // namespace

TEST_CASE("http sessions: responses and progress to their POST, the rest to the GET stream", "[mcp][http]") {
    boost::asio::io_context io;
    mcp::Server server(echoRegistry());
    auto session = openSession(io, server);

    auto ping = session->openExchange(false);
    session->deliver(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", ping, {mcp::RequestId(std::int64_t{1})});
    CHECK(ping->events.ended());
    CHECK(ping->events.after(0).text.find(R"("id":1)") != std::string::npos);

    auto notified = session->openExchange(false);
    session->deliver(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", notified, {});
    CHECK(notified->events.ended());
    CHECK(notified->events.last() == 0);  // nothing owed: 202

    auto call = session->openExchange(false);
    session->deliver(
        R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"},)"
        R"("_meta":{"progressToken":"t"}}})",
        call, {mcp::RequestId(std::int64_t{2})});
    CHECK_FALSE(call->events.ended());
    session->core->log(mcp::LogLevel::error, "unrelated", "test");
    io.run();
    CHECK(call->events.ended());
    const auto text = call->events.after(0).text;
    CHECK(text.find("notifications/progress") != std::string::npos);
    CHECK(text.find(R"("text":"hi")") != std::string::npos);
    CHECK(text.find("notifications/progress") < text.find(R"("text":"hi")"));
    CHECK(text.find("unrelated") == std::string::npos);
    CHECK(session->standalone().after(0).text.find("unrelated") != std::string::npos);
    CHECK(session->stream(call->events.number(), session) != nullptr);  // kept until released
    call->events.written = call->events.last();
    session->release(call->events.number());
    CHECK(session->stream(call->events.number(), session) == nullptr);

    // JSON replies: the response is gathered, the progress goes to the GET stream.
    auto jsonCall = session->openExchange(true);
    session->deliver(
        R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"j"},)"
        R"("_meta":{"progressToken":"u"}}})",
        jsonCall, {mcp::RequestId(std::int64_t{3})});
    io.restart();
    io.run();
    CHECK(jsonCall->events.ended());
    REQUIRE(jsonCall->responses.size() == 1);
    CHECK(jsonCall->responses[0].find(R"("text":"j")") != std::string::npos);
    CHECK(session->standalone().after(0).text.find(R"("progressToken":"u")") != std::string::npos);

    // Ending the session ends its open streams.
    auto pending = session->openExchange(false);
    session->deliver(
        R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}})",
        pending, {mcp::RequestId(std::int64_t{4})});
    session->end();
    CHECK(pending->events.ended());
    CHECK(session->standalone().ended());
    io.restart();
    io.run();
}

namespace {

detail::HttpRequestHead post(std::string body, std::optional<std::string> session = std::nullopt) {
    detail::HttpRequestHead head;
    head.method = "POST";
    head.target = "/mcp";
    head.host = "127.0.0.1:8080";
    head.accept = "application/json, text/event-stream";
    head.contentType = "application/json";
    head.sessionId = std::move(session);
    head.body = std::move(body);
    return head;
}

const std::string kInitialize =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})";

}  // namespace

TEST_CASE("http router: each request's reply, stream or refusal", "[mcp][http]") {
    boost::asio::io_context io;
    mcp::HttpServeOptions options;
    options.maxSessions = 2;
    detail::HttpSessions hub(mcp::Server(echoRegistry()), options, io.get_executor(), true);

    auto opened = detail::decide(hub, post(kInitialize));
    CHECK(opened.reply.status == 200);
    CHECK(opened.reply.contentType == "text/event-stream");
    REQUIRE(opened.reply.sessionId.size() == 32);
    CHECK(opened.reply.body.find(R"("protocolVersion":"2025-11-25")") != std::string::npos);
    const std::string id = opened.reply.sessionId;
    CHECK(hub.sessions.size() == 1);

    CHECK(detail::decide(hub, post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", id))
              .reply.status == 202);
    const auto ping = detail::decide(hub, post(R"({"jsonrpc":"2.0","id":2,"method":"ping"})", id));
    CHECK(ping.reply.body.find(R"("result":{})") != std::string::npos);
    const auto call = detail::decide(
        hub,
        post(
            R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m"}}})",
            id));
    REQUIRE(call.stream);  // the call runs: its stream is written as it comes
    io.run();
    CHECK(call.stream->ended());

    auto refusedWith = [&hub](detail::HttpRequestHead head) { return detail::decide(hub, head).reply; };
    auto evil = post(kInitialize);
    evil.host = "evil.example.com";
    CHECK(refusedWith(evil).status == 403);
    auto elsewhere = post(kInitialize);
    elsewhere.target = "/other";
    CHECK(refusedWith(elsewhere).status == 404);
    auto put = post("{}", id);
    put.method = "PUT";
    CHECK(refusedWith(put).status == 405);
    CHECK(refusedWith(put).allow == "GET, POST, DELETE");
    auto jsonOnly = post(R"({"jsonrpc":"2.0","id":4,"method":"ping"})", id);
    jsonOnly.accept = "application/json";
    CHECK(refusedWith(jsonOnly).status == 406);
    CHECK(refusedWith(post(R"({"jsonrpc":"2.0","id":4,"method":"ping"})")).status == 400);
    CHECK(refusedWith(post(R"({"jsonrpc":"2.0","id":4,"method":"ping"})", "unknown")).status == 404);
    CHECK(refusedWith(post("{nope", id)).status == 400);

    // Every POST with requests ends with their answers: a request whose params are a scalar is refused
    // (-32600 with its id) and its POST ended at once.
    const auto scalar =
        detail::decide(hub, post(R"({"jsonrpc":"2.0","id":5,"method":"tools/list","params":5})", id));
    CHECK_FALSE(scalar.stream);
    CHECK(scalar.reply.status == 200);
    CHECK(scalar.reply.body.find(R"("id":5)") != std::string::npos);
    CHECK(scalar.reply.body.find("-32600") != std::string::npos);
    // The HTTP rules: a POST that is not JSON, a missing or wrong bearer token.
    auto plain = post(R"({"jsonrpc":"2.0","id":6,"method":"ping"})", id);
    plain.contentType = "text/plain";
    CHECK(refusedWith(plain).status == 415);

    detail::HttpRequestHead get;
    get.method = "GET";
    get.target = "/mcp";
    get.host = "localhost";
    get.accept = "text/event-stream";
    get.sessionId = id;
    const auto stream = detail::decide(hub, get);
    REQUIRE(stream.stream);
    CHECK(stream.stream->number() == 0);
    stream.stream->attached = true;
    CHECK(refusedWith(get).status == 409);
    stream.stream->attached = false;

    CHECK(detail::decide(hub, post(kInitialize)).reply.status == 200);
    CHECK(refusedWith(post(kInitialize)).status == 503);  // 2 sessions: the limit

    auto remove = get;
    remove.method = "DELETE";
    CHECK(refusedWith(remove).status == 200);
    CHECK(refusedWith(remove).status == 404);
    CHECK(hub.sessions.size() == 1);
    io.restart();
    io.run();
}

TEST_CASE(
    "http router: a bearer token is required when set, and a 2025-03-26 batch is answered member by member",
    "[mcp][http]") {
    boost::asio::io_context io;
    mcp::HttpServeOptions options;
    options.bearerToken = "router-token";
    detail::HttpSessions hub(mcp::Server(echoRegistry()), options, io.get_executor(), true);
    const auto missing = detail::decide(hub, post(kInitialize));
    CHECK(missing.reply.status == 401);
    CHECK(missing.reply.challenge == "Bearer");
    CHECK(missing.reply.body.find("router-token") == std::string::npos);
    CHECK(hub.sessions.empty());
    auto authorized = [](detail::HttpRequestHead head) {
        head.authorization = "Bearer router-token";
        return head;
    };
    const auto opened = detail::decide(
        hub,
        authorized(post(
            R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}})")));
    REQUIRE(opened.reply.status == 200);
    const std::string id = opened.reply.sessionId;
    REQUIRE_FALSE(id.empty());
    const auto batch = detail::decide(
        hub,
        authorized(post(
            R"([{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}])", id)));
    CHECK_FALSE(batch.stream);  // both answered at once: the POST is complete
    CHECK(batch.reply.body.find(R"("id":2)") != std::string::npos);
    CHECK(batch.reply.body.find(R"("id":3)") != std::string::npos);
    io.run();
}
