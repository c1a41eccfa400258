#include "reagent/jsonrpc/message.hpp"

#include <catch2/catch.hpp>
#include <string>

using nlohmann::json;
using namespace reagent::jsonrpc;

TEST_CASE("parseMessage reads one message and refuses a batch", "[jsonrpc]") {
    auto one = parseMessage(R"({"jsonrpc":"2.0","id":"a","method":"GetTask","params":{"id":"t"}})");
    REQUIRE(one);
    const auto& request = std::get<Request>(*one);
    CHECK(request.id == RequestId(std::string("a")));
    CHECK(request.params == json{{"id", "t"}});

    auto batch = parseMessage(R"([{"jsonrpc":"2.0","method":"x"}])");
    REQUIRE_FALSE(batch);
    CHECK(batch.error().code == JsonRpcErrc::invalid_message);
    CHECK(batch.error().message.find("a batch where one message is expected") != std::string::npos);
    CHECK(replyCode(batch.error()) == kInvalidRequest);
}

TEST_CASE("text that is not JSON is not_json, answered with a parse error", "[jsonrpc]") {
    auto garbage = parseMessage("{\"jsonrpc\":");
    REQUIRE_FALSE(garbage);
    CHECK(garbage.error().code == JsonRpcErrc::not_json);
    CHECK(replyCode(garbage.error()) == kParseError);

    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    auto tooDeep = parseFrame(deep);
    REQUIRE_FALSE(tooDeep);
    CHECK(tooDeep.error().code == JsonRpcErrc::not_json);
    CHECK(tooDeep.error().message.find("deeper than 512") != std::string::npos);
    CHECK(toString(JsonRpcErrc::not_json) == "not_json");
    CHECK(toString(JsonRpcErrc::invalid_message) == "invalid_message");
}

TEST_CASE("peekEnvelope finds the id and the method of a frame that does not parse", "[jsonrpc]") {
    const Envelope request =
        peekEnvelope(R"({"jsonrpc":"2.0","id":9,"method":7,"params":)" + std::string(100000, '[') + "}");
    REQUIRE(request.id);
    CHECK(*request.id == RequestId(std::int64_t{9}));
    CHECK(request.hasMethod);

    // An id inside params is not the message's; a null or structured id is no id.
    const Envelope nested = peekEnvelope(R"({"params":{"id":4},"result":1})");
    CHECK_FALSE(nested.id);
    CHECK_FALSE(nested.hasMethod);
    CHECK_FALSE(peekEnvelope(R"({"id":null,"result":1})").id);
    CHECK_FALSE(peekEnvelope(R"({"id":{"x":1},"result":1})").id);
    CHECK(*peekEnvelope(R"({"id":"s","error":)").id == RequestId(std::string("s")));
    CHECK_FALSE(peekEnvelope("not json").id);
}

TEST_CASE("encodeError writes the id, or null when it could not be read", "[jsonrpc]") {
    const RpcError error{kMethodNotFound, "no such method", json{{"m", "x"}}};
    const json withId = json::parse(encodeError(RequestId(std::int64_t{3}), error));
    CHECK(withId ==
          json{{"jsonrpc", "2.0"},
               {"id", 3},
               {"error", {{"code", -32601}, {"message", "no such method"}, {"data", {{"m", "x"}}}}}});
    const json without = json::parse(encodeError(std::nullopt, RpcError{kParseError, "bad \xff byte"}));
    CHECK(without["id"].is_null());
    CHECK(without["error"]["code"] == kParseError);
    CHECK(without["error"].count("data") == 0);
    CHECK(error.describe() == "no such method (JSON-RPC -32601)");
}

TEST_CASE("a null id is read on an error response only", "[jsonrpc]") {
    auto error = parseMessage(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}})");
    REQUIRE(error);
    const auto& response = std::get<Response>(*error);
    CHECK_FALSE(response.id);
    REQUIRE_FALSE(response.outcome);
    CHECK(response.outcome.error().code == kParseError);
    CHECK(json::parse(encode(Message(response)))["id"].is_null());

    auto result = parseMessage(R"({"jsonrpc":"2.0","id":null,"result":1})");
    REQUIRE_FALSE(result);
    CHECK(result.error().code == JsonRpcErrc::invalid_message);
    CHECK(parseMessage(R"({"jsonrpc":"2.0","id":null,"method":"x"})").error().code ==
          JsonRpcErrc::invalid_message);
}
