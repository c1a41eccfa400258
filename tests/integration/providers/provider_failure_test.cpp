// Provider behaviour under awkward streams and failures, against the provider peer: split deltas,
// retries (retry-after, 5xx), broken streams, malformed bodies, timeouts, cancellation, tool names.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/post.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "provider_test_support.hpp"
#include "reagent/llm/fallback_provider.hpp"

using reagent::agent::Agent;
using reagent::llm::Message;
using reagent::llm::ModelReply;
using reagent::llm::ModelRequest;
using reagent::llm::ProviderErrc;
using reagent::llm::ProviderError;
using reagent::llm::StreamDelta;
using reagent::providers::ProviderKind;
using namespace reagent::test;
namespace asio = boost::asio;
using Outcome = reagent::expected<ModelReply, ProviderError>;

namespace {

/// `body` cut at the given byte offsets, as raw pieces.
json rawPieces(const std::string& body, const std::vector<std::size_t>& cuts) {
    json out = json::array();
    std::size_t start = 0;
    for (std::size_t cut : cuts) {
        out.push_back({{"b64", base64(body.substr(start, cut - start))}});
        start = cut;
    }
    out.push_back({{"b64", base64(body.substr(start))}});
    return out;
}

}  // namespace

TEST_CASE("streamed tool calls split inside a JSON string and inside a UTF-8 character",
          "[integration][providers]") {
    // One tool call whose arguments arrive in two fragments; the stream's bytes are then cut at
    // awkward places: inside the arguments' JSON string and between the bytes of "東" (E6 9D B1).
    const std::string body =
        openAiChunk({{"role", "assistant"},
                     {"tool_calls",
                      {{{"index", 0},
                        {"id", "call_1"},
                        {"type", "function"},
                        {"function", {{"name", "get_weather"}, {"arguments", "{\"location\": \"東"}}}}}}}) +
        openAiChunk({{"tool_calls", {{{"index", 0}, {"function", {{"arguments", "京, Japan\"}"}}}}}}}) +
        openAiChunk(json::object(), "tool_calls") + "data: [DONE]\n\n";
    const std::size_t east = body.find("東");
    const std::size_t inString = body.find("location") + 3;
    const std::size_t second = body.find("京");
    const std::vector<std::size_t> cuts = {inString, east + 1, east + 2, second + 1, body.size() - 3};
    ProviderPeer peer(json{{"responses",
                            {{{"status", 200},
                              {"headers", {{"content-type", "text/event-stream"}}},
                              {"chunks", rawPieces(body, cuts)}}}}});
    std::vector<StreamDelta> deltas;
    const auto reply = complete(peerConfig(ProviderKind::openai, peer, true), question(&deltas));
    REQUIRE(reply);
    REQUIRE(reply->toolCalls.size() == 1);
    CHECK(reply->toolCalls[0].name == "get_weather");
    CHECK(reply->toolCalls[0].arguments == json{{"location", "東京, Japan"}});
    CHECK(reply->stopReason == reagent::llm::StopReason::tool_use);
    std::string fragments;
    for (const auto& delta : deltas) {
        if (delta.kind == StreamDelta::Kind::tool_call_arguments) {
            fragments += delta.text;
        }
    }
    CHECK(fragments == "{\"location\": \"東京, Japan\"}");
    REQUIRE(!deltas.empty());
    CHECK(deltas.front().kind == StreamDelta::Kind::tool_call_start);
    CHECK(deltas.front().toolName == "get_weather");
}

TEST_CASE("a 429 with retry-after is retried after the delay the server asked for",
          "[integration][providers]") {
    json limited = bodyResponse(fixture("openai/error_429.json"), 429);
    limited["headers"] = {{"retry-after", "1"}};
    ProviderPeer peer(json{{"responses", {limited, bodyResponse(fixture("openai/text.json"))}}});
    auto config = peerConfig(ProviderKind::openai, peer);
    config.retry.initialDelay = std::chrono::milliseconds(10);
    const auto start = std::chrono::steady_clock::now();
    const auto reply = complete(config, question());
    const auto waited = std::chrono::steady_clock::now() - start;
    REQUIRE(reply);
    CHECK(reply->text == "Hello! The capital of France is Paris.");
    CHECK(waited >= std::chrono::milliseconds(950));
    CHECK(waited < std::chrono::milliseconds(5000));
    CHECK(peer.requests().size() == 2);
}

TEST_CASE("three 500s exhaust the retries and the run fails with the provider's error",
          "[integration][providers]") {
    const json failure =
        bodyResponse(R"({"error":{"message":"The server had an error","type":"server_error"}})", 500);
    ProviderPeer peer(
        json{{"responses", {failure, failure, failure, bodyResponse(fixture("openai/text.json"))}}});
    Loop loop;
    auto provider = reagent::providers::makeProvider(peerConfig(ProviderKind::openai, peer));
    REQUIRE(provider);
    auto agent = Agent::create().withProvider(*provider).build();
    REQUIRE(agent);
    const auto result = loop.run(agent->run("hello"));
    CHECK_FALSE(result.success());
    CHECK(result.terminatedBy == reagent::agent::TerminatedBy::provider_error);
    REQUIRE(result.error());
    CHECK(result.error()->message.find("The server had an error") != std::string::npos);
    CHECK(peer.requests().size() == 3);
}

TEST_CASE("a stream dropped after deltas were delivered fails without a retry", "[integration][providers]") {
    json dropped = streamResponse(fixture("openai/text.sse"));
    dropped["drop_after_chunks"] = 3;
    ProviderPeer peer(json{{"responses", {dropped, streamResponse(fixture("openai/text.sse"))}}});
    std::vector<StreamDelta> deltas;
    const auto reply = complete(peerConfig(ProviderKind::openai, peer, true), question(&deltas));
    REQUIRE_FALSE(reply);
    CHECK(reply.error().code == ProviderErrc::connection_failed);
    REQUIRE(deltas.size() == 2);
    CHECK(deltas[0].text == "Hello");
    CHECK(peer.requests().size() == 1);
}

TEST_CASE("a stream dropped before any delta is retried", "[integration][providers]") {
    json dropped = streamResponse(fixture("openai/text.sse"));
    dropped["drop_after_chunks"] = 1;  // only the role chunk: no delta yet
    ProviderPeer peer(json{{"responses", {dropped, streamResponse(fixture("openai/text.sse"))}}});
    std::vector<StreamDelta> deltas;
    const auto reply = complete(peerConfig(ProviderKind::openai, peer, true), question(&deltas));
    REQUIRE(reply);
    CHECK(reply->text == "Hello! The capital of France is Paris.");
    CHECK(peer.requests().size() == 2);
}

TEST_CASE("a stream cut mid-way reports what it spent, and a retried attempt's spending is added",
          "[integration][providers][usage]") {
    // Anthropic counts the input in `message_start`, the first event: a cut after it was billed for it.
    const reagent::llm::Usage input{21 + 1536 + 4096, 1, 4096, 1536, 0};
    SECTION("cut after a delta: not retried, the error carries the usage") {
        json dropped = streamResponse(fixture("anthropic/usage_cached.sse"));
        dropped["drop_after_chunks"] = 4;
        ProviderPeer peer(json{{"responses", {dropped}}});
        std::vector<StreamDelta> deltas;
        const auto reply = complete(peerConfig(ProviderKind::anthropic, peer, true), question(&deltas));
        REQUIRE_FALSE(reply);
        CHECK(reply.error().code == ProviderErrc::connection_failed);
        CHECK(reply.error().usage == input);
        CHECK(peer.requests().size() == 1);
    }
    SECTION("cut before any delta: retried, the reply's usage counts both attempts") {
        json dropped = streamResponse(fixture("anthropic/usage_cached.sse"));
        dropped["drop_after_chunks"] = 1;
        ProviderPeer peer(
            json{{"responses", {dropped, streamResponse(fixture("anthropic/usage_cached.sse"))}}});
        std::vector<StreamDelta> deltas;
        const auto reply = complete(peerConfig(ProviderKind::anthropic, peer, true), question(&deltas));
        REQUIRE(reply);
        CHECK(peer.requests().size() == 2);
        reagent::llm::Usage both = input;
        both += reagent::llm::Usage{21 + 1536 + 4096, 12, 4096, 1536, 0};
        CHECK(reply->usage == both);
    }
    SECTION("an agent run that fails this way reports the usage in its result") {
        json dropped = streamResponse(fixture("anthropic/usage_cached.sse"));
        dropped["drop_after_chunks"] = 4;
        ProviderPeer peer(json{{"responses", {dropped}}});
        Loop loop;
        auto provider = reagent::providers::makeProvider(peerConfig(ProviderKind::anthropic, peer, true));
        REQUIRE(provider);
        auto agent = Agent::create()
                         .withProvider(*provider)
                         .withEventHandler([](const reagent::agent::AgentEvent&) {})  // so it streams
                         .build();
        REQUIRE(agent);
        const auto result = loop.run(agent->run("hello"));
        CHECK(result.terminatedBy == reagent::agent::TerminatedBy::provider_error);
        CHECK(result.usage == input);
    }
    SECTION("an agent run cancelled mid-stream reports the usage in its result") {
        json slow = streamResponse(fixture("anthropic/usage_cached.sse"));
        slow["chunk_delay_ms"] = 2000;
        slow["chunk_delay_from"] = 4;  // the first text delta comes at once, the next 2 s later
        ProviderPeer peer(json{{"responses", {slow}}});
        asio::io_context io;
        asio::cancellation_signal cancel;
        auto provider = reagent::providers::makeProvider(peerConfig(ProviderKind::anthropic, peer, true));
        REQUIRE(provider);
        auto agent = Agent::create()
                         .withProvider(*provider)
                         .withEventHandler([&](const reagent::agent::AgentEvent& event) {
                             if (std::holds_alternative<reagent::agent::TextDelta>(event)) {
                                 asio::post(io, [&] { cancel.emit(asio::cancellation_type::terminal); });
                             }
                         })
                         .build();
        REQUIRE(agent);
        std::optional<reagent::agent::RunResult> result;
        asio::co_spawn(
            io, agent->run("hello"),
            asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr, reagent::agent::RunResult r) {
                result = std::move(r);
            }));
        io.run();
        REQUIRE(result);
        CHECK(result->terminatedBy == reagent::agent::TerminatedBy::cancelled);
        CHECK(result->usage == input);
    }
}

TEST_CASE("a body that is not JSON is a malformed response, not retried", "[integration][providers]") {
    ProviderPeer peer(
        json{{"responses", {bodyResponse("{\"choices\": [tru"), bodyResponse(fixture("openai/text.json"))}}});
    const auto reply = complete(peerConfig(ProviderKind::openai, peer), question());
    REQUIRE_FALSE(reply);
    CHECK(reply.error().code == ProviderErrc::malformed_response);
    CHECK(peer.requests().size() == 1);
}

TEST_CASE("a slow server times out, without a retry", "[integration][providers]") {
    json slow = bodyResponse(fixture("openai/text.json"));
    slow["delay_ms"] = 3000;
    ProviderPeer peer(json{{"responses", {slow, slow}}});
    auto config = peerConfig(ProviderKind::openai, peer);
    config.requestTimeout = std::chrono::milliseconds(300);
    const auto start = std::chrono::steady_clock::now();
    const auto reply = complete(config, question());
    const auto waited = std::chrono::steady_clock::now() - start;
    REQUIRE_FALSE(reply);
    CHECK(reply.error().code == ProviderErrc::timeout);
    CHECK(waited >= std::chrono::milliseconds(250));
    CHECK(waited < std::chrono::milliseconds(2500));
    CHECK(peer.requests().size() == 1);
}

TEST_CASE("a stream that stalls after its head fails after the read timeout, without a retry",
          "[integration][providers]") {
    json stalled = streamResponse(fixture("openai/text.sse"));
    stalled["stall"] = true;
    ProviderPeer peer(json{{"responses", {stalled, streamResponse(fixture("openai/text.sse"))}}});
    auto config = peerConfig(ProviderKind::openai, peer, true);
    config.readTimeout = std::chrono::milliseconds(300);
    std::vector<StreamDelta> deltas;
    const auto start = std::chrono::steady_clock::now();
    const auto reply = complete(config, question(&deltas));
    const auto waited = std::chrono::steady_clock::now() - start;
    REQUIRE_FALSE(reply);
    CHECK(reply.error().code == ProviderErrc::timeout);
    CHECK(reply.error().message.find("readTimeout") != std::string::npos);
    CHECK(waited >= std::chrono::milliseconds(280));
    CHECK(waited < std::chrono::milliseconds(3000));  // requestTimeout is 10 s
    CHECK(deltas.empty());
    CHECK(peer.requests().size() == 1);
}

TEST_CASE("cancelling mid-stream ends the call at once with cancelled", "[integration][providers]") {
    json slow = streamResponse(fixture("openai/text.sse"));
    slow["chunk_delay_ms"] = 2000;
    ProviderPeer peer(json{{"responses", {slow}}});
    asio::io_context io;
    auto provider = reagent::providers::makeProvider(peerConfig(ProviderKind::openai, peer, true));
    REQUIRE(provider);

    asio::cancellation_signal cancel;
    std::vector<StreamDelta> deltas;
    ModelRequest request = question();
    std::optional<std::chrono::steady_clock::time_point> cancelledAt;
    // The first delta arrives after one chunk delay; cancel right after it, while the next is 2 s away.
    request.onDelta = [&](const StreamDelta& delta) {
        deltas.push_back(delta);
        if (!cancelledAt) {
            cancelledAt = std::chrono::steady_clock::now();
            asio::post(io, [&] { cancel.emit(asio::cancellation_type::terminal); });
        }
    };
    std::optional<Outcome> outcome;
    std::chrono::steady_clock::time_point endedAt;
    asio::co_spawn(io, ask(*provider, std::move(request)),
                   asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr, Outcome value) {
                       outcome = std::move(value);
                       endedAt = std::chrono::steady_clock::now();
                   }));
    io.run();
    REQUIRE(outcome);
    REQUIRE_FALSE(*outcome);
    CHECK(outcome->error().code == ProviderErrc::cancelled);
    REQUIRE(cancelledAt);
    CHECK(deltas.size() == 1);
    CHECK(endedAt - *cancelledAt < std::chrono::milliseconds(1000));
    CHECK(peer.requests().size() == 1);
}

TEST_CASE("a server/tool name round-trips through every provider", "[integration][providers]") {
    const ProviderKind kind =
        GENERATE(ProviderKind::anthropic, ProviderKind::openai, ProviderKind::gemini, ProviderKind::ollama);
    const std::string dir(reagent::providers::toString(kind));
    CAPTURE(dir);
    // The fixture's call names the wire name of "weather/get_weather" (MCP-style, invalid for providers).
    std::string toolCall = fixture(dir + "/tool_call.json");
    const auto at = toolCall.find("\"get_weather\"");
    REQUIRE(at != std::string::npos);
    toolCall.replace(at, 13, "\"weather_get_weather\"");
    ProviderPeer peer(json{{"responses", {bodyResponse(toolCall)}}});

    // The request offers the tool and replays an earlier call of it with its result.
    ModelRequest request = question();
    request.tools.push_back({"weather/get_weather", "Current weather", json::parse(R"({"type":"object"})")});
    request.messages.push_back(Message::assistant(
        "", {reagent::llm::ToolCall{"call_0", "weather/get_weather", {{"location", "Rome"}}}}));
    request.messages.push_back(Message::toolResult("call_0", "weather/get_weather", "20C in Rome"));
    request.messages.push_back(Message::user("And Paris?"));
    const auto reply = complete(peerConfig(kind, peer), std::move(request));
    REQUIRE(reply);
    REQUIRE(reply->toolCalls.size() == 1);
    CHECK(reply->toolCalls[0].name == "weather/get_weather");
    CHECK(reply->toolCalls[0].arguments == json{{"location", "Paris, France"}});

    const json recorded = peer.requests();
    REQUIRE(recorded.size() == 1);
    const std::string body = recorded[0]["body"].get<std::string>();
    CHECK(body.find("\"weather_get_weather\"") != std::string::npos);
    CHECK(body.find("weather/get_weather") == std::string::npos);
}

TEST_CASE("a missing API key is a configuration error naming the variable", "[integration][providers]") {
    reagent::providers::ProviderConfig config;
    config.kind = ProviderKind::anthropic;
    const auto provider = reagent::providers::makeProvider(config);
    REQUIRE_FALSE(provider);
    CHECK(provider.error().code == ProviderErrc::configuration);
    CHECK(provider.error().message.find("ANTHROPIC_API_KEY") != std::string::npos);
}

TEST_CASE("a streamed request answered by an overloaded error is retried", "[integration][providers]") {
    // Anthropic's 529 arrives as a whole JSON body, not a stream: it is decoded as an error and retried.
    ProviderPeer peer(json{{"responses",
                            {bodyResponse(fixture("anthropic/error_529.json"), 529),
                             streamResponse(fixture("anthropic/text.sse"))}}});
    std::vector<StreamDelta> deltas;
    const auto reply = complete(peerConfig(ProviderKind::anthropic, peer, true), question(&deltas));
    REQUIRE(reply);
    CHECK_FALSE(reply->text.empty());
    CHECK_FALSE(deltas.empty());
    const json recorded = peer.requests();
    REQUIRE(recorded.size() == 2);
    CHECK(json::parse(recorded[1]["body"].get<std::string>())["stream"] == true);
}

TEST_CASE("a 429 for a spent quota is not retried", "[integration][providers]") {
    ProviderPeer peer(json{{"responses",
                            {bodyResponse(fixture("openai/error_429_quota.json"), 429),
                             bodyResponse(fixture("openai/text.json"))}}});
    const auto reply = complete(peerConfig(ProviderKind::openai, peer), question());
    REQUIRE_FALSE(reply);
    CHECK(reply.error().code == ProviderErrc::quota_exceeded);
    CHECK(reply.error().httpStatus == 429);
    CHECK(reply.error().providerType == "insufficient_quota");
    CHECK(reply.error().message.find("not retried") != std::string::npos);
    CHECK(peer.requests().size() == 1);
}

TEST_CASE("a client error is not retried and carries the provider's type", "[integration][providers]") {
    ProviderPeer peer(json{
        {"responses",
         {bodyResponse(fixture("openai/error_401.json"), 401), bodyResponse(fixture("openai/text.json"))}}});
    const auto reply = complete(peerConfig(ProviderKind::openai, peer), question());
    REQUIRE_FALSE(reply);
    CHECK(reply.error().code == ProviderErrc::authentication);
    CHECK(reply.error().httpStatus == 401);
    CHECK_FALSE(reply.error().providerType.empty());
    CHECK(peer.requests().size() == 1);
}

TEST_CASE("a fallback chain moves an overloaded Anthropic call to OpenAI, tool-call ids and all",
          "[integration][providers][fallback]") {
    // Anthropic answers the first call (a tool call), then is overloaded past its retries; OpenAI takes
    // the second call with Anthropic's tool_use id in its history.
    json overloaded = bodyResponse(fixture("anthropic/error_529.json"), 529);
    ProviderPeer anthropic(json{{"responses",
                                 {bodyResponse(fixture("anthropic/tool_call.json")), overloaded, overloaded,
                                  overloaded, overloaded, overloaded}}});
    ProviderPeer openai(json{{"responses", {bodyResponse(fixture("openai/text.json"))}}});
    auto primary = reagent::providers::makeProvider(peerConfig(ProviderKind::anthropic, anthropic, false));
    auto backup = reagent::providers::makeProvider(peerConfig(ProviderKind::openai, openai, false));
    REQUIRE(primary);
    REQUIRE(backup);
    auto chain = reagent::llm::FallbackProvider::make({*primary, *backup});
    REQUIRE(chain);
    Loop loop;
    auto agent = Agent::create().withProvider(*chain).withTools(fixtureTools()).build();
    REQUIRE(agent);
    const auto result = loop.run(agent->run("What is the weather in Paris?"));
    INFO(result.errorMessage);
    REQUIRE(result.success());
    CHECK(result.output == "Hello! The capital of France is Paris.");
    REQUIRE(result.fallbacks.size() == 1);
    CHECK(result.fallbacks[0].iteration == 1);
    CHECK(result.fallbacks[0].from == "anthropic:claude-sonnet-4-5");
    CHECK(result.fallbacks[0].to == "openai:gpt-4.1");
    CHECK(result.fallbacks[0].reason.find("529") != std::string::npos);
    const std::size_t anthropicCalls = anthropic.requests().size();
    CHECK(anthropicCalls >= 2);  // the first call, then the overloaded attempts
    REQUIRE(openai.requests().size() == 1);
    const json sent = json::parse(openai.requests()[0]["body"].get<std::string>());
    const json& messages = sent["messages"];
    bool call = false;
    bool result_ = false;
    for (const json& message : messages) {
        if (message.contains("tool_calls")) {
            call = message["tool_calls"][0]["id"] == "toolu_01A09q90qw90lq917835lq9";
        }
        if (message["role"] == "tool") {
            result_ = message["tool_call_id"] == "toolu_01A09q90qw90lq917835lq9";
        }
    }
    CHECK(call);
    CHECK(result_);

    // A healthy primary is never left.
    ProviderPeer healthy(json{{"responses", {bodyResponse(fixture("anthropic/text.json"))}}});
    ProviderPeer unused(json{{"responses", json::array()}});
    auto good = reagent::providers::makeProvider(peerConfig(ProviderKind::anthropic, healthy, false));
    auto spare = reagent::providers::makeProvider(peerConfig(ProviderKind::openai, unused, false));
    auto steady = reagent::llm::FallbackProvider::make({*good, *spare});
    auto plain = Agent::create().withProvider(*steady).build();
    const auto answered = loop.run(plain->run("hello"));
    CHECK(answered.success());
    CHECK(answered.fallbacks.empty());
    CHECK(unused.requests().empty());
}
