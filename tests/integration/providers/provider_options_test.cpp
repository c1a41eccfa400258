// Wire options of a provider's configuration reach the request body it sends.

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "provider_test_support.hpp"

using reagent::llm::Message;
using reagent::llm::ModelReply;
using reagent::llm::ModelRequest;
using reagent::llm::ProviderError;
using reagent::llm::ToolSpec;
using reagent::providers::ProviderKind;
using namespace reagent::test;

namespace {

using Outcome = reagent::expected<ModelReply, ProviderError>;

reagent::Task<Outcome> askWithTool(std::shared_ptr<reagent::llm::Provider> provider) {
    ModelRequest request;
    request.messages.push_back(Message::user("What is the weather in Paris?"));
    request.tools.push_back(
        ToolSpec{"get_weather", "Current weather of a place",
                 json{{"type", "object"}, {"properties", {{"location", {{"type", "string"}}}}}}});
    request.maxTokens = 256;
    co_return co_await provider->complete(std::move(request));
}

// The body of the one request that a provider configured with `config` sends to `peer`.
json sentBody(reagent::providers::ProviderConfig config, ProviderPeer& peer) {
    auto provider = reagent::providers::makeProvider(config);
    REQUIRE(provider);
    Loop loop;
    const auto reply = loop.run(askWithTool(*provider));
    REQUIRE(reply);
    const json recorded = peer.requests();
    REQUIRE(recorded.size() == 1);
    return json::parse(recorded[0]["body"].get<std::string>());
}

}  // namespace

TEST_CASE("openAiMaxCompletionTokens names the limit as OpenAI's reasoning models need it",
          "[integration][providers][options]") {
    const json script = json{{"responses", {bodyResponse(fixture("openai/text.json"))}}};
    {
        ProviderPeer peer(script);
        const json body = sentBody(peerConfig(ProviderKind::openai, peer), peer);
        CHECK(body["max_tokens"] == 256);
        CHECK_FALSE(body.contains("max_completion_tokens"));
    }
    ProviderPeer peer(script);
    auto config = peerConfig(ProviderKind::openai, peer);
    config.openAiMaxCompletionTokens = true;
    const json body = sentBody(config, peer);
    CHECK(body["max_completion_tokens"] == 256);
    CHECK_FALSE(body.contains("max_tokens"));
}

TEST_CASE("geminiJsonSchemaParameters chooses how Gemini tool schemas are declared",
          "[integration][providers][options]") {
    const json script = json{{"responses", {bodyResponse(fixture("gemini/text.json"))}}};
    {
        ProviderPeer peer(script);
        const json body = sentBody(peerConfig(ProviderKind::gemini, peer), peer);
        const json& declaration = body["tools"][0]["functionDeclarations"][0];
        CHECK(declaration["parametersJsonSchema"]["properties"].contains("location"));
        CHECK_FALSE(declaration.contains("parameters"));
    }
    ProviderPeer peer(script);
    auto config = peerConfig(ProviderKind::gemini, peer);
    config.geminiJsonSchemaParameters = false;
    const json body = sentBody(config, peer);
    const json& declaration = body["tools"][0]["functionDeclarations"][0];
    CHECK(declaration["parameters"]["properties"].contains("location"));
    CHECK_FALSE(declaration.contains("parametersJsonSchema"));
}
