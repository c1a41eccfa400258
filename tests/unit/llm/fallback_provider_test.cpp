// FallbackProvider: a failure its policy names moves the request to the next provider, with notices and
// the usage of the failed one; what the policy does not name, a cancellation, or a reply streamed in part
// stays with the provider that failed.

#include "reagent/llm/fallback_provider.hpp"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "reagent/llm/scripted_provider.hpp"
#include "run_coro.hpp"

using reagent::llm::FallbackNotice;
using reagent::llm::FallbackPolicy;
using reagent::llm::FallbackProvider;
using reagent::llm::Message;
using reagent::llm::ModelRequest;
using reagent::llm::ProviderErrc;
using reagent::llm::ProviderError;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::llm::StreamDelta;
using reagent::llm::Usage;
using reagent::test::runCoro;

namespace {

ProviderError failure(ProviderErrc code, std::string message, Usage usage = {}) {
    ProviderError error;
    error.code = code;
    error.message = std::move(message);
    error.usage = usage;
    return error;
}

ModelRequest question(std::vector<FallbackNotice>* notices) {
    ModelRequest request;
    request.messages.push_back(Message::user("Capital of France?"));
    request.onFallback = [notices](const FallbackNotice& notice) { notices->push_back(notice); };
    return request;
}

}  // namespace

TEST_CASE("a failure the policy names moves the request to the next provider", "[llm][fallback]") {
    auto first = std::make_shared<ScriptedProvider>();
    auto second = std::make_shared<ScriptedProvider>();
    auto third = std::make_shared<ScriptedProvider>();
    first->then(ScriptedTurn::error(failure(ProviderErrc::server_error, "overloaded", Usage{7, 0, 0, 0, 0})));
    second->then(
        ScriptedTurn::error(failure(ProviderErrc::invalid_request, "prompt is too long: 210000 tokens")));
    third->then(ScriptedTurn::text("Paris.").usage(Usage{10, 2, 0, 0, 0}));
    auto chain = FallbackProvider::make({first, second, third});
    REQUIRE(chain);
    std::vector<FallbackNotice> notices;
    const auto reply = runCoro((*chain)->complete(question(&notices)));
    REQUIRE(reply);
    CHECK(reply->text == "Paris.");
    CHECK(reply->usage == Usage{17, 2, 0, 0, 0});  // the failed call's input too
    REQUIRE(notices.size() == 2);
    CHECK(notices[0].from == "scripted");
    CHECK(notices[0].error.code == ProviderErrc::server_error);
    CHECK(notices[1].error.message == "prompt is too long: 210000 tokens");
    // Each provider got the same request.
    CHECK(third->requests().at(0).messages.at(0).text == "Capital of France?");
    CHECK(second->requests().size() == 1);
}

TEST_CASE("what the policy does not name, a cancellation, and a healthy provider stay where they are",
          "[llm][fallback]") {
    auto first = std::make_shared<ScriptedProvider>();
    auto second = std::make_shared<ScriptedProvider>();
    const auto code =
        GENERATE(ProviderErrc::invalid_request, ProviderErrc::authentication, ProviderErrc::cancelled);
    CAPTURE(static_cast<int>(code));
    first->then(ScriptedTurn::error(failure(code, "no")));
    first->then(ScriptedTurn::text("healthy"));
    auto chain = FallbackProvider::make({first, second});
    std::vector<FallbackNotice> notices;
    const auto failed = runCoro((*chain)->complete(question(&notices)));
    REQUIRE_FALSE(failed);
    CHECK(failed.error().code == code);
    const auto healthy = runCoro((*chain)->complete(question(&notices)));
    REQUIRE(healthy);
    CHECK(healthy->text == "healthy");
    CHECK(notices.empty());
    CHECK(second->requests().empty());
}

TEST_CASE("a policy chooses the codes, the chain's last failure is the result", "[llm][fallback]") {
    auto first = std::make_shared<ScriptedProvider>();
    auto second = std::make_shared<ScriptedProvider>();
    first->then(ScriptedTurn::error(failure(ProviderErrc::authentication, "bad key", Usage{3, 0, 0, 0, 0})));
    second->then(ScriptedTurn::error(failure(ProviderErrc::server_error, "down", Usage{4, 0, 0, 0, 0})));
    FallbackPolicy policy;
    policy.on = {ProviderErrc::authentication};
    auto chain = FallbackProvider::make({first, second}, policy);
    std::vector<FallbackNotice> notices;
    const auto reply = runCoro((*chain)->complete(question(&notices)));
    REQUIRE_FALSE(reply);
    CHECK(reply.error().message == "down");
    CHECK(reply.error().usage.inputTokens == 7);
    CHECK(notices.size() == 1);
}

TEST_CASE("a reply streamed in part is not moved", "[llm][fallback]") {
    auto first = std::make_shared<ScriptedProvider>();
    auto second = std::make_shared<ScriptedProvider>();
    first->then(ScriptedTurn::respond(
        [](const ModelRequest& request) -> reagent::expected<reagent::llm::ModelReply, ProviderError> {
            StreamDelta delta;
            delta.text = "Par";
            request.onDelta(delta);
            return reagent::fail(failure(ProviderErrc::connection_failed, "cut"));
        }));
    second->then(ScriptedTurn::text("Paris."));
    auto chain = FallbackProvider::make({first, second});
    std::vector<FallbackNotice> notices;
    ModelRequest request = question(&notices);
    std::string streamed;
    request.onDelta = [&](const StreamDelta& delta) { streamed += delta.text; };
    const auto reply = runCoro((*chain)->complete(std::move(request)));
    REQUIRE_FALSE(reply);
    CHECK(reply.error().code == ProviderErrc::connection_failed);
    CHECK(streamed == "Par");
    CHECK(second->requests().empty());
}

TEST_CASE("a chain must hold providers", "[llm][fallback]") {
    const auto empty = FallbackProvider::make({});
    REQUIRE_FALSE(empty);
    CHECK(empty.error().code == ProviderErrc::configuration);
    const auto null = FallbackProvider::make({std::make_shared<ScriptedProvider>(), nullptr});
    REQUIRE_FALSE(null);
    CHECK(null.error().message == "provider 2 of the fallback chain is null");
}

TEST_CASE("context-length failures are recognised in each API's words", "[llm][fallback]") {
    for (const char* message :
         {"This model's maximum context length is 128000 tokens (context_length_exceeded)",
          "prompt is too long: 210000 tokens > 200000 maximum",
          "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."}) {
        CAPTURE(message);
        CHECK(reagent::llm::isContextLengthExceeded(failure(ProviderErrc::invalid_request, message)));
        CHECK_FALSE(reagent::llm::isContextLengthExceeded(failure(ProviderErrc::server_error, message)));
    }
    CHECK_FALSE(reagent::llm::isContextLengthExceeded(failure(ProviderErrc::invalid_request, "bad schema")));
}
