#include "reagent/mcp/json_rpc.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "reagent/mcp/protocol_version.hpp"

using nlohmann::json;
using reagent::mcp::encode;
using reagent::mcp::McpErrc;
using reagent::mcp::Message;
using reagent::mcp::Notification;
using reagent::mcp::parseFrame;
using reagent::mcp::Request;
using reagent::mcp::RequestId;
using reagent::mcp::Response;

TEST_CASE("parseFrame reads requests, notifications and responses with string or integer ids",
          "[mcp][jsonrpc]") {
    auto request = parseFrame(R"({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"c2"}})");
    REQUIRE(request);
    REQUIRE(request->size() == 1);
    const auto& r = std::get<Request>(request->front());
    CHECK(r.id == RequestId(std::int64_t{7}));
    CHECK(r.method == "tools/list");
    CHECK(r.params == json{{"cursor", "c2"}});

    auto note = parseFrame(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    REQUIRE(note);
    CHECK(std::get<Notification>(note->front()).params.is_null());

    auto result = parseFrame(R"({"jsonrpc":"2.0","id":"abc","result":{"tools":[]}})");
    REQUIRE(result);
    const auto& ok = std::get<Response>(result->front());
    CHECK(ok.id == RequestId(std::string("abc")));
    REQUIRE(ok.outcome);
    CHECK(*ok.outcome == json{{"tools", json::array()}});

    auto error = parseFrame(
        R"({"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no such method","data":{"m":"x"}}})");
    REQUIRE(error);
    const auto& failed = std::get<Response>(error->front());
    REQUIRE_FALSE(failed.outcome);
    CHECK(failed.outcome.error().code == reagent::mcp::kMethodNotFound);
    CHECK(failed.outcome.error().describe() == "no such method (JSON-RPC -32601)");
    CHECK(failed.outcome.error().data == json{{"m", "x"}});
}

TEST_CASE("parseFrame reads a batch, and refuses it whole when one member is bad", "[mcp][jsonrpc]") {
    auto batch = parseFrame(R"([{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":1,"result":null}])");
    REQUIRE(batch);
    CHECK(batch->size() == 2);
    auto bad = parseFrame(R"([{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"1.0","method":"b"}])");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().code == McpErrc::malformed_message);
    auto empty = parseFrame("[]");
    REQUIRE_FALSE(empty);
    CHECK(empty.error().message == "not a JSON-RPC 2.0 message: an empty batch");
}

TEST_CASE("parseFrame names the rule a malformed message breaks", "[mcp][jsonrpc]") {
    struct Case {
        const char* frame;
        const char* message;
    };
    const Case cases[] = {
        {"{not json", "not JSON (or not valid UTF-8)"},
        {"\"text\"", "not a JSON-RPC 2.0 message: a message must be a JSON object"},
        {R"({"id":1,"method":"x"})", "not a JSON-RPC 2.0 message: \"jsonrpc\" must be \"2.0\""},
        {R"({"jsonrpc":"2.0","id":1,"method":5})", "not a JSON-RPC 2.0 message: the method must be a string"},
        {R"({"jsonrpc":"2.0","id":1.5,"method":"x"})",
         "not a JSON-RPC 2.0 message: the id must be a string or an integer, not 1.5"},
        {R"({"jsonrpc":"2.0","id":null,"method":"x"})",
         "not a JSON-RPC 2.0 message: the id must be a string or an integer, not null"},
        {R"({"jsonrpc":"2.0","method":"x","params":3})",
         "not a JSON-RPC 2.0 message: params must be an object or an array"},
        {R"({"jsonrpc":"2.0","id":1})",
         "not a JSON-RPC 2.0 message: a response has exactly one of result and error"},
        {R"({"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}})",
         "not a JSON-RPC 2.0 message: a response has exactly one of result and error"},
        {R"({"jsonrpc":"2.0","id":1,"error":{"message":"m"}})",
         "not a JSON-RPC 2.0 message: the error object has no integer code"},
        {R"({"jsonrpc":"2.0"})",
         "not a JSON-RPC 2.0 message: a message needs a method (request, notification) or an id (response)"},
        {"{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}", "not JSON (or not valid UTF-8)"},
    };
    for (const auto& c : cases) {
        INFO(c.frame);
        auto parsed = parseFrame(c.frame);
        REQUIRE_FALSE(parsed);
        CHECK(parsed.error().code == McpErrc::malformed_message);
        CHECK(parsed.error().message == c.message);
    }
}

TEST_CASE("encode writes one compact line that parseFrame reads back", "[mcp][jsonrpc]") {
    const Message messages[] = {
        Request{RequestId(std::int64_t{1}), "tools/call",
                json{{"name", "echo"}, {"arguments", {{"text", "a\nb"}}}}},
        Request{RequestId(std::string("s-1")), "ping", nullptr},
        Notification{"notifications/cancelled", json{{"requestId", 1}}},
        Response{RequestId(std::int64_t{2}), json::object()},
        Response{RequestId(std::int64_t{3}),
                 reagent::fail(reagent::mcp::RpcError{reagent::mcp::kInvalidParams, "bad", json{{"k", 1}}})},
    };
    for (const Message& message : messages) {
        const std::string line = encode(message);
        INFO(line);
        CHECK(line.find('\n') == std::string::npos);
        auto back = parseFrame(line);
        REQUIRE(back);
        REQUIRE(back->size() == 1);
        CHECK(encode(back->front()) == line);
    }
    CHECK(encode(Request{RequestId(std::int64_t{1}), "ping", nullptr}) ==
          R"({"id":1,"jsonrpc":"2.0","method":"ping"})");
}

TEST_CASE("requests and notifications are written as the JSON tree of the message would dump",
          "[mcp][jsonrpc]") {
    // Requests and notifications are written as text directly; the output must not differ in any byte.
    const auto dumped = [](json tree) { return tree.dump(-1, ' ', false, json::error_handler_t::replace); };
    const json params = {{"name", "echo"}, {"arguments", {{"text", "quote \" slash \\ tab \t é \xff"}}}};
    CHECK(encode(Request{RequestId(std::int64_t{-7}), "tools/call", params}) ==
          dumped({{"jsonrpc", "2.0"}, {"id", -7}, {"method", "tools/call"}, {"params", params}}));
    CHECK(encode(Request{RequestId(std::string("id \"1\"\n")), "odd \"method\" é", json::array()}) ==
          dumped({{"jsonrpc", "2.0"},
                  {"id", "id \"1\"\n"},
                  {"method", "odd \"method\" é"},
                  {"params", json::array()}}));
    CHECK(encode(Notification{"notifications/initialized", nullptr}) ==
          dumped({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}));
    CHECK(encode(Notification{"bad \xc3", json{{"requestId", 1}}}) ==
          dumped({{"jsonrpc", "2.0"}, {"method", "bad \xc3"}, {"params", {{"requestId", 1}}}}));
}

TEST_CASE("acceptServerVersion accepts the versions reagent speaks and 2024-11-05, and names them otherwise",
          "[mcp]") {
    for (const auto version : reagent::mcp::kSupportedProtocolVersions) {
        auto accepted = reagent::mcp::acceptServerVersion(version);
        REQUIRE(accepted);
        CHECK(*accepted == version);
    }
    // The HTTP+SSE era's servers, which the sse transport exists for.
    auto legacy = reagent::mcp::acceptServerVersion("2024-11-05");
    REQUIRE(legacy);
    CHECK(*legacy == "2024-11-05");
    auto old = reagent::mcp::acceptServerVersion("2023-01-01");
    REQUIRE_FALSE(old);
    CHECK(old.error().code == McpErrc::unsupported_version);
    CHECK(old.error().describe() ==
          "unsupported_version: the server chose protocol version '2023-01-01'; reagent speaks 2025-11-25, "
          "2025-06-18, 2025-03-26, 2024-11-05");
}
