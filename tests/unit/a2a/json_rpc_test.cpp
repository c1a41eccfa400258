#include "reagent/a2a/json_rpc.hpp"

#include <catch2/catch.hpp>

using namespace reagent::a2a;
using nlohmann::json;

TEST_CASE("method names per version", "[a2a][rpc]") {
    CHECK(methodName(Method::send, ProtocolVersion::v0_3) == "message/send");
    CHECK(methodName(Method::stream, ProtocolVersion::v1_0) == "SendStreamingMessage");
    CHECK(methodName(Method::get, ProtocolVersion::v1_0) == "GetTask");
    CHECK(methodName(Method::cancel, ProtocolVersion::v0_3) == "tasks/cancel");
    auto parsed = parseMethodName("CancelTask");
    REQUIRE(parsed);
    CHECK(parsed->method == Method::cancel);
    CHECK(parsed->version == ProtocolVersion::v1_0);
    CHECK(parseMethodName("tasks/get")->version == ProtocolVersion::v0_3);
    CHECK_FALSE(parseMethodName("tasks/resubscribe"));
}

TEST_CASE("requests", "[a2a][rpc]") {
    const Message message = Message::userText("hi");
    const json legacy = json::parse(
        makeRequest(Method::send, ProtocolVersion::v0_3, sendParams(message, ProtocolVersion::v0_3), 7));
    CHECK(legacy["jsonrpc"] == "2.0");
    CHECK(legacy["id"] == 7);
    CHECK(legacy["method"] == "message/send");
    CHECK(legacy["params"]["message"]["kind"] == "message");
    CHECK(legacy["params"]["configuration"]["blocking"] == true);
    const json current = json::parse(makeRequest(Method::get, ProtocolVersion::v1_0, taskIdParams("t"), 8));
    CHECK(current["method"] == "GetTask");
    CHECK(current["params"] == json{{"id", "t"}});
}

TEST_CASE("responses: results, errors, garbage", "[a2a][rpc]") {
    auto result = parseResponse(makeResult(1, json{{"x", 1}}));
    REQUIRE(result);
    CHECK((*result)["x"] == 1);
    auto error = parseResponse(makeError(1, rpc::kTaskNotFound, "no such task"));
    REQUIRE_FALSE(error);
    CHECK(error.error().code == A2aErrc::remote_error);
    CHECK(rpcCode(error.error()) == rpc::kTaskNotFound);
    CHECK(error.error().message.find("no such task") != std::string::npos);
    CHECK(parseResponse("not json").error().code == A2aErrc::protocol_error);
    CHECK(parseResponse(R"({"jsonrpc":"1.0","result":1})").error().code == A2aErrc::protocol_error);
    CHECK(parseResponse(R"({"jsonrpc":"2.0","id":1})").error().code == A2aErrc::protocol_error);
    CHECK(rpcCode(A2aError{A2aErrc::timeout, "[5] x"}) == 0);
}

TEST_CASE("an error object of the wrong shape is still an error", "[a2a][rpc]") {
    auto odd = parseResponse(R"({"jsonrpc":"2.0","id":1,"error":{"code":"x","message":7}})");
    REQUIRE_FALSE(odd);
    CHECK(odd.error().code == A2aErrc::remote_error);
    CHECK(rpcCode(odd.error()) == 0);
    CHECK(parseResponse(R"({"jsonrpc":"2.0","id":1,"error":"boom"})").error().code == A2aErrc::remote_error);
}
