#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "codec_fixture.hpp"

using namespace std::chrono_literals;
using nlohmann::json;
using reagent::http::HttpHeaders;
using reagent::llm::ProviderErrc;
using reagent::llm::StopReason;
using reagent::llm::ToolCall;
using reagent::providers::CodecOptions;
using reagent::test::ErrorCase;
namespace test = reagent::test;

namespace {

const reagent::providers::WireFormat& gemini = reagent::providers::wire::gemini();

CodecOptions options(bool stream = false) {
    CodecOptions opts;
    opts.model = "gemini-2.5-flash";
    opts.stream = stream;
    return opts;
}

// streamGenerateContent?alt=sse: each event is a whole GenerateContentResponse with the next parts; the
// function calls arrive whole, the first with its thoughtSignature; Google ends SSE lines with CRLF.
const std::string kStream = test::withCrlf(
    R"(data: {"candidates": [{"content": {"parts": [{"text": "Checking"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 60,"candidatesTokenCount": 1,"totalTokenCount": 61},"modelVersion": "gemini-2.5-flash","responseId": "r1"}

data: {"candidates": [{"content": {"parts": [{"text": " both."},{"functionCall": {"name": "get_weather","args": {"city": "Paris"}},"thoughtSignature": "c2lnLUE="},{"functionCall": {"name": "files_read","args": {"path": "notes.txt"}}}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 60,"candidatesTokenCount": 30,"totalTokenCount": 112,"thoughtsTokenCount": 22},"modelVersion": "gemini-2.5-flash","responseId": "r1"}

)");

test::StreamRun runStream(const std::vector<std::string_view>& chunks) {
    return test::runStream(
        gemini.streamDecoder(test::encode(gemini, test::conversation(), options()).toolNames), chunks);
}

}  // namespace

TEST_CASE("gemini: the request for a conversation with parallel tool calls", "[providers][gemini]") {
    const auto encoded = test::encode(gemini, test::conversation(), options());
    CHECK(encoded.path == "/models/gemini-2.5-flash:generateContent");
    json expected = json::parse(R"({
        "systemInstruction": {"parts": [{"text": "You are terse."}]},
        "contents": [
            {"role": "user", "parts": [{"text": "Weather in Paris, and read notes.txt?"}]},
            {"role": "model", "parts": [
                {"text": "Checking both."},
                {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "c2lnLUE="},
                {"functionCall": {"name": "files_read", "args": {"path": "notes.txt"}}}
            ]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"result": "18\u00b0C, clear"}}},
                {"functionResponse": {"name": "files_read", "response": {"error": "no such file"}}}
            ]}
        ],
        "tools": [{"functionDeclarations": [
            {"name": "get_weather", "description": "Current weather for a city", "parametersJsonSchema": {}},
            {"name": "files_read", "description": "Read a file", "parametersJsonSchema": {}}
        ]}],
        "generationConfig": {"temperature": 0.5, "maxOutputTokens": 1024}
    })");
    expected["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"] = test::weatherSchema();
    expected["tools"][0]["functionDeclarations"][1]["parametersJsonSchema"] = test::readSchema();
    test::checkJsonEqual(encoded.json(), expected);
}

TEST_CASE("gemini: streaming path, OpenAPI-subset parameters, names from call ids", "[providers][gemini]") {
    reagent::llm::ModelRequest request;
    request.messages.push_back(reagent::llm::Message::user("Hi"));
    request.messages.push_back(
        reagent::llm::Message::assistant("", {ToolCall{"c1", "9lives", json::object()}}));
    // A result that lost its tool name takes it from the call with its id.
    request.messages.push_back(reagent::llm::Message::toolResult("c1", "", "ok"));
    request.tools.push_back(reagent::llm::ToolSpec{"9lives", "", nullptr});
    CodecOptions opts = options(true);
    opts.model = "models/gemini-2.5-pro";
    opts.geminiJsonSchemaParameters = false;
    const auto encoded = test::encode(gemini, request, opts);
    CHECK(encoded.path == "/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
    test::checkJsonEqual(encoded.json(), json::parse(R"({
        "contents": [
            {"role": "user", "parts": [{"text": "Hi"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "_9lives", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "_9lives", "response": {"result": "ok"}}}]}
        ],
        "tools": [{"functionDeclarations": [
            {"name": "_9lives", "parameters": {"type": "object", "properties": {}}}
        ]}]
    })"));
}

TEST_CASE("gemini: a documented response with function calls", "[providers][gemini]") {
    const auto names = test::encode(gemini, test::conversation(), options()).toolNames;
    const auto reply = test::decode(gemini, 200, R"({
        "candidates": [{
            "content": {
                "parts": [
                    {"text": "thinking about it", "thought": true},
                    {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "c2lnLUE="},
                    {"functionCall": {"name": "files_read", "args": {"path": "notes.txt"}}}
                ],
                "role": "model"
            },
            "finishReason": "STOP",
            "index": 0,
            "safetyRatings": []
        }],
        "usageMetadata": {"promptTokenCount": 60, "candidatesTokenCount": 30, "totalTokenCount": 112, "thoughtsTokenCount": 22},
        "modelVersion": "gemini-2.5-flash",
        "responseId": "r1"
    })",
                                    names);
    REQUIRE(reply);
    CHECK(reply->text.empty());
    CHECK(reply->stopReason == StopReason::tool_use);
    CHECK(reply->usage == reagent::llm::Usage{60, 52, 0, 0, 22});
    CHECK(reply->model == "gemini-2.5-flash");
    REQUIRE(reply->toolCalls.size() == 2);
    CHECK(reply->toolCalls[0].name == "get_weather");
    CHECK(reply->toolCalls[0].arguments == json{{"city", "Paris"}});
    CHECK(reply->toolCalls[0].signature == "c2lnLUE=");
    CHECK(reply->toolCalls[1].name == "files/read");
    CHECK(reply->toolCalls[1].signature.empty());
    // Gemini sends no ids: they are synthesized, stable, distinct.
    CHECK(reply->toolCalls[0].id.rfind("call_0_", 0) == 0);
    CHECK(reply->toolCalls[1].id.rfind("call_1_", 0) == 0);
    const auto again = test::decode(gemini, 200, std::string(R"({"candidates":[{"content":{"parts":[
        {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]},"finishReason":"STOP"}]})"),
                                    names);
    REQUIRE(again);
    CHECK(again->toolCalls.at(0).id == reply->toolCalls[0].id);
    // An id Gemini does send is kept.
    const auto withId = test::decode(
        gemini, 200,
        R"({"candidates":[{"content":{"parts":[{"functionCall":{"id":"fc-9","name":"get_weather","args":{}}}]},"finishReason":"STOP"}]})",
        names);
    REQUIRE(withId);
    CHECK(withId->toolCalls.at(0).id == "fc-9");
}

TEST_CASE("gemini: finish reasons and blocked prompts", "[providers][gemini]") {
    const auto decode = [](const char* reason) {
        const std::string body =
            std::string(R"({"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":")") + reason +
            R"("}]})";
        auto reply = test::decode(gemini, 200, body, {});
        REQUIRE(reply);
        return reply->stopReason;
    };
    CHECK(decode("STOP") == StopReason::end_turn);
    CHECK(decode("MAX_TOKENS") == StopReason::max_tokens);
    CHECK(decode("SAFETY") == StopReason::other);
    CHECK(decode("MALFORMED_FUNCTION_CALL") == StopReason::other);
    const auto blocked = test::decode(gemini, 200, R"({"promptFeedback":{"blockReason":"SAFETY"}})", {});
    REQUIRE_FALSE(blocked);
    CHECK(blocked.error().code == ProviderErrc::invalid_request);
    CHECK(blocked.error().providerType == "SAFETY");
}

TEST_CASE("gemini: every error status, with RetryInfo and Retry-After", "[providers][gemini][errors]") {
    const auto body = [](int code, const char* status, const char* message) {
        return std::string(R"({"error":{"code":)") + std::to_string(code) + R"(,"message":")" + message +
               R"(","status":")" + status + R"("}})";
    };
    const std::vector<ErrorCase> cases = {
        {400, body(400, "INVALID_ARGUMENT", "Invalid JSON payload received."), ProviderErrc::invalid_request,
         "INVALID_ARGUMENT", "Invalid JSON payload"},
        {400, body(400, "FAILED_PRECONDITION", "User location is not supported"),
         ProviderErrc::invalid_request, "FAILED_PRECONDITION", "location"},
        {401, body(401, "UNAUTHENTICATED", "API key not valid"), ProviderErrc::authentication,
         "UNAUTHENTICATED", "API key not valid"},
        {403, body(403, "PERMISSION_DENIED", "denied"), ProviderErrc::authentication, "PERMISSION_DENIED",
         "denied"},
        {404, body(404, "NOT_FOUND", "models/gemini-9 is not found"), ProviderErrc::invalid_request,
         "NOT_FOUND", "gemini-9"},
        {429, body(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted"), ProviderErrc::rate_limited,
         "RESOURCE_EXHAUSTED", "exhausted"},
        {500, body(500, "INTERNAL", "An internal error has occurred"), ProviderErrc::server_error, "INTERNAL",
         "internal error"},
        {503, body(503, "UNAVAILABLE", "The model is overloaded"), ProviderErrc::server_error, "UNAVAILABLE",
         "overloaded"},
    };
    for (const ErrorCase& c : cases) {
        INFO("status " << c.status);
        const auto reply = test::decode(gemini, c.status, c.body, {}, HttpHeaders{{"Retry-After", "12"}});
        REQUIRE_FALSE(reply);
        CHECK(reply.error().code == c.code);
        CHECK(reply.error().httpStatus == c.status);
        CHECK(reply.error().providerType == c.providerType);
        CHECK(reply.error().message.rfind("gemini: ", 0) == 0);
        CHECK_THAT(reply.error().message, Catch::Contains(c.messagePart));
        CHECK(reply.error().retryAfter == 12'000ms);
    }
    // Without the header, the delay comes from RetryInfo in the body.
    const auto quota = test::decode(
        gemini, 429,
        R"({"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]}})",
        {});
    REQUIRE_FALSE(quota);
    CHECK(quota.error().retryAfter == 37'000ms);
}

TEST_CASE("gemini: a streamed reply is the same however the bytes are split", "[providers][gemini][stream]") {
    const test::StreamRun whole = test::checkEverySplit(kStream, runStream);
    REQUIRE(whole.reply);
    CHECK(whole.reply->text == "Checking both.");
    CHECK(whole.reply->stopReason == StopReason::tool_use);
    CHECK(whole.reply->usage == reagent::llm::Usage{60, 52, 0, 0, 22});
    REQUIRE(whole.reply->toolCalls.size() == 2);
    CHECK(whole.reply->toolCalls[0].name == "get_weather");
    CHECK(whole.reply->toolCalls[0].signature == "c2lnLUE=");
    CHECK(whole.reply->toolCalls[1].name == "files/read");
    CHECK(whole.reply->toolCalls[1].arguments == json{{"path", "notes.txt"}});
    // Streamed and non-streamed decoding synthesize the same ids.
    const auto names = test::encode(gemini, test::conversation(), options()).toolNames;
    const auto same = test::decode(
        gemini, 200,
        R"({"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}},{"functionCall":{"name":"files_read","args":{"path":"notes.txt"}}}]},"finishReason":"STOP"}]})",
        names);
    REQUIRE(same);
    CHECK(same->toolCalls.at(0).id == whole.reply->toolCalls[0].id);
    CHECK(same->toolCalls.at(1).id == whole.reply->toolCalls[1].id);
    const std::string id0 = whole.reply->toolCalls[0].id;
    const std::string id1 = whole.reply->toolCalls[1].id;
    CHECK(test::describe(whole.deltas) == "[text Checking][text  both.][start 0 " + id0 +
                                              " get_weather][args 0 {\"city\":\"Paris\"}][start 1 " + id1 +
                                              " files/read][args 1 {\"path\":\"notes.txt\"}]");
}

TEST_CASE("gemini: stream failures", "[providers][gemini][stream]") {
    const auto names = test::encode(gemini, test::conversation(), options()).toolNames;
    SECTION("an error chunk") {
        const auto run = test::runStream(gemini.streamDecoder(names),
                                         {"data: {\"error\": {\"code\": 503, \"message\": \"The model is "
                                          "overloaded.\", \"status\": \"UNAVAILABLE\"}}\r\n\r\n"});
        REQUIRE_FALSE(run.reply);
        CHECK(run.reply.error().code == ProviderErrc::server_error);
        CHECK(run.reply.error().providerType == "UNAVAILABLE");
    }
    SECTION("the connection drops before finishReason") {
        const auto run =
            test::runStream(gemini.streamDecoder(names), {kStream.substr(0, kStream.find("\r\n\r\n") + 4)});
        REQUIRE_FALSE(run.reply);
        CHECK(run.reply.error().code == ProviderErrc::connection_failed);
        CHECK(run.deltas.size() == 1);
    }
    SECTION("data that is not JSON") {
        const auto run = test::runStream(gemini.streamDecoder(names), {"data: {\"candidates\": [\r\n\r\n"});
        REQUIRE_FALSE(run.reply);
        CHECK(run.reply.error().code == ProviderErrc::malformed_response);
    }
}

TEST_CASE("gemini: malformed non-streamed bodies", "[providers][gemini]") {
    const auto notJson = test::decode(gemini, 200, "", {});
    REQUIRE_FALSE(notJson);
    CHECK(notJson.error().code == ProviderErrc::malformed_response);
    const auto unrelated = test::decode(gemini, 200, R"({"kind":"something else"})", {});
    REQUIRE_FALSE(unrelated);
    CHECK(unrelated.error().code == ProviderErrc::malformed_response);
}
