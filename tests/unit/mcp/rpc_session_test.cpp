#include "reagent/mcp/rpc_session.hpp"

#include <catch2/catch.hpp>
#include <string>

using nlohmann::json;
using reagent::mcp::McpErrc;
using reagent::mcp::Notification;
using reagent::mcp::Request;
using reagent::mcp::RequestId;
using reagent::mcp::RpcSession;

namespace {

template <class T>
T only(const RpcSession::Received& received) {
    REQUIRE(received.events.size() == 1);
    REQUIRE(std::holds_alternative<T>(received.events.front()));
    return std::get<T>(received.events.front());
}

}  // namespace

TEST_CASE("RpcSession numbers its requests and delivers each response once", "[mcp][session]") {
    RpcSession session;
    auto first = session.request("initialize", json{{"protocolVersion", "2025-11-25"}});
    auto second = session.request("tools/list");
    CHECK(first.id == RequestId(std::int64_t{1}));
    CHECK(second.id == RequestId(std::int64_t{2}));
    CHECK(first.frame ==
          R"({"id":1,"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25"}})");
    CHECK(session.pending() == 2);

    // Answered out of order.
    const auto& done =
        only<RpcSession::Completed>(session.receive(R"({"jsonrpc":"2.0","id":2,"result":{"tools":[]}})"));
    CHECK(done.id == second.id);
    REQUIRE(done.outcome);
    CHECK(session.pending() == 1);

    const auto& failed = only<RpcSession::Completed>(
        session.receive(R"({"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad version"}})"));
    REQUIRE_FALSE(failed.outcome);
    CHECK(failed.outcome.error().message == "bad version");
    CHECK(session.pending() == 0);

    // A second answer to the same id is reported, not delivered.
    const auto& late = only<RpcSession::Problem>(session.receive(R"({"jsonrpc":"2.0","id":1,"result":{}})"));
    CHECK(late.error.message ==
          "a response to id 1, which is not awaiting one (never sent, already answered, or given up)");
}

TEST_CASE("RpcSession reports a response to a forgotten request instead of delivering it", "[mcp][session]") {
    RpcSession session;
    auto call = session.request("tools/call", json{{"name", "slow"}});
    CHECK(session.forget(call.id));
    CHECK_FALSE(session.forget(call.id));
    CHECK_FALSE(session.forget(RequestId(std::string("1"))));
    only<RpcSession::Problem>(session.receive(R"({"jsonrpc":"2.0","id":1,"result":{}})"));
    // A string id that looks like ours is not ours.
    auto other = session.request("ping");
    only<RpcSession::Problem>(session.receive(R"({"jsonrpc":"2.0","id":"2","result":{}})"));
    CHECK(session.pending() == 1);
    (void)other;
}

TEST_CASE("RpcSession hands over the peer's requests and notifications and writes the responses",
          "[mcp][session]") {
    RpcSession session;
    const auto& request =
        only<Request>(session.receive(R"({"jsonrpc":"2.0","id":"srv-1","method":"roots/list"})"));
    CHECK(request.method == "roots/list");
    CHECK(session.respond(request.id, json{{"roots", json::array()}}) ==
          R"({"id":"srv-1","jsonrpc":"2.0","result":{"roots":[]}})");
    const auto& note = only<Notification>(
        session.receive(R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})"));
    CHECK(note.method == "notifications/tools/list_changed");
    CHECK(session.notify("notifications/initialized") ==
          R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
}

TEST_CASE("RpcSession answers what it cannot read with the JSON-RPC error it owes", "[mcp][session]") {
    RpcSession session;
    auto garbage = session.receive("{oops");
    CHECK(only<RpcSession::Problem>(garbage).error.code == McpErrc::malformed_message);
    REQUIRE(garbage.replies.size() == 1);
    const auto parseError = json::parse(garbage.replies[0]);
    CHECK(parseError["id"].is_null());
    CHECK(parseError["error"]["code"] == reagent::mcp::kParseError);
    CHECK(parseError["error"]["message"] == "not JSON (or not valid UTF-8)");

    auto badMethod = session.receive(R"({"jsonrpc":"2.0","id":9,"method":42})");
    REQUIRE(badMethod.replies.size() == 1);
    const auto reply = json::parse(badMethod.replies[0]);
    CHECK(reply["id"] == 9);
    CHECK(reply["error"]["code"] == reagent::mcp::kInvalidRequest);
}

TEST_CASE("RpcSession refuses a frame nested past the depth limit, ending the call it answered",
          "[mcp][session][json]") {
    RpcSession session;
    const auto call = session.request("tools/call");
    const std::string deep = std::string(300000, '[') + std::string(300000, ']');

    // A notification: refused with the reason, nothing delivered.
    const auto notification =
        session.receive(R"({"jsonrpc":"2.0","method":"notifications/message","params":)" + deep + "}");
    const auto problem = only<RpcSession::Problem>(notification);
    CHECK(problem.error.code == McpErrc::malformed_message);
    CHECK(problem.error.message == "the JSON nests arrays and objects deeper than 512 levels");
    CHECK(session.pending() == 1);

    // The answer to the pending call: the call ends at once with the reason, beside the problem.
    const auto answer =
        session.receive(R"({"jsonrpc":"2.0","id":1,"result":{"structuredContent":)" + deep + "}}");
    REQUIRE(answer.events.size() == 2);
    const auto& done = std::get<RpcSession::Completed>(answer.events.front());
    CHECK(done.id == call.id);
    REQUIRE_FALSE(done.outcome);
    CHECK(done.outcome.error().message.find("deeper than 512") != std::string::npos);
    CHECK(answer.replies.empty());
    CHECK(session.pending() == 0);

    // A request from the peer with the same id is not taken for the answer.
    CHECK(session.request("ping").id == RequestId(std::int64_t{2}));
    const auto request = session.receive(R"({"jsonrpc":"2.0","id":2,"method":"x","params":)" + deep + "}");
    CHECK(session.pending() == 1);
    REQUIRE(request.replies.size() == 1);
    CHECK(json::parse(request.replies[0])["id"] == 2);
}

TEST_CASE("RpcSession refuses a frame over its size limit without parsing it", "[mcp][session]") {
    RpcSession session(reagent::mcp::RpcLimits{64});
    const std::string big =
        R"({"jsonrpc":"2.0","method":"x","params":{"pad":")" + std::string(100, 'a') + "\"}}";
    const auto& problem = only<RpcSession::Problem>(session.receive(big));
    CHECK(problem.error.code == McpErrc::message_too_large);
    CHECK(problem.error.message ==
          "a message of " + std::to_string(big.size()) + " bytes exceeds the limit of 64 bytes");
}
