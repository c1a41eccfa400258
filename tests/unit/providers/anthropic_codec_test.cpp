#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "codec_fixture.hpp"

using namespace std::chrono_literals;
using nlohmann::json;
using reagent::http::HttpHeaders;
using reagent::llm::ProviderErrc;
using reagent::llm::StopReason;
using reagent::providers::CodecOptions;
using reagent::test::ErrorCase;
namespace test = reagent::test;

namespace {

const reagent::providers::WireFormat& anthropic = reagent::providers::wire::anthropic();

// Cache breakpoints off: the request's structure alone (they have a test of their own).
CodecOptions options(bool stream = false, bool caching = false) {
    CodecOptions opts;
    opts.model = "claude-sonnet-4-5";
    opts.stream = stream;
    opts.promptCaching = caching;
    return opts;
}

// A streamed reply as the Messages API sends it: text, then two tool_use blocks whose input arrives as
// input_json_delta fragments, a ping, and usage in message_start and message_delta.
constexpr std::string_view kStream = R"(event: message_start
data: {"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":472,"output_tokens":2}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Checking "}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"both \u2014 \u2600\ufe0f."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Pa"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"ris\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_02","name":"files_read","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\":"}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":" \"notes.txt\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":91}}

event: message_stop
data: {"type":"message_stop"}

)";

test::StreamRun runStream(const std::vector<std::string_view>& chunks) {
    return test::runStream(
        anthropic.streamDecoder(test::encode(anthropic, test::conversation(), options()).toolNames), chunks);
}

}  // namespace

TEST_CASE("anthropic: the request for a conversation with parallel tool calls", "[providers][anthropic]") {
    const auto encoded = test::encode(anthropic, test::conversation(), options());
    CHECK(encoded.path == "/messages");
    json expected = json::parse(R"({
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": "You are terse.",
        "temperature": 0.5,
        "stream": false,
        "messages": [
            {"role": "user", "content": "Weather in Paris, and read notes.txt?"},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Checking both."},
                {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "call_2", "name": "files_read", "input": {"path": "notes.txt"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call_1", "content": "18\u00b0C, clear"},
                {"type": "tool_result", "tool_use_id": "call_2", "content": "no such file", "is_error": true}
            ]}
        ],
        "tools": [
            {"name": "get_weather", "description": "Current weather for a city", "input_schema": {}},
            {"name": "files_read", "description": "Read a file", "input_schema": {}}
        ]
    })");
    expected["tools"][0]["input_schema"] = test::weatherSchema();
    expected["tools"][1]["input_schema"] = test::readSchema();
    test::checkJsonEqual(encoded.json(), expected);
    CHECK(encoded.body.find("\"max_tokens\":1024") != std::string::npos);
}

TEST_CASE("anthropic: cache breakpoints on the last tool, the system prompt and the last message",
          "[providers][anthropic][caching]") {
    // Three of the API's four: each turn reads the prefix the turn before wrote.
    const auto count = [](const std::string& body) {
        std::size_t n = 0;
        for (auto at = body.find("\"cache_control\""); at != std::string::npos;
             at = body.find("\"cache_control\"", at + 1)) {
            ++n;
        }
        return n;
    };
    const json mark = {{"type", "ephemeral"}};
    SECTION("after tool results, the last result is the tail") {
        const auto encoded = test::encode(anthropic, test::conversation(), options(false, true));
        const json body = encoded.json();
        CHECK(count(encoded.body) == 3);
        CHECK(body["tools"].back()["cache_control"] == mark);
        CHECK_FALSE(body["tools"][0].contains("cache_control"));
        CHECK(
            body["system"] ==
            json::parse(R"([{"type":"text","text":"You are terse.","cache_control":{"type":"ephemeral"}}])"));
        const json& results = body["messages"].back()["content"];
        CHECK_FALSE(results[0].contains("cache_control"));
        CHECK(results[1]["cache_control"] == mark);
        CHECK(results[1]["tool_use_id"] == "call_2");
    }
    SECTION("a user's question, after an empty assistant message, is the tail") {
        reagent::llm::ModelRequest request;
        request.messages.push_back(reagent::llm::Message::user("Hi"));
        request.messages.push_back(reagent::llm::Message::assistant("Hello."));
        request.messages.push_back(reagent::llm::Message::user("Bye"));
        request.messages.push_back(reagent::llm::Message::assistant(""));  // skipped: not the tail
        const auto encoded = test::encode(anthropic, request, options(true, true));
        CHECK(count(encoded.body) == 1);  // no tools, no system prompt
        const json body = encoded.json();
        CHECK(body["messages"][0]["content"] == "Hi");
        CHECK(body["messages"][2]["content"] ==
              json::parse(R"([{"type":"text","text":"Bye","cache_control":{"type":"ephemeral"}}])"));
    }
    SECTION("an assistant turn with tool calls as the tail: its last call") {
        reagent::llm::ModelRequest request = test::conversation();
        request.messages.resize(3);  // ends with the assistant's two calls
        const json body = test::encode(anthropic, request, options(false, true)).json();
        const json& blocks = body["messages"].back()["content"];
        CHECK_FALSE(blocks[1].contains("cache_control"));
        CHECK(blocks[2]["cache_control"] == mark);
    }
    SECTION("off: none") {
        const auto encoded = test::encode(anthropic, test::conversation(), options(false, false));
        CHECK(count(encoded.body) == 0);
        CHECK(encoded.json()["system"] == "You are terse.");
    }
}

TEST_CASE("anthropic: max_tokens defaults, streaming and a plain exchange", "[providers][anthropic]") {
    reagent::llm::ModelRequest request;
    request.messages.push_back(reagent::llm::Message::user("Hi"));
    request.messages.push_back(reagent::llm::Message::assistant("Hello."));
    request.messages.push_back(reagent::llm::Message::assistant(""));  // empty: skipped
    request.messages.push_back(reagent::llm::Message::user("Bye"));
    const auto encoded = test::encode(anthropic, request, options(true));
    test::checkJsonEqual(encoded.json(), json::parse(R"({
        "model": "claude-sonnet-4-5", "max_tokens": 4096, "stream": true,
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello."},
            {"role": "user", "content": "Bye"}
        ]})"));
}

TEST_CASE("anthropic: a documented response with tool calls", "[providers][anthropic]") {
    const auto names = test::encode(anthropic, test::conversation(), options()).toolNames;
    const auto reply = test::decode(anthropic, 200, R"({
        "id": "msg_01Aq9w938a90dw8q",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [
            {"type": "text", "text": "I'll check both."},
            {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "toolu_01B", "name": "files_read", "input": {"path": "notes.txt"}}
        ],
        "stop_reason": "tool_use",
        "stop_sequence": null,
        "usage": {"input_tokens": 472, "output_tokens": 91, "cache_creation_input_tokens": 10, "cache_read_input_tokens": 5}
    })",
                                    names);
    REQUIRE(reply);
    CHECK(reply->text == "I'll check both.");
    CHECK(reply->stopReason == StopReason::tool_use);
    CHECK(reply->usage.inputTokens == 487);
    CHECK(reply->usage.outputTokens == 91);
    CHECK(reply->model == "claude-sonnet-4-5-20250929");
    REQUIRE(reply->toolCalls.size() == 2);
    CHECK(reply->toolCalls[0].id == "toolu_01A09q90qw90lq917835lq9");
    CHECK(reply->toolCalls[0].name == "get_weather");
    CHECK(reply->toolCalls[0].arguments == json{{"city", "Paris"}});
    // The wire name maps back to the MCP-style name.
    CHECK(reply->toolCalls[1].name == "files/read");
    CHECK(reply->toolCalls[1].arguments == json{{"path", "notes.txt"}});
}

TEST_CASE("anthropic: stop reasons", "[providers][anthropic]") {
    const auto decodeStop = [](const char* reason) {
        const std::string body =
            std::string(R"({"type":"message","content":[{"type":"text","text":"x"}],"stop_reason":")") +
            reason + R"(","usage":{"input_tokens":1,"output_tokens":1}})";
        auto reply = test::decode(anthropic, 200, body, {});
        REQUIRE(reply);
        return reply->stopReason;
    };
    CHECK(decodeStop("end_turn") == StopReason::end_turn);
    CHECK(decodeStop("max_tokens") == StopReason::max_tokens);
    CHECK(decodeStop("stop_sequence") == StopReason::stop_sequence);
    CHECK(decodeStop("refusal") == StopReason::other);
}

TEST_CASE("anthropic: every error status, with Retry-After", "[providers][anthropic][errors]") {
    const auto body = [](const char* type, const char* message) {
        return std::string(R"({"type":"error","error":{"type":")") + type + R"(","message":")" + message +
               R"("}})";
    };
    const std::vector<ErrorCase> cases = {
        {400, body("invalid_request_error", "messages: roles must alternate"), ProviderErrc::invalid_request,
         "invalid_request_error", "roles must alternate"},
        {401, body("authentication_error", "invalid x-api-key"), ProviderErrc::authentication,
         "authentication_error", "invalid x-api-key"},
        {403, body("permission_error", "no access"), ProviderErrc::authentication, "permission_error",
         "no access"},
        {404, body("not_found_error", "model: claude-x"), ProviderErrc::invalid_request, "not_found_error",
         "claude-x"},
        {413, body("request_too_large", "too large"), ProviderErrc::invalid_request, "request_too_large",
         "too large"},
        {429, body("rate_limit_error", "slow down"), ProviderErrc::rate_limited, "rate_limit_error",
         "slow down"},
        {500, body("api_error", "internal"), ProviderErrc::server_error, "api_error", "internal"},
        {529, body("overloaded_error", "Overloaded"), ProviderErrc::server_error, "overloaded_error",
         "Overloaded"},
    };
    for (const ErrorCase& c : cases) {
        INFO("status " << c.status);
        const auto reply = test::decode(anthropic, c.status, c.body, {}, HttpHeaders{{"retry-after", "30"}});
        REQUIRE_FALSE(reply);
        CHECK(reply.error().code == c.code);
        CHECK(reply.error().httpStatus == c.status);
        CHECK(reply.error().providerType == c.providerType);
        CHECK(reply.error().message.rfind("anthropic: ", 0) == 0);
        CHECK_THAT(reply.error().message, Catch::Contains(c.messagePart));
        CHECK(reply.error().retryAfter == 30'000ms);
    }
}

TEST_CASE("anthropic: a streamed reply is the same however the bytes are split",
          "[providers][anthropic][stream]") {
    const auto run = [](const std::vector<std::string_view>& chunks) { return runStream(chunks); };
    const test::StreamRun whole = test::checkEverySplit(kStream, run);
    REQUIRE(whole.reply);
    CHECK(whole.reply->text == "Checking both \xE2\x80\x94 \xE2\x98\x80\xEF\xB8\x8F.");
    CHECK(whole.reply->stopReason == StopReason::tool_use);
    CHECK(whole.reply->usage == reagent::llm::Usage{472, 91});
    CHECK(whole.reply->model == "claude-sonnet-4-5");
    REQUIRE(whole.reply->toolCalls.size() == 2);
    CHECK(whole.reply->toolCalls[0] ==
          reagent::llm::ToolCall{"toolu_01", "get_weather", {{"city", "Paris"}}});
    CHECK(whole.reply->toolCalls[1] ==
          reagent::llm::ToolCall{"toolu_02", "files/read", {{"path", "notes.txt"}}});
    CHECK(test::describe(whole.deltas) ==
          "[text Checking ][text both \xE2\x80\x94 \xE2\x98\x80\xEF\xB8\x8F.]"
          "[start 0 toolu_01 get_weather][args 0 {\"city\": \"Pa][args 0 ris\"}]"
          "[start 1 toolu_02 files/read][args 1 {\"path\":][args 1  \"notes.txt\"}]");

    // The same stream with CRLF line ends decodes to the same reply.
    const std::string crlf = test::withCrlf(kStream);
    CHECK(test::describe(test::checkEverySplit(crlf, run).reply) == test::describe(whole.reply));
}

TEST_CASE("anthropic: stream failures", "[providers][anthropic][stream]") {
    const auto names = test::encode(anthropic, test::conversation(), options()).toolNames;
    SECTION("an error event mid-stream") {
        const std::string before(kStream.substr(0, kStream.find("event: content_block_stop")));
        const std::string error =
            "event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", "
            "\"message\": \"Overloaded\"}}\n\n";
        const auto run = test::runStream(anthropic.streamDecoder(names), {before, error});
        REQUIRE_FALSE(run.reply);
        CHECK(run.reply.error().code == ProviderErrc::server_error);
        CHECK(run.reply.error().providerType == "overloaded_error");
        CHECK(run.deltas.size() == 2);  // the text that came before
    }
    SECTION("the connection drops before the stop reason") {
        const std::string raw(kStream.substr(0, kStream.find("event: message_delta")));
        const auto run = test::runStream(anthropic.streamDecoder(names), {raw});
        REQUIRE_FALSE(run.reply);
        CHECK(run.reply.error().code == ProviderErrc::connection_failed);
        CHECK(run.reply.error().retryable());
    }
    SECTION("event data that is not JSON") {
        const auto decoder = anthropic.streamDecoder(names);
        const auto deltas =
            decoder->feed("event: content_block_delta\ndata: {\"type\": \"content_block_delta\", \n\n");
        REQUIRE_FALSE(deltas);
        CHECK(deltas.error().code == ProviderErrc::malformed_response);
        // The decoder stays failed.
        CHECK(decoder->feed("event: ping\ndata: {}\n\n").error().code == ProviderErrc::malformed_response);
        CHECK(decoder->finish().error().code == ProviderErrc::malformed_response);
    }
    SECTION("tool input that never became valid JSON makes a call marked invalid") {
        std::string raw(kStream);
        const std::string tail = R"(ris\"}")";
        raw.replace(raw.find(tail), tail.size(), R"(ris")");
        const auto run = test::runStream(anthropic.streamDecoder(names), {raw});
        REQUIRE(run.reply);
        REQUIRE_FALSE(run.reply->toolCalls.empty());
        CHECK(run.reply->toolCalls[0].name == "get_weather");
        CHECK(run.reply->toolCalls[0].id == "toolu_01");
        REQUIRE(run.reply->toolCalls[0].invalidArguments);
        CHECK_THAT(run.reply->toolCalls[0].invalidArguments->problem, Catch::Contains("incomplete JSON"));
    }
}

TEST_CASE("anthropic: malformed non-streamed bodies", "[providers][anthropic]") {
    const auto notJson = test::decode(anthropic, 200, "{\"type\": \"mess", {});
    REQUIRE_FALSE(notJson);
    CHECK(notJson.error().code == ProviderErrc::malformed_response);
    CHECK(notJson.error().message == "anthropic: the response is not a JSON object: {\"type\": \"mess");
    const auto noContent = test::decode(anthropic, 200, R"({"type":"message"})", {});
    REQUIRE_FALSE(noContent);
    CHECK(noContent.error().code == ProviderErrc::malformed_response);
    // A field of the wrong type does not throw.
    const auto wrongTypes = test::decode(
        anthropic, 200,
        R"({"content":[{"type":"tool_use","id":7,"name":["x"],"input":"s"}],"usage":{"input_tokens":"many"}})",
        {});
    REQUIRE_FALSE(wrongTypes);
    CHECK(wrongTypes.error().code == ProviderErrc::malformed_response);  // a call without a name
}
