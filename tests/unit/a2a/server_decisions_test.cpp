// The A2A server's decisions with no I/O (libs/a2a/src/server_decisions.hpp): what each request gets.

#include "server_decisions.hpp"

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <memory>

#include "reagent/a2a/json_rpc.hpp"

using namespace reagent;
using namespace reagent::a2a;
using reagent::a2a::detail::Decision;
namespace decisions = reagent::a2a::detail;
using nlohmann::json;

namespace {

AgentCard echoCard() {
    AgentCard card;
    card.name = "echo";
    return card;
}

// A server's state on a context that never runs: a send starts its task (spawned, never run).
struct Fixture {
    boost::asio::io_context io;
    std::shared_ptr<Server::State> state;
    // The trace the last task ran in.
    std::shared_ptr<reagent::SpanContext> seen = std::make_shared<reagent::SpanContext>();
    Fixture() {
        TracedRunFunction run = [seen = seen](
                                    std::string prompt,
                                    TaskContext context) -> Task<expected<std::string, std::string>> {
            *seen = context.trace;
            co_return prompt;
        };
        state =
            std::make_shared<Server::State>(io.get_executor(), ServerConfig{}, echoCard(), std::move(run));
        state->callers.loopback = true;
    }
};

http::ServerRequest post(std::string body) {
    http::ServerRequest request{"POST", "/a2a/jsonrpc", {}, std::move(body)};
    request.headers.add("Host", "127.0.0.1:9");
    request.headers.add("Content-Type", "application/json");
    return request;
}

json body(const Decision& decision) {
    return json::parse(decision.reply.body);
}

}  // namespace

TEST_CASE("a2a decisions: the card, an unknown path, a refused caller", "[a2a][server]") {
    Fixture f;
    http::ServerRequest card{"GET", "/.well-known/agent-card.json", {{"Host", "localhost"}}, ""};
    const Decision served = decisions::decide(f.state, card);
    CHECK(served.then == Decision::Then::reply);
    CHECK(served.reply.status == 200);
    CHECK(body(served)["name"] == "echo");

    http::ServerRequest elsewhere{"GET", "/nothing", {{"Host", "localhost"}}, ""};
    CHECK(decisions::decide(f.state, elsewhere).reply.status == 404);

    http::ServerRequest rebound{"GET", "/.well-known/agent-card.json", {{"Host", "evil.example"}}, ""};
    const Decision refused = decisions::decide(f.state, rebound);
    CHECK(refused.reply.status == 403);
    CHECK(body(refused)["error"]["code"] == rpc::kInvalidRequest);
    CHECK(body(refused)["id"].is_null());
}

TEST_CASE("a2a decisions: JSON-RPC errors carry the request's id, or null when it cannot be read",
          "[a2a][server]") {
    Fixture f;
    const Decision garbage = decisions::decide(f.state, post("{\"jsonrpc\":\"2.0\",\"id\":4,"));
    CHECK(garbage.reply.status == 200);
    CHECK(body(garbage)["error"]["code"] == rpc::kParseError);
    CHECK(body(garbage)["id"] == 4);

    const Decision unknown =
        decisions::decide(f.state, post(R"({"jsonrpc":"2.0","id":"a","method":"tasks/resubscribe"})"));
    CHECK(body(unknown)["error"]["code"] == rpc::kMethodNotFound);
    CHECK(body(unknown)["id"] == "a");
    CHECK(unknown.rpcMethod == "_OTHER");  // kept apart, for the span: a client cannot grow its values
    CHECK(unknown.rpcMethodOriginal == "tasks/resubscribe");
    CHECK(unknown.rpcErrorCode == rpc::kMethodNotFound);
    CHECK(garbage.rpcMethod.empty());
    CHECK(garbage.rpcErrorCode == rpc::kParseError);

    const Decision notification = decisions::decide(f.state, post(R"({"jsonrpc":"2.0","method":"GetTask"})"));
    CHECK(body(notification)["error"]["code"] == rpc::kInvalidRequest);
    CHECK(body(notification)["id"].is_null());

    const Decision missing = decisions::decide(
        f.state, post(R"({"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t9"}})"));
    CHECK(body(missing)["error"]["code"] == rpc::kTaskNotFound);
    CHECK(missing.rpcMethod == "GetTask");
    CHECK(missing.rpcMethodOriginal.empty());
    CHECK(missing.rpcErrorCode == rpc::kTaskNotFound);

    const Decision noMessage =
        decisions::decide(f.state, post(R"({"jsonrpc":"2.0","id":2,"method":"SendMessage","params":{}})"));
    CHECK(body(noMessage)["error"]["code"] == rpc::kInvalidParams);
    CHECK(f.state->tasks.empty());
}

TEST_CASE("a2a decisions: a send starts a task to wait for or stream, a cancel asks it to stop",
          "[a2a][server]") {
    Fixture f;
    const std::string message =
        R"({"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]})";
    const Decision blocking = decisions::decide(
        f.state,
        post(R"({"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":)" + message + "}}"));
    CHECK(blocking.then == Decision::Then::sendResultWhenTerminal);
    REQUIRE(blocking.entry);
    CHECK(blocking.version == ProtocolVersion::v0_3);
    CHECK(f.state->running == 1);

    const Decision immediate = decisions::decide(
        f.state,
        post(
            R"({"jsonrpc":"2.0","id":2,"method":"message/send","params":{"configuration":{"blocking":false},"message":)" +
            message + "}}"));
    CHECK(immediate.then == Decision::Then::reply);
    CHECK(body(immediate)["result"]["kind"] == "task");

    const Decision streamed = decisions::decide(
        f.state,
        post(R"({"jsonrpc":"2.0","id":3,"method":"message/stream","params":{"message":)" + message + "}}"));
    CHECK(streamed.then == Decision::Then::stream);

    const std::string taskId = blocking.entry->task.id;
    const Decision cancel = decisions::decide(
        f.state, post(R"({"jsonrpc":"2.0","id":4,"method":"CancelTask","params":{"id":")" + taskId + "\"}}"));
    CHECK(cancel.then == Decision::Then::taskWhenTerminal);
    CHECK(cancel.entry == blocking.entry);
    CHECK(blocking.entry->cancelRequested);
}

TEST_CASE("a2a decisions: a task runs in the trace its request's traceparent names",
          "[a2a][server][telemetry]") {
    Fixture f;
    const std::string send =
        R"({"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","messageId":"m",)"
        R"("parts":[{"kind":"text","text":"hi"}]}}})";
    auto traced = post(send);
    traced.headers.add("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    traced.headers.add("tracestate", "k=v");
    REQUIRE(decisions::decide(f.state, traced).entry);
    f.io.run();
    CHECK(reagent::formatTraceparent(*f.seen) == "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    CHECK(f.seen->traceState == "k=v");
    CHECK(f.seen->remote);

    auto malformed = post(send);
    malformed.headers.add("traceparent", "00-not-a-trace");
    f.io.restart();
    REQUIRE(decisions::decide(f.state, malformed).entry);
    f.io.run();
    CHECK_FALSE(f.seen->valid());  // a new trace starts: the agent's own
}
