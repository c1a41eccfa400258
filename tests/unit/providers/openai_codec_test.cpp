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

const reagent::providers::WireFormat& openai = reagent::providers::wire::openai();

CodecOptions options(bool stream = false) {
    CodecOptions opts;
    opts.model = "gpt-4.1";
    opts.stream = stream;
    return opts;
}

// A streamed reply as Chat Completions sends it with include_usage: text, two tool calls whose id and
// name come first and whose arguments arrive in fragments, finish_reason, a usage chunk, [DONE].
constexpr std::string_view kStream =
    R"(data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"content":"Checking both."},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"ci"}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\": \"Paris\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"files_read","arguments":""}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"path\": \"notes.txt\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":null}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1-2025-04-14","choices":[],"usage":{"prompt_tokens":82,"completion_tokens":40,"total_tokens":122}}

data: [DONE]

)";

test::StreamRun runStream(const std::vector<std::string_view>& chunks) {
    return test::runStream(
        openai.streamDecoder(test::encode(openai, test::conversation(), options()).toolNames), chunks);
}

}  // namespace

TEST_CASE("openai: the request for a conversation with parallel tool calls", "[providers][openai]") {
    const auto encoded = test::encode(openai, test::conversation(), options());
    CHECK(encoded.path == "/chat/completions");
    json expected = json::parse(R"({
        "model": "gpt-4.1",
        "temperature": 0.5,
        "max_tokens": 1024,
        "stream": false,
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Weather in Paris, and read notes.txt?"},
            {"role": "assistant", "content": "Checking both.", "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
                {"id": "call_2", "type": "function",
                 "function": {"name": "files_read", "arguments": "{\"path\":\"notes.txt\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "18\u00b0C, clear"},
            {"role": "tool", "tool_call_id": "call_2", "content": "no such file"}
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
}

TEST_CASE("openai: streaming options, max_completion_tokens, and tool-only assistant turns",
          "[providers][openai]") {
    reagent::llm::ModelRequest request;
    request.messages.push_back(reagent::llm::Message::user("Hi"));
    request.messages.push_back(
        reagent::llm::Message::assistant("", {ToolCall{"c1", "ping", json::object()}}));
    request.maxTokens = 50;
    CodecOptions opts = options(true);
    opts.openAiMaxCompletionTokens = true;
    test::checkJsonEqual(test::encode(openai, request, opts).json(), json::parse(R"({
        "model": "gpt-4.1", "stream": true, "stream_options": {"include_usage": true},
        "max_completion_tokens": 50,
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "ping", "arguments": "{}"}}]}
        ]})"));
}

TEST_CASE("openai: prompt_cache_key only when one is set", "[providers][openai][caching]") {
    CHECK_FALSE(test::encode(openai, test::conversation(), options()).json().contains("prompt_cache_key"));
    CodecOptions keyed = options();
    keyed.promptCacheKey = "conversation-42";
    CHECK(test::encode(openai, test::conversation(), keyed).json()["prompt_cache_key"] == "conversation-42");
}

TEST_CASE("openai: a documented response with tool calls", "[providers][openai]") {
    const auto names = test::encode(openai, test::conversation(), options()).toolNames;
    const auto reply = test::decode(openai, 200, R"({
        "id": "chatcmpl-abc123",
        "object": "chat.completion",
        "created": 1699896916,
        "model": "gpt-4.1-2025-04-14",
        "choices": [{
            "index": 0,
            "message": {
                "role": "assistant",
                "content": null,
                "tool_calls": [
                    {"id": "call_abc123", "type": "function",
                     "function": {"name": "get_weather", "arguments": "{\n\"city\": \"Paris\"\n}"}},
                    {"id": "call_def456", "type": "function",
                     "function": {"name": "files_read", "arguments": "{\"path\": \"notes.txt\"}"}}
                ],
                "refusal": null
            },
            "logprobs": null,
            "finish_reason": "tool_calls"
        }],
        "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99}
    })",
                                    names);
    REQUIRE(reply);
    CHECK(reply->text.empty());
    CHECK(reply->stopReason == StopReason::tool_use);
    CHECK(reply->usage == reagent::llm::Usage{82, 17});
    CHECK(reply->model == "gpt-4.1-2025-04-14");
    REQUIRE(reply->toolCalls.size() == 2);
    CHECK(reply->toolCalls[0] == ToolCall{"call_abc123", "get_weather", {{"city", "Paris"}}});
    CHECK(reply->toolCalls[1] == ToolCall{"call_def456", "files/read", {{"path", "notes.txt"}}});
}

TEST_CASE("openai: finish reasons and refusals", "[providers][openai]") {
    const auto decode = [](const char* message, const char* reason) {
        const std::string body = std::string(R"({"choices":[{"index":0,"message":)") + message +
                                 R"(,"finish_reason":")" + reason + R"("}]})";
        auto reply = test::decode(openai, 200, body, {});
        REQUIRE(reply);
        return *reply;
    };
    CHECK(decode(R"({"content":"hi"})", "stop").stopReason == StopReason::end_turn);
    CHECK(decode(R"({"content":"hi"})", "length").stopReason == StopReason::max_tokens);
    CHECK(decode(R"({"content":null})", "content_filter").stopReason == StopReason::other);
    const auto refusal = decode(R"({"content":null,"refusal":"I can't help with that."})", "stop");
    CHECK(refusal.text == "I can't help with that.");
    // A compatible server that reports "stop" for a tool call still yields tool_use.
    CHECK(decode(R"({"tool_calls":[{"id":"x","type":"function","function":{"name":"f","arguments":"{}"}}]})",
                 "stop")
              .stopReason == StopReason::tool_use);
}

TEST_CASE("openai: every error status, with retry-after-ms", "[providers][openai][errors]") {
    const auto body = [](const char* message, const char* type, const char* code) {
        return std::string(R"({"error":{"message":")") + message + R"(","type":")" + type +
               R"(","param":null,"code":")" + code + R"("}})";
    };
    const std::vector<ErrorCase> cases = {
        {400,
         body("This model's maximum context length is 128000 tokens", "invalid_request_error",
              "context_length_exceeded"),
         ProviderErrc::invalid_request, "invalid_request_error", "maximum context length"},
        {401, body("Incorrect API key provided", "invalid_request_error", "invalid_api_key"),
         ProviderErrc::authentication, "invalid_request_error", "Incorrect API key"},
        {403, body("Country not supported", "request_forbidden", "unsupported_country"),
         ProviderErrc::authentication, "request_forbidden", "Country"},
        {404, body("The model `gpt-9` does not exist", "invalid_request_error", "model_not_found"),
         ProviderErrc::invalid_request, "invalid_request_error", "gpt-9"},
        {422, body("Unprocessable", "invalid_request_error", "x"), ProviderErrc::invalid_request,
         "invalid_request_error", "Unprocessable"},
        {429, body("Rate limit reached for requests", "requests", "rate_limit_exceeded"),
         ProviderErrc::rate_limited, "requests", "Rate limit reached"},
        {429, body("You exceeded your current quota", "insufficient_quota", "insufficient_quota"),
         ProviderErrc::quota_exceeded, "insufficient_quota", "quota"},
        {500, body("The server had an error", "server_error", "x"), ProviderErrc::server_error,
         "server_error", "server had an error"},
        {503, body("The engine is currently overloaded", "server_error", "x"), ProviderErrc::server_error,
         "server_error", "overloaded"},
    };
    for (const ErrorCase& c : cases) {
        INFO("status " << c.status);
        const auto reply = test::decode(openai, c.status, c.body, {},
                                        HttpHeaders{{"retry-after-ms", "1500"}, {"retry-after", "2"}});
        REQUIRE_FALSE(reply);
        CHECK(reply.error().code == c.code);
        CHECK(reply.error().httpStatus == c.status);
        CHECK(reply.error().providerType == c.providerType);
        CHECK(reply.error().message.rfind("openai: ", 0) == 0);
        CHECK_THAT(reply.error().message, Catch::Contains(c.messagePart));
        CHECK(reply.error().retryAfter == 1500ms);
    }
}

TEST_CASE("openai: a streamed reply is the same however the bytes are split", "[providers][openai][stream]") {
    const test::StreamRun whole = test::checkEverySplit(kStream, runStream);
    REQUIRE(whole.reply);
    CHECK(whole.reply->text == "Checking both.");
    CHECK(whole.reply->stopReason == StopReason::tool_use);
    CHECK(whole.reply->usage == reagent::llm::Usage{82, 40});
    CHECK(whole.reply->model == "gpt-4.1-2025-04-14");
    REQUIRE(whole.reply->toolCalls.size() == 2);
    CHECK(whole.reply->toolCalls[0] == ToolCall{"call_a", "get_weather", {{"city", "Paris"}}});
    CHECK(whole.reply->toolCalls[1] == ToolCall{"call_b", "files/read", {{"path", "notes.txt"}}});
    CHECK(test::describe(whole.deltas) ==
          "[text Checking both.][start 0 call_a get_weather][args 0 {\"ci][args 0 ty\": \"Paris\"}]"
          "[start 1 call_b files/read][args 1 {\"path\": \"notes.txt\"}]");
}

TEST_CASE("openai: stream failures", "[providers][openai][stream]") {
    const auto names = test::encode(openai, test::conversation(), options()).toolNames;
    SECTION("an error chunk mid-stream") {
        const std::string raw =
            std::string(kStream.substr(0, kStream.find("\n\n") + 2)) +
            "data: {\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\"}}\n\n";
        const auto run = test::runStream(openai.streamDecoder(names), {raw});
        REQUIRE_FALSE(run.reply);
        CHECK(run.reply.error().code == ProviderErrc::server_error);
        CHECK(run.reply.error().providerType == "server_error");
    }
    SECTION("the connection drops before finish_reason") {
        const std::string raw(kStream.substr(0, kStream.find(R"("finish_reason":"tool_calls")")));
        const auto run = test::runStream(openai.streamDecoder(names), {raw.substr(0, raw.rfind("\n\n") + 2)});
        REQUIRE_FALSE(run.reply);
        CHECK(run.reply.error().code == ProviderErrc::connection_failed);
    }
    SECTION("arguments that are not valid JSON make a call marked invalid, with the text and the problem") {
        std::string raw(kStream);
        const std::string fragment = R"(ty\": \"Paris\"}")";
        raw.replace(raw.find(fragment), fragment.size(), R"(ty\": \"Par")");
        const auto run = test::runStream(openai.streamDecoder(names), {raw});
        REQUIRE(run.reply);
        REQUIRE_FALSE(run.reply->toolCalls.empty());
        const auto& call = run.reply->toolCalls[0];
        CHECK(call.name == "get_weather");
        CHECK(call.arguments == json::object());
        REQUIRE(call.invalidArguments);
        CHECK(call.invalidArguments->text == "{\"city\": \"Par");
        CHECK_THAT(call.invalidArguments->problem, Catch::StartsWith("arguments are not valid JSON: "));
        CHECK_THAT(call.invalidArguments->problem, Catch::Contains("incomplete JSON at byte 13 of 13"));
    }
    SECTION("data that is neither JSON nor [DONE]") {
        const auto run = test::runStream(openai.streamDecoder(names), {"data: [DONE\n\n"});
        REQUIRE_FALSE(run.reply);
        CHECK(run.reply.error().code == ProviderErrc::malformed_response);
    }
}

TEST_CASE("openai: malformed non-streamed bodies", "[providers][openai]") {
    const auto notJson = test::decode(openai, 200, "<html>", {});
    REQUIRE_FALSE(notJson);
    CHECK(notJson.error().code == ProviderErrc::malformed_response);
    const auto noChoice = test::decode(openai, 200, R"({"choices":[]})", {});
    REQUIRE_FALSE(noChoice);
    CHECK(noChoice.error().code == ProviderErrc::malformed_response);
    const auto badArguments = test::decode(
        openai, 200,
        R"({"choices":[{"index":0,"message":{"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{oops"}}]},"finish_reason":"tool_calls"}]})",
        {});
    REQUIRE(badArguments);
    REQUIRE(badArguments->toolCalls.size() == 1);
    REQUIRE(badArguments->toolCalls[0].invalidArguments);
    CHECK(badArguments->toolCalls[0].invalidArguments->text == "{oops");
    CHECK_THAT(badArguments->toolCalls[0].invalidArguments->problem, Catch::Contains("at byte 1 of 5"));
}
