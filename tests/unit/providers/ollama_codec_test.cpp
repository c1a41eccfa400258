#include <catch2/catch.hpp>
#include <ctime>
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

const reagent::providers::WireFormat& ollama = reagent::providers::wire::ollama();

CodecOptions options(bool stream = false) {
    CodecOptions opts;
    opts.model = "qwen3";
    opts.stream = stream;
    return opts;
}

// /api/chat streaming: one JSON object per line; tool calls arrive whole; the last line has done: true.
constexpr std::string_view kStream =
    R"({"model":"qwen3","created_at":"2025-05-27T22:54:57.641643Z","message":{"role":"assistant","content":"Checking"},"done":false}
{"model":"qwen3","created_at":"2025-05-27T22:54:57.7Z","message":{"role":"assistant","content":" both \u00e9."},"done":false}
{"model":"qwen3","created_at":"2025-05-27T22:54:58.1Z","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Paris"}}},{"function":{"name":"files_read","arguments":{"path":"notes.txt"}}}]},"done":false}
{"model":"qwen3","created_at":"2025-05-27T22:54:58.3Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"total_duration":2069412000,"load_duration":13207750,"prompt_eval_count":75,"prompt_eval_duration":121000000,"eval_count":33,"eval_duration":1900000000}
)";

test::StreamRun runStream(const std::vector<std::string_view>& chunks) {
    return test::runStream(
        ollama.streamDecoder(test::encode(ollama, test::conversation(), options()).toolNames), chunks);
}

}  // namespace

TEST_CASE("ollama: the request for a conversation with parallel tool calls", "[providers][ollama]") {
    const auto encoded = test::encode(ollama, test::conversation(), options());
    CHECK(encoded.path == "/chat");
    json expected = json::parse(R"({
        "model": "qwen3",
        "stream": false,
        "options": {"temperature": 0.5, "num_predict": 1024},
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Weather in Paris, and read notes.txt?"},
            {"role": "assistant", "content": "Checking both.", "tool_calls": [
                {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
                {"function": {"name": "files_read", "arguments": {"path": "notes.txt"}}}
            ]},
            {"role": "tool", "content": "18\u00b0C, clear", "tool_name": "get_weather"},
            {"role": "tool", "content": "no such file", "tool_name": "files_read"}
        ],
        "tools": [
            {"type": "function", "function": {"name": "get_weather", "description": "Current weather for a city",
                                              "parameters": {}}},
            {"type": "function", "function": {"name": "files_read", "description": "Read a file",
                                              "parameters": {}}}
        ]
    })");
    expected["tools"][0]["function"]["parameters"] = test::weatherSchema();
    expected["tools"][1]["function"]["parameters"] = test::readSchema();
    test::checkJsonEqual(encoded.json(), expected);

    reagent::llm::ModelRequest plain;
    plain.messages.push_back(reagent::llm::Message::user("Hi"));
    test::checkJsonEqual(
        test::encode(ollama, plain, options(true)).json(),
        json::parse(R"({"model":"qwen3","stream":true,"messages":[{"role":"user","content":"Hi"}]})"));
}

TEST_CASE("ollama: tool parameters keep only what Ollama reads", "[providers][ollama]") {
    reagent::llm::ModelRequest request;
    request.messages.push_back(reagent::llm::Message::user("Hi"));
    request.tools.push_back(reagent::llm::ToolSpec{"count", "Counts", json::parse(R"({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": false,
        "required": ["n"],
        "properties": {
            "n": {"type": "integer", "description": "How many", "minimum": 1, "default": 3},
            "mode": {"type": "string", "enum": ["fast", "slow"], "pattern": "^[a-z]+$"},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 8}, "maxItems": 4}
        }
    })")});
    const json tools = test::encode(ollama, request, options()).json()["tools"];
    test::checkJsonEqual(tools[0]["function"]["parameters"], json::parse(R"({
        "type": "object",
        "required": ["n"],
        "properties": {
            "n": {"type": "integer", "description": "How many"},
            "mode": {"type": "string", "enum": ["fast", "slow"]},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 8}}
        }
    })"));
}

TEST_CASE("ollama: a documented response with tool calls", "[providers][ollama]") {
    const auto names = test::encode(ollama, test::conversation(), options()).toolNames;
    const auto reply = test::decode(ollama, 200, R"({
        "model": "qwen3",
        "created_at": "2025-05-27T22:54:57.641643Z",
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
                {"id": "call_x1", "function": {"index": 1, "name": "files_read", "arguments": {"path": "notes.txt"}}}
            ]
        },
        "done_reason": "stop",
        "done": true,
        "total_duration": 885095291,
        "prompt_eval_count": 75,
        "eval_count": 33
    })",
                                    names);
    REQUIRE(reply);
    CHECK(reply->text.empty());
    CHECK(reply->stopReason == StopReason::tool_use);
    CHECK(reply->usage == reagent::llm::Usage{75, 33});
    CHECK(reply->model == "qwen3");
    REQUIRE(reply->toolCalls.size() == 2);
    CHECK(reply->toolCalls[0].name == "get_weather");
    CHECK(reply->toolCalls[0].arguments == json{{"city", "Paris"}});
    CHECK(reply->toolCalls[0].id.rfind("call_0_", 0) == 0);
    CHECK(reply->toolCalls[1] == ToolCall{"call_x1", "files/read", {{"path", "notes.txt"}}});

    const auto text = test::decode(
        ollama, 200,
        R"({"model":"qwen3","message":{"role":"assistant","content":"Hello"},"done_reason":"length","done":true})",
        names);
    REQUIRE(text);
    CHECK(text->text == "Hello");
    CHECK(text->stopReason == StopReason::max_tokens);
}

TEST_CASE("ollama: every error status, with Retry-After", "[providers][ollama][errors]") {
    const auto retryAt = std::chrono::system_clock::now() + 20s;
    const std::time_t when = std::chrono::system_clock::to_time_t(retryAt);
    char date[64];
    std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", std::gmtime(&when));
    const std::vector<ErrorCase> cases = {
        {400, R"({"error":"invalid options: num_predict"})", ProviderErrc::invalid_request, "",
         "invalid options"},
        {401, R"({"error":"unauthorized"})", ProviderErrc::authentication, "", "unauthorized"},
        {404, R"({"error":"model \"llama9\" not found, try pulling it first"})",
         ProviderErrc::invalid_request, "", "try pulling it first"},
        {429, R"({"error":"too many requests"})", ProviderErrc::rate_limited, "", "too many requests"},
        {500, R"({"error":"llama runner process has terminated"})", ProviderErrc::server_error, "",
         "terminated"},
        {503, R"({"error":"server busy, please try again.  maximum pending requests exceeded"})",
         ProviderErrc::server_error, "", "server busy"},
    };
    for (const ErrorCase& c : cases) {
        INFO("status " << c.status);
        const auto reply = test::decode(ollama, c.status, c.body, {}, HttpHeaders{{"Retry-After", date}});
        REQUIRE_FALSE(reply);
        CHECK(reply.error().code == c.code);
        CHECK(reply.error().httpStatus == c.status);
        CHECK(reply.error().providerType.empty());
        CHECK(reply.error().message.rfind("ollama: ", 0) == 0);
        CHECK_THAT(reply.error().message, Catch::Contains(c.messagePart));
        // An HTTP-date 20 s ahead, with whole-second precision and a slow machine allowed for.
        REQUIRE(reply.error().retryAfter);
        CHECK(*reply.error().retryAfter > 15s);
        CHECK(*reply.error().retryAfter <= 20s);
    }
}

TEST_CASE("ollama: a streamed reply is the same however the bytes are split", "[providers][ollama][stream]") {
    const test::StreamRun whole = test::checkEverySplit(kStream, runStream);
    REQUIRE(whole.reply);
    CHECK(whole.reply->text == "Checking both \xC3\xA9.");
    CHECK(whole.reply->stopReason == StopReason::tool_use);
    CHECK(whole.reply->usage == reagent::llm::Usage{75, 33});
    REQUIRE(whole.reply->toolCalls.size() == 2);
    CHECK(whole.reply->toolCalls[1].name == "files/read");
    const std::string id0 = whole.reply->toolCalls[0].id;
    const std::string id1 = whole.reply->toolCalls[1].id;
    CHECK(test::describe(whole.deltas) == "[text Checking][text  both \xC3\xA9.][start 0 " + id0 +
                                              " get_weather][args 0 {\"city\":\"Paris\"}][start 1 " + id1 +
                                              " files/read][args 1 {\"path\":\"notes.txt\"}]");
    // CRLF line ends, and a last line without its newline, decode the same.
    std::string crlf = test::withCrlf(kStream);
    crlf.erase(crlf.size() - 2);
    CHECK(test::describe(test::checkEverySplit(crlf, runStream).reply) == test::describe(whole.reply));
}

TEST_CASE("ollama: stream failures", "[providers][ollama][stream]") {
    const auto names = test::encode(ollama, test::conversation(), options()).toolNames;
    SECTION("an error line mid-stream") {
        const std::string raw = std::string(kStream.substr(0, kStream.find('\n') + 1)) +
                                "{\"error\":\"an error was encountered while running the model\"}\n";
        const auto run = test::runStream(ollama.streamDecoder(names), {raw});
        REQUIRE_FALSE(run.reply);
        CHECK(run.reply.error().code == ProviderErrc::server_error);
        CHECK_THAT(run.reply.error().message, Catch::Contains("while running the model"));
    }
    SECTION("the connection drops before done") {
        const auto run =
            test::runStream(ollama.streamDecoder(names), {kStream.substr(0, kStream.rfind("{\"model\""))});
        REQUIRE_FALSE(run.reply);
        CHECK(run.reply.error().code == ProviderErrc::connection_failed);
    }
    SECTION("a line cut in the middle at the end of the stream") {
        const auto run =
            test::runStream(ollama.streamDecoder(names), {kStream.substr(0, kStream.size() - 20)});
        REQUIRE_FALSE(run.reply);
        CHECK(run.reply.error().code == ProviderErrc::malformed_response);
    }
}

TEST_CASE("ollama: malformed non-streamed bodies", "[providers][ollama]") {
    const auto notJson = test::decode(ollama, 200, "not json", {});
    REQUIRE_FALSE(notJson);
    CHECK(notJson.error().code == ProviderErrc::malformed_response);
    const auto noMessage = test::decode(ollama, 200, R"({"model":"qwen3","done":true})", {});
    REQUIRE_FALSE(noMessage);
    CHECK(noMessage.error().code == ProviderErrc::malformed_response);
}
