// Providers against a misbehaving peer: endless bodies and lines, long Retry-After, redirects, early
// answers to large uploads, bodies that are not streams, empty replies, secrets in errors, base URLs.

#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "provider_test_support.hpp"

using reagent::llm::Message;
using reagent::llm::ModelReply;
using reagent::llm::ModelRequest;
using reagent::llm::ProviderErrc;
using reagent::llm::ProviderError;
using reagent::llm::StreamDelta;
using reagent::providers::ProviderKind;
using namespace reagent::test;

namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("an endless SSE line fails at the event limit, without a retry",
          "[integration][providers][bounds]") {
    const json endless = {{"status", 200},
                          {"headers", {{"content-type", "text/event-stream"}}},
                          {"endless", {{"prefix", "data: {\"x\":\""}, {"piece", "xxxxxxxx"}}}};
    ProviderPeer peer(json{{"responses", {endless, endless}}});
    // The default limit (16 MiB) holds: the call fails quickly instead of buffering without end.
    std::vector<StreamDelta> deltas;
    const auto reply = complete(peerConfig(ProviderKind::openai, peer, true), question(&deltas));
    REQUIRE_FALSE(reply);
    INFO(reply.error().message);
    CHECK(reply.error().code == ProviderErrc::malformed_response);
    CHECK(contains(reply.error().message, "16777216 bytes"));
    CHECK(contains(reply.error().message, "maxEventBytes"));
    CHECK(peer.requests().size() == 1);
}

TEST_CASE("an endless body fails at the response limit, without a retry",
          "[integration][providers][bounds]") {
    // Many small complete events: no single event is large, the body is.
    const json endless = {{"status", 200},
                          {"headers", {{"content-type", "text/event-stream"}}},
                          {"endless", {{"piece", ": keep-alive\n\n"}}}};
    ProviderPeer peer(json{{"responses", {endless, endless}}});
    auto config = peerConfig(ProviderKind::openai, peer, true);
    config.maxResponseBytes = 2 * 1024 * 1024;
    std::vector<StreamDelta> deltas;
    const auto reply = complete(config, question(&deltas));
    REQUIRE_FALSE(reply);
    INFO(reply.error().message);
    CHECK(reply.error().code == ProviderErrc::malformed_response);
    CHECK(contains(reply.error().message, "2097152 bytes"));
    CHECK(contains(reply.error().message, "maxResponseBytes"));
    CHECK(peer.requests().size() == 1);

    SECTION("not streamed") {
        const json whole = {{"status", 200}, {"endless", {{"piece", "{\"a\":1}"}}}};
        ProviderPeer wholePeer(json{{"responses", {whole, whole}}});
        auto plain = peerConfig(ProviderKind::openai, wholePeer, false);
        plain.maxResponseBytes = 1024 * 1024;
        const auto second = complete(plain, question());
        REQUIRE_FALSE(second);
        CHECK(second.error().code == ProviderErrc::malformed_response);
        CHECK(contains(second.error().message, "1048576 bytes"));
        CHECK(wholePeer.requests().size() == 1);
    }
}

TEST_CASE("a Retry-After beyond maxRetryWait fails at once, saying what was asked",
          "[integration][providers][retry]") {
    json limited = bodyResponse(fixture("openai/error_429.json"), 429);
    limited["headers"] = {{"retry-after", "1000000000"}};
    ProviderPeer peer(json{{"responses", {limited, bodyResponse(fixture("openai/text.json"))}}});
    const auto start = std::chrono::steady_clock::now();
    std::vector<reagent::llm::RetryNotice> notices;
    ModelRequest request = question();
    request.onRetry = [&notices](const reagent::llm::RetryNotice& notice) { notices.push_back(notice); };
    const auto reply = complete(peerConfig(ProviderKind::openai, peer), std::move(request));
    REQUIRE_FALSE(reply);
    INFO(reply.error().message);
    CHECK(reply.error().code == ProviderErrc::rate_limited);
    CHECK(contains(reply.error().message, "asked to wait 1000000000 s"));
    CHECK(contains(reply.error().message, "maxRetryWait of 60 s"));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
    CHECK(notices.empty());
    CHECK(peer.requests().size() == 1);
}

TEST_CASE("each retry wait is announced to onRetry", "[integration][providers][retry]") {
    json limited = bodyResponse(fixture("openai/error_429.json"), 429);
    limited["headers"] = {{"retry-after-ms", "150"}};
    const json failure =
        bodyResponse(R"({"error":{"message":"The server had an error","type":"server_error"}})", 500);
    ProviderPeer peer(json{{"responses", {limited, failure, bodyResponse(fixture("openai/text.json"))}}});
    std::vector<reagent::llm::RetryNotice> notices;
    ModelRequest request = question();
    request.onRetry = [&notices](const reagent::llm::RetryNotice& notice) { notices.push_back(notice); };
    const auto reply = complete(peerConfig(ProviderKind::openai, peer), std::move(request));
    REQUIRE(reply);
    REQUIRE(notices.size() == 2);
    CHECK(notices[0].attempt == 1);
    CHECK(notices[0].maxAttempts == 3);
    CHECK(notices[0].serverAsked);
    CHECK(notices[0].wait == std::chrono::milliseconds(150));
    CHECK(notices[0].error.code == ProviderErrc::rate_limited);
    CHECK(notices[1].attempt == 2);
    CHECK_FALSE(notices[1].serverAsked);
    CHECK(notices[1].error.code == ProviderErrc::server_error);
    CHECK(notices[1].wait > std::chrono::milliseconds(0));
    CHECK(peer.requests().size() == 3);
}

TEST_CASE("secrets never appear in errors", "[integration][providers][secrets]") {
    SECTION("a provider message echoing the API key") {
        const json echo = bodyResponse(
            R"({"error":{"message":"Incorrect API key provided: sk-test-0123456789. Find your key at ...","type":"invalid_request_error","code":"invalid_api_key"}})",
            401);
        ProviderPeer peer(json{{"responses", {echo}}});
        auto config = peerConfig(ProviderKind::openai, peer);
        config.apiKey = "sk-test-0123456789";
        const auto reply = complete(config, question());
        REQUIRE_FALSE(reply);
        INFO(reply.error().describe());
        CHECK(reply.error().code == ProviderErrc::authentication);
        CHECK_FALSE(contains(reply.error().describe(), "sk-test-0123456789"));
        CHECK(contains(reply.error().message, "Incorrect API key provided: ***"));
    }
    SECTION("a proxy password in an unsupported proxy URL") {
        ProviderPeer peer(json{{"responses", json::array()}});
        auto config = peerConfig(ProviderKind::openai, peer);
        reagent::http::ProxySettings proxy;
        proxy.httpProxy = "socks5://alice:hunter2-proxy@127.0.0.1:1080";
        config.proxy = proxy;
        const auto reply = complete(config, question());
        REQUIRE_FALSE(reply);
        INFO(reply.error().describe());
        CHECK_FALSE(contains(reply.error().describe(), "hunter2-proxy"));
        CHECK(contains(reply.error().message, "socks5://***@127.0.0.1:1080"));
    }
    SECTION("a password or key in the base URL") {
        ProviderPeer peer(json{{"responses", json::array()}});
        auto config = peerConfig(ProviderKind::openai, peer);
        config.baseUrl = "ftp://bob:pw-base-secret@example.com/v1?key=query-secret";
        const auto provider = reagent::providers::makeProvider(config);
        REQUIRE_FALSE(provider);
        INFO(provider.error().describe());
        CHECK_FALSE(contains(provider.error().describe(), "pw-base-secret"));
        CHECK_FALSE(contains(provider.error().describe(), "query-secret"));
    }
}

TEST_CASE("a 200 that is not a stream says what came back, without a retry",
          "[integration][providers][errors]") {
    const std::string page = "<html><head><title>Sign in</title></head><body>\x1b[31mportal</body></html>";
    const json html = {
        {"status", 200}, {"headers", {{"content-type", "text/html; charset=utf-8"}}}, {"body", page}};
    const json broken = {{"status", 200},
                         {"headers", {{"content-type", "text/event-stream"}}},
                         {"chunks", {"{\"choices\": [tru"}}};
    const bool asHtml = GENERATE(true, false);
    ProviderPeer peer(
        json{{"responses", {asHtml ? html : broken, streamResponse(fixture("openai/text.sse"))}}});
    std::vector<StreamDelta> deltas;
    const auto reply = complete(peerConfig(ProviderKind::openai, peer, true), question(&deltas));
    REQUIRE_FALSE(reply);
    INFO(reply.error().message);
    CHECK(reply.error().code == ProviderErrc::malformed_response);
    CHECK(contains(reply.error().message, "HTTP 200"));
    CHECK(contains(reply.error().message, "is not a stream"));
    if (asHtml) {
        CHECK(contains(reply.error().message, "content-type text/html; charset=utf-8"));
        CHECK(contains(reply.error().message, "<title>Sign in</title>"));
        CHECK_FALSE(contains(reply.error().message, "\x1b"));
    } else {
        CHECK(contains(reply.error().message, "{\"choices\": [tru"));
    }
    CHECK(peer.requests().size() == 1);
}

TEST_CASE("a whole JSON reply to a streamed request is taken as the reply",
          "[integration][providers][errors]") {
    ProviderPeer peer(json{{"responses", {bodyResponse(fixture("openai/text.json"))}}});
    std::vector<StreamDelta> deltas;
    const auto reply = complete(peerConfig(ProviderKind::openai, peer, true), question(&deltas));
    REQUIRE(reply);
    CHECK(reply->text == "Hello! The capital of France is Paris.");
    REQUIRE(deltas.size() == 1);
    CHECK(deltas[0].text == reply->text);
}

TEST_CASE("a redirect names its Location, without a retry", "[integration][providers][errors]") {
    json moved = bodyResponse("", 301);
    moved["headers"] = {{"location", "https://user:pw-in-location@new.example.com/v1?key=loc-secret"}};
    ProviderPeer peer(json{{"responses", {moved, bodyResponse(fixture("openai/text.json"))}}});
    const bool streamed = GENERATE(false, true);
    std::vector<StreamDelta> deltas;
    const auto reply = complete(peerConfig(ProviderKind::openai, peer, streamed), question(&deltas));
    REQUIRE_FALSE(reply);
    INFO(reply.error().message);
    CHECK(reply.error().code == ProviderErrc::configuration);
    CHECK(reply.error().httpStatus == 301);
    CHECK(contains(reply.error().message, "redirect to 'https://***@new.example.com/v1?key=***'"));
    CHECK_FALSE(contains(reply.error().message, "pw-in-location"));
    CHECK(peer.requests().size() == 1);
}

TEST_CASE("a 413 sent before the request body was read is reported, without a retry",
          "[integration][providers][errors]") {
    json tooLarge = bodyResponse(
        R"({"error":{"message":"Request exceeds the maximum size","type":"request_too_large"}})", 413);
    tooLarge["early"] = true;
    ProviderPeer peer(json{{"responses", {tooLarge, tooLarge, tooLarge}}});
    ModelRequest request = question();
    request.messages.push_back(Message::user(std::string(32 * 1024 * 1024, 'a')));
    const auto reply = complete(peerConfig(ProviderKind::anthropic, peer), std::move(request));
    REQUIRE_FALSE(reply);
    INFO(reply.error().message);
    CHECK(reply.error().code == ProviderErrc::invalid_request);
    CHECK(reply.error().httpStatus == 413);
    CHECK(contains(reply.error().message, "Request exceeds the maximum size"));
    CHECK(peer.stats()["requests"] == 1);
}

TEST_CASE("a base URL's query string is kept after the API path", "[integration][providers][config]") {
    ProviderPeer peer(json{{"responses", {bodyResponse(fixture("openai/text.json"))}}});
    auto config = peerConfig(ProviderKind::openai, peer);
    config.baseUrl = peer.url("/openai/deployments/d?api-version=2024-10-21");
    const auto reply = complete(config, question());
    REQUIRE(reply);
    const json recorded = peer.requests();
    REQUIRE(recorded.size() == 1);
    CHECK(recorded[0]["path"] == "/openai/deployments/d/chat/completions");
    CHECK(recorded[0]["query"] == "api-version=2024-10-21");
}

TEST_CASE("a base URL without a host is refused when the provider is made",
          "[integration][providers][config]") {
    reagent::providers::ProviderConfig config;
    config.apiKey = "k";
    for (const char* url : {"http://", "http://[::1"}) {
        config.baseUrl = url;
        const auto provider = reagent::providers::makeProvider(config);
        REQUIRE_FALSE(provider);
        CHECK(provider.error().code == ProviderErrc::configuration);
        CHECK(contains(provider.error().message, std::string("the base URL '") + url + "'"));
    }
}

TEST_CASE("an empty final reply is an empty_reply error, not an empty answer",
          "[integration][providers][errors]") {
    std::string emptyText = fixture("openai/text.json");
    const std::string said = "\"Hello! The capital of France is Paris.\"";
    std::string nullContent = emptyText;
    emptyText.replace(emptyText.find(said), said.size(), "\"\"");
    nullContent.replace(nullContent.find(said), said.size(), "null");
    const json doneOnly = {{"status", 200},
                           {"headers", {{"content-type", "text/event-stream"}}},
                           {"chunks", {"data: [DONE]\n\n"}}};
    const int which = GENERATE(0, 1, 2);
    CAPTURE(which);
    const json response = which == 0   ? bodyResponse(emptyText)
                          : which == 1 ? bodyResponse(nullContent)
                                       : doneOnly;
    ProviderPeer peer(json{{"responses", {response, bodyResponse(fixture("openai/text.json"))}}});
    std::vector<StreamDelta> deltas;
    const auto reply = complete(peerConfig(ProviderKind::openai, peer, which == 2), question(&deltas));
    REQUIRE_FALSE(reply);
    INFO(reply.error().message);
    CHECK(reply.error().code == ProviderErrc::empty_reply);
    CHECK(contains(reply.error().message, "empty reply"));
    CHECK(peer.requests().size() == 1);
}

TEST_CASE("invalid UTF-8 and lone surrogates become U+FFFD, streamed or not",
          "[integration][providers][utf8]") {
    const std::string replacement = "\xEF\xBF\xBD";
    std::string body = fixture("openai/text.json");
    const std::string said = "Hello! The capital of France is Paris.";
    body.replace(body.find(said), said.size(), "caf\xFF \\ud800 ok \\udc00\\ud83d\\ude00");
    const std::string expected =
        "caf" + replacement + " " + replacement + " ok " + replacement + "\xF0\x9F\x98\x80";

    SECTION("whole") {
        ProviderPeer peer(json{{"responses", {{{"status", 200}, {"body_b64", base64(body)}}}}});
        const auto reply = complete(peerConfig(ProviderKind::openai, peer), question());
        REQUIRE(reply);
        CHECK(reply->text == expected);
    }
    SECTION("streamed") {
        const std::string chunk =
            R"(data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"caf)" +
            std::string("\xFF") + R"( \ud800 ok \udc00\ud83d\ude00"},"finish_reason":null}]})" + "\n\n" +
            R"(data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})" +
            "\n\ndata: [DONE]\n\n";
        ProviderPeer peer(json{{"responses",
                                {{{"status", 200},
                                  {"headers", {{"content-type", "text/event-stream"}}},
                                  {"chunks", {{{"b64", base64(chunk)}}}}}}}});
        std::vector<StreamDelta> deltas;
        const auto reply = complete(peerConfig(ProviderKind::openai, peer, true), question(&deltas));
        REQUIRE(reply);
        CHECK(reply->text == expected);
        REQUIRE_FALSE(deltas.empty());
        CHECK(deltas[0].text == expected);
    }
    SECTION("streamed as NDJSON") {
        const std::string lines =
            R"({"model":"qwen3","message":{"role":"assistant","content":"caf)" + std::string("\xFF") +
            R"( \ud800 ok \udc00\ud83d\ude00"},"done":false})" + "\n" +
            R"({"model":"qwen3","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"})" +
            "\n";
        ProviderPeer peer(json{{"responses",
                                {{{"status", 200},
                                  {"headers", {{"content-type", "application/x-ndjson"}}},
                                  {"chunks", {{{"b64", base64(lines)}}}}}}}});
        std::vector<StreamDelta> deltas;
        const auto reply = complete(peerConfig(ProviderKind::ollama, peer, true), question(&deltas));
        REQUIRE(reply);
        CHECK(reply->text == expected);
    }
}

TEST_CASE(
    "a tool call with arguments cut by the token limit is answered with a tool error the model can act on",
    "[integration][providers][agent]") {
    // The arguments as the model wrote them when the token limit cut it off.
    json call = openAiToolCall("get_weather", "{\"location\": \"Par");
    const bool streamed = GENERATE(false, true);
    CAPTURE(streamed);
    json first = bodyResponse(openAiReplyBody(
        json{{"role", "assistant"}, {"content", nullptr}, {"tool_calls", json::array({call})}}, "length"));
    if (streamed) {
        call["index"] = 0;
        first = streamResponse(openAiChunk(json{{"role", "assistant"}, {"tool_calls", json::array({call})}}) +
                               openAiChunk(json::object(), "length") + "data: [DONE]\n\n");
    }
    ProviderPeer peer(json{{"responses",
                            {first, streamed ? streamResponse(fixture("openai/text.sse"))
                                             : bodyResponse(fixture("openai/text.json"))}}});
    Loop loop;
    auto provider = reagent::providers::makeProvider(peerConfig(ProviderKind::openai, peer, streamed));
    REQUIRE(provider);
    auto agent = reagent::agent::Agent::create().withProvider(*provider).withTools(fixtureTools()).build();
    REQUIRE(agent);
    if (streamed) {
        agent->subscribe([](const reagent::agent::AgentEvent&) {});
    }
    const auto result = loop.run(agent->run("What is the weather in Paris?"));
    INFO((result.error() ? result.error()->describe() : std::string()));
    REQUIRE(result.success());
    CHECK(result.output == "Hello! The capital of France is Paris.");

    const json recorded = peer.requests();
    REQUIRE(recorded.size() == 2);
    const json second = json::parse(recorded[1]["body"].get<std::string>());
    std::string toolMessage;
    for (const auto& message : second["messages"]) {
        if (message["role"] == "tool") {
            toolMessage = message["content"].get<std::string>();
        }
    }
    INFO(toolMessage);
    CHECK(contains(toolMessage, "invalid_arguments"));
    CHECK(contains(toolMessage, "arguments are not valid JSON"));
    CHECK(contains(toolMessage, "of 17"));
    CHECK(contains(toolMessage, "the reply was cut by the token limit"));
}

TEST_CASE("large replies stay within the default bounds", "[integration][providers][bounds]") {
    // A 45 MB text, 1,000 tool calls, one with 5 MB of arguments: about 50 MB in all.
    json calls = json::array();
    for (int i = 0; i < 1000; ++i) {
        const std::string location =
            i == 0 ? std::string(5 * 1000 * 1000, 'p') : "Paris " + std::to_string(i);
        calls.push_back(
            openAiToolCall("get_weather", json{{"location", location}}.dump(), "call_" + std::to_string(i)));
    }
    const std::string body = openAiReplyBody(
        json{{"role", "assistant"}, {"content", std::string(45 * 1000 * 1000, 't')}, {"tool_calls", calls}},
        "tool_calls");
    json streamedCall = calls[0];
    streamedCall["index"] = 0;
    const std::string streamedBody =
        openAiChunk(json{{"role", "assistant"}, {"tool_calls", json::array({streamedCall})}}, "tool_calls") +
        "data: [DONE]\n\n";
    ProviderPeer peer(json{{"responses", {bodyResponse(body), streamResponse(streamedBody)}}});
    const auto whole = complete(peerConfig(ProviderKind::openai, peer), question());
    REQUIRE(whole);
    CHECK(whole->text.size() == 45u * 1000 * 1000);
    REQUIRE(whole->toolCalls.size() == 1000);
    CHECK(whole->toolCalls[0].arguments["location"].get<std::string>().size() == 5u * 1000 * 1000);

    std::vector<StreamDelta> deltas;
    const auto streamed = complete(peerConfig(ProviderKind::openai, peer, true), question(&deltas));
    REQUIRE(streamed);
    REQUIRE(streamed->toolCalls.size() == 1);
    CHECK(streamed->toolCalls[0].arguments["location"].get<std::string>().size() == 5u * 1000 * 1000);
}
