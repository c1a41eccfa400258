// Every response fixture under tests/fixtures/providers (written from each provider's published API
// reference, and replayed by tests/peers/provider_peer.py) decodes with its codec to the reply it shows.

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "codec_fixture.hpp"
#include "reagent/providers/wire_format.hpp"

using namespace std::chrono_literals;
using nlohmann::json;
using reagent::llm::ProviderErrc;
using reagent::llm::StopReason;
using reagent::providers::ToolNameMap;
using reagent::providers::ToolNameRules;
namespace test = reagent::test;

namespace {

const reagent::providers::WireFormat& anthropic = reagent::providers::wire::anthropic();
const reagent::providers::WireFormat& gemini = reagent::providers::wire::gemini();
const reagent::providers::WireFormat& ollama = reagent::providers::wire::ollama();
const reagent::providers::WireFormat& openai = reagent::providers::wire::openai();

std::string fixture(const std::string& relative) {
    const std::string path = std::string(REAGENT_FIXTURES_DIR) + "/" + relative;
    std::ifstream in(path, std::ios::binary);
    INFO("fixture " << path);
    REQUIRE(in.good());
    std::ostringstream content;
    content << in.rdbuf();
    return content.str();
}

// The tools every fixture's request declared: both names are valid as is, so the map is the identity.
ToolNameMap names(ToolNameRules rules = ToolNameRules::standard) {
    std::vector<reagent::llm::ToolSpec> tools;
    tools.push_back(reagent::llm::ToolSpec{"get_weather", "Current weather", json::object()});
    tools.push_back(reagent::llm::ToolSpec{"get_time", "Local time", json::object()});
    return ToolNameMap(tools, rules);
}

const json kParis = {{"location", "Paris, France"}};
const json kTimezone = {{"timezone", "Europe/Paris"}};
constexpr const char* kGreeting = "Hello! The capital of France is Paris.";

void checkReply(const test::Reply& reply, const std::string& text, StopReason stop, std::int64_t input,
                std::int64_t output, const std::string& model) {
    INFO(test::describe(reply));
    REQUIRE(reply.has_value());
    CHECK(reply->text == text);
    CHECK(reply->stopReason == stop);
    CHECK(reply->usage.inputTokens == input);
    CHECK(reply->usage.outputTokens == output);
    CHECK(reply->model == model);
}

void checkCall(const test::Reply& reply, std::size_t index, const std::string& id, const std::string& name,
               const json& arguments) {
    INFO(test::describe(reply));
    REQUIRE(reply.has_value());
    REQUIRE(reply->toolCalls.size() > index);
    const reagent::llm::ToolCall& call = reply->toolCalls[index];
    if (id.empty()) {
        // Gemini and Ollama send no id: a stable one is synthesized.
        CHECK(call.id.rfind("call_" + std::to_string(index) + "_", 0) == 0);
    } else {
        CHECK(call.id == id);
    }
    CHECK(call.name == name);
    CHECK(call.arguments == arguments);
}

void checkError(const test::Reply& reply, ProviderErrc code, const std::string& providerType,
                const std::string& messagePart) {
    INFO(test::describe(reply));
    REQUIRE_FALSE(reply.has_value());
    CHECK(reply.error().code == code);
    CHECK(reply.error().providerType == providerType);
    CHECK_THAT(reply.error().message, Catch::Contains(messagePart));
}

test::StreamRun anthropicStream(const std::string& raw) {
    return test::checkEverySplit(raw, [](const std::vector<std::string_view>& chunks) {
        return test::runStream(anthropic.streamDecoder(names()), chunks);
    });
}
test::StreamRun openaiStream(const std::string& raw) {
    return test::checkEverySplit(raw, [](const std::vector<std::string_view>& chunks) {
        return test::runStream(openai.streamDecoder(names()), chunks);
    });
}
test::StreamRun geminiStream(const std::string& raw) {
    return test::checkEverySplit(raw, [](const std::vector<std::string_view>& chunks) {
        return test::runStream(gemini.streamDecoder(names(ToolNameRules::gemini)), chunks);
    });
}
test::StreamRun ollamaStream(const std::string& raw) {
    return test::checkEverySplit(raw, [](const std::vector<std::string_view>& chunks) {
        return test::runStream(ollama.streamDecoder(names()), chunks);
    });
}

}  // namespace

TEST_CASE("Anthropic fixtures decode", "[providers][fixtures][anthropic]") {
    constexpr const char* kModel = "claude-sonnet-4-5-20250929";
    const std::string weatherId = "toolu_01HkVq3xR7mN2pLw8sTzYc4D";
    const std::string timeId = "toolu_01Jr5tW9bQ6nM3kXv2pLs8Ha";
    const std::string lookUp = "I'll look up the weather and the local time in Paris.";

    SECTION("text") {
        const auto reply = test::decode(anthropic, 200, fixture("anthropic/text.json"), names());
        checkReply(reply, kGreeting, StopReason::end_turn, 14, 12, kModel);
        CHECK(reply->toolCalls.empty());
    }
    SECTION("one tool call") {
        const auto reply = test::decode(anthropic, 200, fixture("anthropic/tool_call.json"), names());
        checkReply(reply, "I'll check the current weather in Paris for you.", StopReason::tool_use, 398, 74,
                   kModel);
        REQUIRE(reply->toolCalls.size() == 1);
        checkCall(reply, 0, "toolu_01A09q90qw90lq917835lq9", "get_weather", kParis);
    }
    SECTION("two parallel tool calls") {
        const auto reply = test::decode(anthropic, 200, fixture("anthropic/parallel_tools.json"), names());
        checkReply(reply, lookUp, StopReason::tool_use, 472, 121, kModel);
        REQUIRE(reply->toolCalls.size() == 2);
        checkCall(reply, 0, weatherId, "get_weather", kParis);
        checkCall(reply, 1, timeId, "get_time", kTimezone);
    }
    SECTION("streamed text") {
        const auto run = anthropicStream(fixture("anthropic/text.sse"));
        checkReply(run.reply, kGreeting, StopReason::end_turn, 14, 12, kModel);
        CHECK(test::describe(run.deltas) == "[text Hello! The][text  capital of France][text  is Paris.]");
    }
    SECTION("streamed parallel tool calls") {
        const auto run = anthropicStream(fixture("anthropic/parallel_tools.sse"));
        checkReply(run.reply, lookUp, StopReason::tool_use, 472, 121, kModel);
        REQUIRE(run.reply->toolCalls.size() == 2);
        checkCall(run.reply, 0, weatherId, "get_weather", kParis);
        checkCall(run.reply, 1, timeId, "get_time", kTimezone);
        CHECK(
            test::describe(run.reply) ==
            test::describe(test::decode(anthropic, 200, fixture("anthropic/parallel_tools.json"), names())));
    }
    SECTION("error event inside the stream") {
        const auto run = anthropicStream(fixture("anthropic/stream_error.sse"));
        checkError(run.reply, ProviderErrc::server_error, "overloaded_error", "Overloaded");
    }
    SECTION("error statuses") {
        checkError(test::decode(anthropic, 429, fixture("anthropic/error_429.json"), names()),
                   ProviderErrc::rate_limited, "rate_limit_error", "exceed the rate limit");
        checkError(test::decode(anthropic, 529, fixture("anthropic/error_529.json"), names()),
                   ProviderErrc::server_error, "overloaded_error", "Overloaded");
        checkError(test::decode(anthropic, 400, fixture("anthropic/error_400.json"), names()),
                   ProviderErrc::invalid_request, "invalid_request_error", "unexpected `tool_use_id`");
        checkError(test::decode(anthropic, 401, fixture("anthropic/error_401.json"), names()),
                   ProviderErrc::authentication, "authentication_error", "invalid x-api-key");
    }
}

TEST_CASE("OpenAI fixtures decode", "[providers][fixtures][openai]") {
    constexpr const char* kModel = "gpt-4.1-2025-04-14";
    const std::string weatherId = "call_7PwXk2Rt9mLq4ZsV8nHc3JyB";
    const std::string timeId = "call_Qd5Lm8Vr2Xw6Nk9Tp3Hs7YcZ";

    SECTION("text") {
        const auto reply = test::decode(openai, 200, fixture("openai/text.json"), names());
        checkReply(reply, kGreeting, StopReason::end_turn, 19, 10, kModel);
    }
    SECTION("one tool call") {
        const auto reply = test::decode(openai, 200, fixture("openai/tool_call.json"), names());
        checkReply(reply, "", StopReason::tool_use, 82, 17, kModel);
        REQUIRE(reply->toolCalls.size() == 1);
        checkCall(reply, 0, "call_3kGqZrYvN8w2LmPx5TbHs7Jd", "get_weather", kParis);
    }
    SECTION("two parallel tool calls") {
        const auto reply = test::decode(openai, 200, fixture("openai/parallel_tools.json"), names());
        checkReply(reply, "", StopReason::tool_use, 97, 51, kModel);
        REQUIRE(reply->toolCalls.size() == 2);
        checkCall(reply, 0, weatherId, "get_weather", kParis);
        checkCall(reply, 1, timeId, "get_time", kTimezone);
    }
    SECTION("streamed text") {
        const auto run = openaiStream(fixture("openai/text.sse"));
        checkReply(run.reply, kGreeting, StopReason::end_turn, 19, 10, kModel);
    }
    SECTION("streamed parallel tool calls") {
        const auto run = openaiStream(fixture("openai/parallel_tools.sse"));
        checkReply(run.reply, "", StopReason::tool_use, 97, 51, kModel);
        REQUIRE(run.reply->toolCalls.size() == 2);
        checkCall(run.reply, 0, weatherId, "get_weather", kParis);
        checkCall(run.reply, 1, timeId, "get_time", kTimezone);
        CHECK(test::describe(run.reply) ==
              test::describe(test::decode(openai, 200, fixture("openai/parallel_tools.json"), names())));
    }
    SECTION("error statuses") {
        checkError(test::decode(openai, 429, fixture("openai/error_429.json"), names()),
                   ProviderErrc::rate_limited, "tokens", "Rate limit reached for gpt-4.1");
        checkError(test::decode(openai, 429, fixture("openai/error_429_quota.json"), names()),
                   ProviderErrc::quota_exceeded, "insufficient_quota", "exceeded your current quota");
        checkError(test::decode(openai, 401, fixture("openai/error_401.json"), names()),
                   ProviderErrc::authentication, "invalid_request_error", "Incorrect API key provided");
        checkError(test::decode(openai, 400, fixture("openai/error_400.json"), names()),
                   ProviderErrc::invalid_request, "invalid_request_error", "role 'tool'");
    }
}

TEST_CASE("Gemini fixtures decode", "[providers][fixtures][gemini]") {
    constexpr const char* kModel = "gemini-2.5-flash";
    const ToolNameMap map = names(ToolNameRules::gemini);
    const std::string signaturePrefix =
        "CiQB0e2Kb3Jq7m5aZ0bWx8hR4pN1vY2sT6uQ9kL3cF7dH8gE5jIKcgHR7YpX2nW9mQ4s";

    SECTION("text") {
        const auto reply = test::decode(gemini, 200, fixture("gemini/text.json"), map);
        checkReply(reply, kGreeting, StopReason::end_turn, 8, 10, kModel);
    }
    SECTION("one tool call, with its thought signature") {
        const auto reply = test::decode(gemini, 200, fixture("gemini/tool_call.json"), map);
        // Output usage counts candidate (16) and thought (87) tokens.
        checkReply(reply, "", StopReason::tool_use, 63, 103, kModel);
        REQUIRE(reply->toolCalls.size() == 1);
        checkCall(reply, 0, "", "get_weather", kParis);
        CHECK(reply->toolCalls[0].signature.rfind(signaturePrefix, 0) == 0);
    }
    SECTION("two parallel tool calls") {
        const auto reply = test::decode(gemini, 200, fixture("gemini/parallel_tools.json"), map);
        checkReply(reply, "", StopReason::tool_use, 81, 143, kModel);
        REQUIRE(reply->toolCalls.size() == 2);
        checkCall(reply, 0, "", "get_weather", kParis);
        checkCall(reply, 1, "", "get_time", kTimezone);
        CHECK(reply->toolCalls[0].id != reply->toolCalls[1].id);
        CHECK(reply->toolCalls[0].signature.rfind(signaturePrefix, 0) == 0);
        CHECK(reply->toolCalls[1].signature.empty());
    }
    SECTION("streamed text (CRLF-framed events)") {
        const auto run = geminiStream(fixture("gemini/text.sse"));
        checkReply(run.reply, kGreeting, StopReason::end_turn, 8, 10, kModel);
        CHECK(test::describe(run.deltas) == "[text Hello! The capital][text  of France is][text  Paris.]");
    }
    SECTION("streamed parallel tool calls") {
        const auto run = geminiStream(fixture("gemini/parallel_tools.sse"));
        checkReply(run.reply, "Checking the weather and the time in Paris.", StopReason::tool_use, 81, 153,
                   kModel);
        REQUIRE(run.reply->toolCalls.size() == 2);
        checkCall(run.reply, 0, "", "get_weather", kParis);
        checkCall(run.reply, 1, "", "get_time", kTimezone);
        CHECK(run.reply->toolCalls[0].signature.rfind(signaturePrefix, 0) == 0);
    }
    SECTION("error statuses") {
        const auto limited = test::decode(gemini, 429, fixture("gemini/error_429.json"), map);
        checkError(limited, ProviderErrc::rate_limited, "RESOURCE_EXHAUSTED", "exceeded your current quota");
        CHECK(limited.error().retryAfter == std::optional<std::chrono::milliseconds>(17s));
        checkError(test::decode(gemini, 400, fixture("gemini/error_400.json"), map),
                   ProviderErrc::invalid_request, "INVALID_ARGUMENT", "API key not valid");
        checkError(test::decode(gemini, 503, fixture("gemini/error_503.json"), map),
                   ProviderErrc::server_error, "UNAVAILABLE", "overloaded");
    }
}

TEST_CASE("Ollama fixtures decode", "[providers][fixtures][ollama]") {
    constexpr const char* kModel = "qwen3";

    SECTION("text") {
        const auto reply = test::decode(ollama, 200, fixture("ollama/text.json"), names());
        checkReply(reply, kGreeting, StopReason::end_turn, 26, 11, kModel);
    }
    SECTION("one tool call") {
        const auto reply = test::decode(ollama, 200, fixture("ollama/tool_call.json"), names());
        checkReply(reply, "", StopReason::tool_use, 181, 24, kModel);
        REQUIRE(reply->toolCalls.size() == 1);
        checkCall(reply, 0, "", "get_weather", kParis);
    }
    SECTION("two parallel tool calls") {
        const auto reply = test::decode(ollama, 200, fixture("ollama/parallel_tools.json"), names());
        checkReply(reply, "", StopReason::tool_use, 212, 47, kModel);
        REQUIRE(reply->toolCalls.size() == 2);
        checkCall(reply, 0, "", "get_weather", kParis);
        checkCall(reply, 1, "", "get_time", kTimezone);
    }
    SECTION("streamed text") {
        const auto run = ollamaStream(fixture("ollama/text.ndjson"));
        checkReply(run.reply, kGreeting, StopReason::end_turn, 26, 11, kModel);
    }
    SECTION("streamed parallel tool calls, one per line") {
        const auto run = ollamaStream(fixture("ollama/parallel_tools.ndjson"));
        checkReply(run.reply, "", StopReason::tool_use, 212, 47, kModel);
        REQUIRE(run.reply->toolCalls.size() == 2);
        checkCall(run.reply, 0, "", "get_weather", kParis);
        checkCall(run.reply, 1, "", "get_time", kTimezone);
        CHECK(test::describe(run.reply) ==
              test::describe(test::decode(ollama, 200, fixture("ollama/parallel_tools.json"), names())));
    }
    SECTION("error line inside the stream") {
        // Not split every way: a feed() that fails returns no deltas, so where the cut falls decides
        // whether the text before the error was reported.
        const std::string raw = fixture("ollama/stream_error.ndjson");
        const auto whole = test::runStream(ollama.streamDecoder(names()), {raw});
        checkError(whole.reply, ProviderErrc::server_error, "", "unexpected EOF");
        const std::size_t firstLine = raw.find('\n') + 1;
        const auto split = test::runStream(
            ollama.streamDecoder(names()),
            {std::string_view(raw).substr(0, firstLine), std::string_view(raw).substr(firstLine)});
        checkError(split.reply, ProviderErrc::server_error, "", "unexpected EOF");
        CHECK(test::describe(split.deltas) == "[text Hello]");
    }
    SECTION("error statuses") {
        checkError(test::decode(ollama, 404, fixture("ollama/error_404.json"), names()),
                   ProviderErrc::invalid_request, "", "model \"qwen3\" not found");
        checkError(test::decode(ollama, 400, fixture("ollama/error_400.json"), names()),
                   ProviderErrc::invalid_request, "", "does not support tools");
    }
}

TEST_CASE("cache and reasoning tokens are read from each API's usage, streamed or not",
          "[providers][fixtures][usage]") {
    struct Case {
        const char* name;
        const reagent::providers::WireFormat* format;
        ToolNameRules rules;
        reagent::llm::Usage expected;
    };
    // Input counts cache reads and writes (Anthropic reports them beside `input_tokens`); output counts
    // reasoning (Gemini reports thoughts beside the candidates).
    const auto testCase = GENERATE(
        Case{"anthropic", &anthropic, ToolNameRules::standard, {21 + 1536 + 4096, 12, 4096, 1536, 0}},
        Case{"openai", &openai, ToolNameRules::standard, {2006, 300, 1920, 0, 256}},
        Case{"gemini", &gemini, ToolNameRules::gemini, {2048, 130, 1024, 0, 120}});
    CAPTURE(testCase.name);
    const std::string dir = std::string(testCase.name) + "/";
    const auto whole =
        test::decode(*testCase.format, 200, fixture(dir + "usage_cached.json"), names(testCase.rules));
    INFO(test::describe(whole));
    REQUIRE(whole);
    CHECK(whole->text == kGreeting);
    CHECK(whole->usage == testCase.expected);
    const test::StreamRun streamed = test::checkEverySplit(
        fixture(dir + "usage_cached.sse"), [&](const std::vector<std::string_view>& chunks) {
            return test::runStream(testCase.format->streamDecoder(names(testCase.rules)), chunks);
        });
    REQUIRE(streamed.reply);
    CHECK(streamed.reply->usage == testCase.expected);
}
