// A full agent loop (a tool-call turn, then the final text) against the provider peer, for each wire
// format, non-streamed and streamed: the exact request bodies sent, the headers, the answer, the usage.

#include <boost/describe/class.hpp>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "media_fixtures.hpp"
#include "provider_test_support.hpp"
#include "reagent/agent/conversation.hpp"
#include "reagent/core/base64.hpp"
#include "reagent/telemetry/telemetry.hpp"

// The typed answer of the structured-output case (fixtures `*/structured.json`).
namespace provider_output {
struct Weather {
    std::string city;
    int temperature = 0;
    std::string conditions;
};
BOOST_DESCRIBE_STRUCT(Weather, (), (city, temperature, conditions))
}  // namespace provider_output

using reagent::agent::Agent;
using reagent::agent::AgentEvent;
using reagent::agent::ModelResponded;
using reagent::agent::TextDelta;
using reagent::agent::ToolCallDelta;
using reagent::providers::ProviderKind;
using namespace reagent::test;
using reagent::test::tinyPdf;
using reagent::test::tinyPng;

namespace {

struct LoopCase {
    ProviderKind kind;
    bool streamed;
};

std::string dirOf(ProviderKind kind) {
    return std::string(reagent::providers::toString(kind));
}

json loopScript(ProviderKind kind, bool streamed) {
    const std::string dir = dirOf(kind) + "/";
    const std::string ext = kind == ProviderKind::ollama ? ".ndjson" : ".sse";
    const std::string type = kind == ProviderKind::ollama ? "application/x-ndjson" : "text/event-stream";
    if (streamed) {
        return json{{"responses",
                     {streamResponse(fixture(dir + "parallel_tools" + ext), type),
                      streamResponse(fixture(dir + "text" + ext), type)}}};
    }
    return json{{"responses",
                 {bodyResponse(fixture(dir + "tool_call.json")), bodyResponse(fixture(dir + "text.json"))}}};
}

// The exact bodies expected, kept as files: tests/integration/providers/expected/<kind>_<mode>_<n>.json.
// REAGENT_UPDATE_EXPECTED=1 rewrites them from what was sent (then review the diff).
std::string expectedBody(ProviderKind kind, const std::string& mode, int call, const std::string& actual) {
    const std::string path =
        std::string(REAGENT_EXPECTED_DIR) + "/" + dirOf(kind) + mode + std::to_string(call) + ".json";
    if (std::getenv("REAGENT_UPDATE_EXPECTED") != nullptr) {
        std::ofstream(path, std::ios::binary) << actual;
        return actual;
    }
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// runAs<Weather> through the provider `config` describes, with the fixture tools and a system prompt.
reagent::expected<provider_output::Weather, reagent::agent::AgentError> askWeather(
    Loop& loop, const reagent::providers::ProviderConfig& config) {
    auto provider = reagent::providers::makeProvider(config);
    REQUIRE(provider);
    auto agent = Agent::create()
                     .withProvider(*provider)
                     .withTools(fixtureTools())
                     .withSystemPrompt("You are a terse assistant.")
                     .withOutput<provider_output::Weather>()
                     .build();
    REQUIRE(agent);
    return loop.run(agent->runAs<provider_output::Weather>("What is the weather in Paris?"));
}

}  // namespace

TEST_CASE("a full agent loop against each provider's wire format", "[integration][providers]") {
    const auto testCase =
        GENERATE(LoopCase{ProviderKind::anthropic, false}, LoopCase{ProviderKind::anthropic, true},
                 LoopCase{ProviderKind::openai, false}, LoopCase{ProviderKind::openai, true},
                 LoopCase{ProviderKind::gemini, false}, LoopCase{ProviderKind::gemini, true},
                 LoopCase{ProviderKind::ollama, false}, LoopCase{ProviderKind::ollama, true});
    const ProviderKind kind = testCase.kind;
    const bool streamed = testCase.streamed;
    CAPTURE(dirOf(kind), streamed);

    ProviderPeer peer(loopScript(kind, streamed));
    Loop loop;
    auto provider = reagent::providers::makeProvider(peerConfig(kind, peer, streamed));
    REQUIRE(provider);
    auto agent = Agent::create()
                     .withProvider(*provider)
                     .withTools(fixtureTools())
                     .withSystemPrompt("You are a terse assistant.")
                     .build();
    REQUIRE(agent);

    std::map<int, std::string> streamedText;
    std::vector<std::string> callNames;
    reagent::llm::Usage reported;
    agent->subscribe([&](const AgentEvent& event) {
        if (const auto* text = std::get_if<TextDelta>(&event)) {
            streamedText[text->iteration] += text->text;
        } else if (const auto* call = std::get_if<ToolCallDelta>(&event)) {
            if (!call->name.empty()) {
                callNames.push_back(call->name);
            }
        } else if (const auto* model = std::get_if<ModelResponded>(&event)) {
            reported += model->usage;
        }
    });

    const auto result = loop.run(agent->run("What is the weather in Paris, and the time there?"));
    INFO((result.error() ? result.error()->describe() : std::string()));
    REQUIRE(result.success());
    CHECK(result.terminatedBy == reagent::agent::TerminatedBy::end_turn);
    CHECK(result.output == "Hello! The capital of France is Paris.");
    CHECK(result.iterations == 2);
    // Usage per run is the sum of both turns, as the provider reported them.
    CHECK(result.usage == reported);
    CHECK(result.usage.inputTokens > 0);
    CHECK(result.usage.outputTokens > 0);

    REQUIRE(!result.toolCalls.empty());
    CHECK(result.toolCalls[0].name == "get_weather");
    REQUIRE(result.toolCalls[0].outcome);
    CHECK(*result.toolCalls[0].outcome == "18C and sunny in Paris, France");
    if (streamed) {
        CHECK(result.toolCalls.size() == 2);
        // Each turn's text arrived piece by piece; the answer is the second turn's.
        REQUIRE(!streamedText.empty());
        CHECK(streamedText.rbegin()->second == "Hello! The capital of France is Paris.");
        CHECK(callNames == std::vector<std::string>{"get_weather", "get_time"});
    } else {
        CHECK(result.toolCalls.size() == 1);
        CHECK(streamedText.empty());
    }

    const json recorded = peer.requests();
    REQUIRE(recorded.size() == 2);
    for (int call = 0; call < 2; ++call) {
        const json& request = recorded[call];
        CAPTURE(call);
        CHECK(request["method"] == "POST");
        const json& headers = request["headers"];
        CHECK(headers["content-type"] == "application/json");
        switch (kind) {
            case ProviderKind::anthropic:
                CHECK(request["path"] == "/v1/messages");
                CHECK(headers["x-api-key"] == "test-key");
                CHECK(headers["anthropic-version"] == "2023-06-01");
                break;
            case ProviderKind::openai:
                CHECK(request["path"] == "/v1/chat/completions");
                CHECK(headers["authorization"] == "Bearer test-key");
                break;
            case ProviderKind::gemini:
                CHECK(request["path"] == std::string("/v1beta/models/gemini-2.5-flash:") +
                                             (streamed ? "streamGenerateContent" : "generateContent"));
                CHECK(request["query"] == (streamed ? "alt=sse" : ""));
                CHECK(headers["x-goog-api-key"] == "test-key");
                break;
            case ProviderKind::ollama:
                CHECK(request["path"] == "/api/chat");
                CHECK(headers["authorization"] == "Bearer test-key");
                break;
        }
        const std::string body = request["body"].get<std::string>();
        CHECK(body == expectedBody(kind, streamed ? "_stream_" : "_", call + 1, body));
    }
    // The second call carries the tool result in the provider's own format.
    const std::string second = recorded[1]["body"].get<std::string>();
    CHECK(second.find("18C and sunny in Paris, France") != std::string::npos);
}

TEST_CASE("a traced agent's requests carry their chat spans, which record what each API answered",
          "[integration][providers][telemetry]") {
    namespace telemetry = reagent::telemetry;
    const auto testCase =
        GENERATE(LoopCase{ProviderKind::anthropic, false}, LoopCase{ProviderKind::anthropic, true},
                 LoopCase{ProviderKind::openai, false}, LoopCase{ProviderKind::openai, true},
                 LoopCase{ProviderKind::gemini, false}, LoopCase{ProviderKind::ollama, false});
    CAPTURE(dirOf(testCase.kind), testCase.streamed);
    ProviderPeer peer(loopScript(testCase.kind, testCase.streamed));
    Loop loop;
    auto provider = reagent::providers::makeProvider(peerConfig(testCase.kind, peer, testCase.streamed));
    REQUIRE(provider);
    auto sink = std::make_shared<telemetry::InMemorySpanSink>();
    auto traced = std::make_shared<telemetry::Telemetry>(
        telemetry::SamplerConfig{}, sink,
        telemetry::InstrumentationOptions{telemetry::GenAiConventions::latest, false});
    auto agent =
        Agent::create().withProvider(*provider).withTools(fixtureTools()).withTelemetry(traced).build();
    REQUIRE(agent);
    if (testCase.streamed) {
        agent->subscribe([](const AgentEvent&) {});  // a subscriber: the provider streams
    }
    const auto result = loop.run(agent->run("What is the weather in Paris, and the time there?"));
    REQUIRE(result.success());

    std::vector<telemetry::SpanData> chats;
    std::vector<telemetry::SpanData> posts;
    for (const auto& span : sink->spans()) {
        if (span.name.rfind("chat", 0) == 0) {
            chats.push_back(span);
        }
        if (span.name == "POST") {
            posts.push_back(span);
        }
        for (const auto& attribute : span.attributes) {
            if (const auto* text = std::get_if<std::string>(&attribute.value)) {
                CHECK(text->find("test-key") == std::string::npos);
            }
        }
    }
    const json recorded = peer.requests();
    REQUIRE(recorded.size() == 2);
    REQUIRE(chats.size() == 2);
    const auto attribute = [](const telemetry::SpanData& span, const std::string& key) {
        for (const auto& item : span.attributes) {
            if (item.key == key) {
                return std::get<std::string>(item.value);
            }
        }
        return std::string();
    };
    const std::string providerName =
        testCase.kind == ProviderKind::gemini ? "gcp.gemini" : dirOf(testCase.kind);
    REQUIRE(posts.size() == 2);  // one HTTP attempt per model call, under it
    for (int call = 0; call < 2; ++call) {
        CAPTURE(call);
        // The API continues the trace under the attempt's span.
        CHECK(recorded[call]["headers"]["traceparent"] == telemetry::formatTraceparent(posts[call].context));
        CHECK(posts[call].parentSpanId == chats[call].context.spanId);
        CHECK(posts[call].kind == telemetry::SpanKind::client);
        CHECK(attribute(posts[call], "server.address") == "127.0.0.1");
        CHECK(attribute(posts[call], "url.full").find("127.0.0.1") != std::string::npos);
        CHECK(attribute(posts[call], "url.full").find('?') ==
              std::string::npos);  // no query: it may hold a key
        CHECK(chats[call].kind == telemetry::SpanKind::client);
        CHECK(attribute(chats[call], "gen_ai.provider.name") == providerName);
        CHECK(chats[call].name == "chat " + attribute(chats[call], "gen_ai.request.model"));
        CHECK_FALSE(attribute(chats[call], "gen_ai.response.model").empty());
        if (testCase.kind != ProviderKind::ollama) {  // Ollama's API gives no response id
            CHECK_FALSE(attribute(chats[call], "gen_ai.response.id").empty());
        }
    }
}

TEST_CASE("each HTTP attempt of a model call is a client span of its own, a retry counted",
          "[providers][telemetry]") {
    namespace telemetry = reagent::telemetry;
    const json answer{{"role", "assistant"}, {"content", "Fine."}};
    ProviderPeer peer(json{{"responses",
                            {{{"status", 503},
                              {"headers", {{"retry-after", "0"}}},
                              {"body", R"({"error":{"message":"overloaded","type":"server_error"}})"}},
                             {{"body", openAiReplyBody(answer, "stop")}}}}});
    Loop loop;
    auto provider = reagent::providers::makeProvider(peerConfig(ProviderKind::openai, peer, false));
    REQUIRE(provider);
    auto sink = std::make_shared<telemetry::InMemorySpanSink>();
    auto traced = std::make_shared<telemetry::Telemetry>(telemetry::SamplerConfig{}, sink);
    auto agent = Agent::create().withProvider(*provider).withTelemetry(traced).build();
    REQUIRE(agent);
    REQUIRE(loop.run(agent->run("How are you?")).success());

    std::vector<telemetry::SpanData> posts;
    const telemetry::SpanData* chat = nullptr;
    const auto spans = sink->spans();
    for (const auto& span : spans) {
        if (span.name == "POST") {
            posts.push_back(span);
        } else if (span.name.rfind("chat", 0) == 0) {
            chat = &span;
        }
    }
    REQUIRE(chat != nullptr);
    REQUIRE(posts.size() == 2);
    const auto number = [](const telemetry::SpanData& span, const std::string& key) {
        for (const auto& item : span.attributes) {
            if (item.key == key) {
                return std::get<std::int64_t>(item.value);
            }
        }
        return std::int64_t{-1};
    };
    CHECK(number(posts[0], "http.response.status_code") == 503);
    CHECK(posts[0].status == telemetry::StatusCode::error);
    CHECK(number(posts[0], "http.request.resend_count") == -1);
    CHECK(number(posts[1], "http.response.status_code") == 200);
    CHECK(number(posts[1], "http.request.resend_count") == 1);
    CHECK(posts[1].status == telemetry::StatusCode::unset);
    const json recorded = peer.requests();
    REQUIRE(recorded.size() == 2);
    for (int attempt = 0; attempt < 2; ++attempt) {
        CHECK(posts[attempt].parentSpanId == chat->context.spanId);
        CHECK(recorded[attempt]["headers"]["traceparent"] ==
              telemetry::formatTraceparent(posts[attempt].context));
    }
}

TEST_CASE("runAs<T> gets a typed answer through each provider's structured-output field",
          "[integration][providers][output]") {
    using provider_output::Weather;
    const ProviderKind kind =
        GENERATE(ProviderKind::anthropic, ProviderKind::openai, ProviderKind::gemini, ProviderKind::ollama);
    CAPTURE(dirOf(kind));
    const std::string dir = dirOf(kind) + "/";
    // A tool call first: the schema constrains the final answer, not the tool turns.
    ProviderPeer peer(json{
        {"responses",
         {bodyResponse(fixture(dir + "tool_call.json")), bodyResponse(fixture(dir + "structured.json"))}}});
    Loop loop;
    const auto weather = askWeather(loop, peerConfig(kind, peer, false));
    INFO((weather ? std::string() : weather.error().describe()));
    REQUIRE(weather);
    CHECK(weather->city == "Paris");
    CHECK(weather->temperature == 18);
    CHECK(weather->conditions == "sunny");

    // Both requests carry the schema in the API's own field (Gemini 2.5 refuses it beside tools: only the
    // prompt carries it there), and the tools stay offered.
    const json recorded = peer.requests();
    REQUIRE(recorded.size() == 2);
    for (int call = 0; call < 2; ++call) {
        CAPTURE(call);
        const std::string body = recorded[call]["body"].get<std::string>();
        CHECK(body == expectedBody(kind, "_output_", call + 1, body));
        const json sent = json::parse(body);
        CHECK(sent.contains("tools"));
        switch (kind) {
            case ProviderKind::anthropic:
                CHECK(sent["output_config"]["format"]["type"] == "json_schema");
                CHECK(sent["output_config"]["format"]["schema"]["required"] ==
                      json{"city", "temperature", "conditions"});
                break;
            case ProviderKind::openai:
                CHECK(sent["response_format"]["type"] == "json_schema");
                CHECK(sent["response_format"]["json_schema"]["strict"] == true);
                break;
            case ProviderKind::gemini:
                CHECK_FALSE(sent.contains("generationConfig"));
                break;
            case ProviderKind::ollama:
                CHECK(sent["format"]["type"] == "object");
                break;
        }
    }
}

TEST_CASE("Gemini 3 and NativeOutput::always send the schema beside tools, never leaves it out",
          "[integration][providers][output]") {
    using provider_output::Weather;
    struct Case {
        std::string model;
        reagent::providers::NativeOutput mode;
        bool sent;
    };
    const auto testCase =
        GENERATE(Case{"gemini-3-pro-preview", reagent::providers::NativeOutput::automatic, true},
                 Case{"gemini-2.5-flash", reagent::providers::NativeOutput::always, true},
                 Case{"gemini-3-pro-preview", reagent::providers::NativeOutput::never, false});
    CAPTURE(testCase.model, static_cast<int>(testCase.mode));
    ProviderPeer peer(json{{"responses", {bodyResponse(fixture("gemini/structured.json"))}}});
    Loop loop;
    auto config = peerConfig(ProviderKind::gemini, peer, false);
    config.model = testCase.model;
    config.nativeOutput = testCase.mode;
    auto provider = reagent::providers::makeProvider(config);
    REQUIRE(provider);
    auto agent =
        Agent::create().withProvider(*provider).withTools(fixtureTools()).withOutput<Weather>().build();
    REQUIRE(agent);
    const auto weather = loop.run(agent->runAs<Weather>("What is the weather in Paris?"));
    REQUIRE(weather);
    const std::string body = peer.requests()[0]["body"].get<std::string>();
    const json sent = json::parse(body);
    CHECK(sent.contains("tools"));
    if (testCase.mode == reagent::providers::NativeOutput::automatic) {
        // Kept as a file, so the SDK type check sees a Gemini body with a response schema too.
        CHECK(body == expectedBody(ProviderKind::gemini, "_output_gemini3_", 1, body));
    }
    if (testCase.sent) {
        CHECK(sent["generationConfig"]["responseMimeType"] == "application/json");
        CHECK(sent["generationConfig"]["responseJsonSchema"]["properties"].contains("city"));
    } else {
        CHECK_FALSE(sent.contains("generationConfig"));
    }
}

TEST_CASE("Anthropic: a model without structured outputs gives its typed answer through a forced tool",
          "[integration][providers][output]") {
    using provider_output::Weather;
    // A tool call first, as in the native case: `tool_choice: any` keeps the tool turns going.
    ProviderPeer peer(json{{"responses",
                            {bodyResponse(fixture("anthropic/tool_call.json")),
                             bodyResponse(fixture("anthropic/structured_tool.json"))}}});
    Loop loop;
    auto config = peerConfig(ProviderKind::anthropic, peer, false);
    config.model = "claude-3-5-haiku-20241022";
    const auto weather = askWeather(loop, config);
    INFO((weather ? std::string() : weather.error().describe()));
    REQUIRE(weather);
    CHECK(weather->city == "Paris");
    CHECK(weather->temperature == 18);
    const json recorded = peer.requests();
    REQUIRE(recorded.size() == 2);
    for (int call = 0; call < 2; ++call) {
        CAPTURE(call);
        const std::string body = recorded[call]["body"].get<std::string>();
        CHECK(body == expectedBody(ProviderKind::anthropic, "_output_tool_", call + 1, body));
        const json sent = json::parse(body);
        CHECK_FALSE(sent.contains("output_config"));
        CHECK(sent["tool_choice"] == json{{"type", "any"}});
        CHECK(sent["tools"].back()["name"] == "output");
        CHECK(sent["tools"].back()["input_schema"]["required"] == json{"city", "temperature", "conditions"});
    }
}

TEST_CASE("Anthropic: a streamed forced-tool answer arrives as text and partial values",
          "[integration][providers][output]") {
    using provider_output::Weather;
    ProviderPeer peer(json{{"responses", {streamResponse(fixture("anthropic/structured_tool.sse"))}}});
    Loop loop;
    auto config = peerConfig(ProviderKind::anthropic, peer, true);
    config.nativeOutput = reagent::providers::NativeOutput::tool;
    auto provider = reagent::providers::makeProvider(config);
    REQUIRE(provider);
    std::string streamed;
    std::vector<json> partials;
    int toolDeltas = 0;
    auto agent =
        Agent::create()
            .withProvider(*provider)
            .withOutput<Weather>()
            .withEventHandler([&](const AgentEvent& event) {
                if (const auto* text = std::get_if<TextDelta>(&event)) {
                    streamed += text->text;
                } else if (const auto* partial = std::get_if<reagent::agent::PartialOutput>(&event)) {
                    partials.push_back(partial->value);
                } else if (std::holds_alternative<ToolCallDelta>(event)) {
                    ++toolDeltas;
                }
            })
            .build();
    REQUIRE(agent);
    const auto weather = loop.run(agent->runAs<Weather>("What is the weather in Paris?"));
    INFO((weather ? std::string() : weather.error().describe()));
    REQUIRE(weather);
    CHECK(weather->conditions == "sunny");
    CHECK(streamed == R"({"city": "Paris", "temperature": 18, "conditions": "sunny"})");
    CHECK(toolDeltas == 0);
    REQUIRE(partials.size() >= 2);
    CHECK(partials.front() == json{{"city", "Pa"}});
    CHECK(partials.back() == json{{"city", "Paris"}, {"temperature", 18}, {"conditions", "sunny"}});
    const json sent = json::parse(peer.requests()[0]["body"].get<std::string>());
    CHECK(sent["tool_choice"] == json{{"type", "tool"}, {"name", "output"}});
    CHECK(sent["tools"].size() == 1);
}

TEST_CASE("a prompt's image and document reach each API as its own content parts",
          "[integration][providers][attachments]") {
    const ProviderKind kind =
        GENERATE(ProviderKind::anthropic, ProviderKind::openai, ProviderKind::gemini, ProviderKind::ollama);
    CAPTURE(dirOf(kind));
    ProviderPeer peer(json{{"responses", {bodyResponse(fixture(dirOf(kind) + "/text.json"))}}});
    Loop loop;
    auto provider = reagent::providers::makeProvider(peerConfig(kind, peer, false));
    REQUIRE(provider);
    auto agent =
        Agent::create().withProvider(*provider).withSystemPrompt("You are a terse assistant.").build();
    REQUIRE(agent);
    reagent::agent::RunOptions options;
    options.attachments.push_back(reagent::llm::Attachment::fromBytes(tinyPng(), "dot.png").value());
    if (kind != ProviderKind::ollama) {  // Ollama takes images only
        options.attachments.push_back(reagent::llm::Attachment::fromBytes(tinyPdf(), "page.pdf").value());
    }
    const auto result = loop.run(agent->run("What do these show?", std::move(options)));
    INFO((result.error() ? result.error()->describe() : std::string()));
    REQUIRE(result.success());
    const json recorded = peer.requests();
    REQUIRE(recorded.size() == 1);
    // The exact body, kept as a file the SDK type check reads too.
    const std::string body = recorded[0]["body"].get<std::string>();
    CHECK(body == expectedBody(kind, "_attach_", 1, body));
    CHECK(body.find(reagent::base64Encode(tinyPng())) != std::string::npos);
}

TEST_CASE("an attachment the API cannot take fails the call before anything is sent",
          "[integration][providers][attachments]") {
    ProviderPeer peer(json{{"responses", {bodyResponse(fixture("ollama/text.json"))}}});
    Loop loop;
    auto provider = reagent::providers::makeProvider(peerConfig(ProviderKind::ollama, peer, false));
    REQUIRE(provider);
    auto agent = Agent::create().withProvider(*provider).build();
    REQUIRE(agent);
    reagent::agent::RunOptions options;
    options.attachments.push_back(reagent::llm::Attachment::fromBytes(tinyPdf(), "page.pdf").value());
    const auto result = loop.run(agent->run("Summarise this", std::move(options)));
    CHECK(result.terminatedBy == reagent::agent::TerminatedBy::provider_error);
    CHECK(result.errorMessage.find(
              "invalid_request: ollama cannot take a PDF document (message 1, 'page.pdf')") !=
          std::string::npos);
    CHECK(peer.requests().empty());
}

TEST_CASE("Anthropic: a conversation's second turn reads its prefix from the cache the first wrote",
          "[integration][providers][caching]") {
    // The peer reports cache reads on the second call, as the API does when the breakpoints match.
    ProviderPeer peer(json{{"responses",
                            {bodyResponse(fixture("anthropic/text.json")),
                             bodyResponse(fixture("anthropic/usage_cached.json"))}}});
    Loop loop;
    auto provider = reagent::providers::makeProvider(peerConfig(ProviderKind::anthropic, peer, false));
    REQUIRE(provider);
    auto agent = Agent::create()
                     .withProvider(*provider)
                     .withTools(fixtureTools())
                     .withSystemPrompt("You are a terse assistant.")
                     .build();
    REQUIRE(agent);
    reagent::agent::Conversation conversation(*agent);
    const auto first = loop.run(conversation.send("What is the capital of France?"));
    REQUIRE(first);
    REQUIRE(first->success());
    CHECK(first->usage.cacheReadTokens == 0);
    const auto second = loop.run(conversation.send("And of Italy?"));
    REQUIRE(second);
    REQUIRE(second->success());
    CHECK(second->usage.cacheReadTokens == 4096);
    CHECK(second->usage.cacheWriteTokens == 1536);
    CHECK(conversation.usage().cacheReadTokens == 4096);
    CHECK(conversation.usage().inputTokens == first->usage.inputTokens + 21 + 1536 + 4096);

    // Both requests mark the tools, the system prompt and their last message; the second one's first
    // turn is unmarked now, so the prefix it shares with the first request is the same bytes.
    const json recorded = peer.requests();
    REQUIRE(recorded.size() == 2);
    for (int call = 0; call < 2; ++call) {
        const json body = json::parse(recorded[call]["body"].get<std::string>());
        CHECK(body["tools"].back()["cache_control"]["type"] == "ephemeral");
        CHECK(body["system"][0]["cache_control"]["type"] == "ephemeral");
        CHECK(body["messages"].back()["content"].back()["cache_control"]["type"] == "ephemeral");
    }
    const json second_body = json::parse(recorded[1]["body"].get<std::string>());
    CHECK(second_body["messages"][0]["content"] == "What is the capital of France?");
}
