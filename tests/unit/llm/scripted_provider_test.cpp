#include "reagent/llm/scripted_provider.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "run_coro.hpp"

using namespace std::chrono_literals;
using reagent::expected;
using reagent::llm::Message;
using reagent::llm::ModelReply;
using reagent::llm::ModelRequest;
using reagent::llm::ProviderErrc;
using reagent::llm::ProviderError;
using reagent::llm::ScriptedProvider;
using reagent::llm::ScriptedTurn;
using reagent::llm::StopReason;
using reagent::llm::ToolCall;
using reagent::llm::Usage;
using reagent::test::runCoro;

namespace {

using Outcome = expected<ModelReply, ProviderError>;

ModelRequest requestSaying(std::string text) {
    ModelRequest request;
    request.messages.push_back(Message::system("be brief"));
    request.messages.push_back(Message::user(std::move(text)));
    return request;
}

Outcome ask(ScriptedProvider& provider, std::string text) {
    return runCoro(provider.complete(requestSaying(std::move(text))));
}

}  // namespace

TEST_CASE("message factories and names", "[llm][message]") {
    const Message system = Message::system("rules");
    CHECK(system.role == reagent::llm::Role::system);
    CHECK(system.text == "rules");

    const Message assistant = Message::assistant("thinking", {ToolCall{"c1", "search", {{"q", "x"}}}});
    CHECK(assistant.role == reagent::llm::Role::assistant);
    REQUIRE(assistant.toolCalls.size() == 1);
    CHECK(assistant.toolCalls[0].arguments["q"] == "x");

    const Message result = Message::toolResult("c1", "search", "invalid_arguments: at /q", true);
    CHECK(result.role == reagent::llm::Role::tool);
    CHECK(result.toolCallId == "c1");
    CHECK(result.toolName == "search");
    CHECK(result.isError);

    CHECK(reagent::llm::toString(reagent::llm::Role::user) == "user");
    CHECK(reagent::llm::toString(reagent::llm::Role::tool) == "tool");
    CHECK(reagent::llm::toString(StopReason::tool_use) == "tool_use");
    CHECK(reagent::llm::toString(StopReason::max_tokens) == "max_tokens");
}

TEST_CASE("provider errors: retryable codes and description", "[llm][provider_error]") {
    // Exactly what the HTTP providers retry: a timeout is not (each attempt would wait the whole deadline).
    for (auto code :
         {ProviderErrc::rate_limited, ProviderErrc::server_error, ProviderErrc::connection_failed}) {
        CHECK(ProviderError{code, "x", {}, {}, {}}.retryable());
    }
    for (auto code : {ProviderErrc::timeout, ProviderErrc::invalid_request, ProviderErrc::authentication,
                      ProviderErrc::quota_exceeded, ProviderErrc::malformed_response,
                      ProviderErrc::empty_reply, ProviderErrc::cancelled, ProviderErrc::configuration}) {
        CHECK_FALSE(ProviderError{code, "x", {}, {}, {}}.retryable());
    }
    CHECK(ProviderError{ProviderErrc::timeout, "no answer within 60 s", {}, {}, {}}.describe() ==
          "timeout: no answer within 60 s");
    CHECK(ProviderError{ProviderErrc::server_error, "overloaded", 529, "overloaded_error", {}}.describe() ==
          "server_error: overloaded (HTTP 529, overloaded_error)");
    CHECK(ProviderError{ProviderErrc::rate_limited, "slow down", 429, "", 2000ms}.describe() ==
          "rate_limited: slow down (HTTP 429)");
    CHECK(reagent::llm::toString(ProviderErrc::configuration) == "configuration");
}

TEST_CASE("scripted provider plays its turns in order", "[llm][scripted]") {
    ScriptedProvider provider;
    provider.then(ScriptedTurn::toolCall("search", {{"q", "tokyo"}}).usage({12, 3}))
        .then(ScriptedTurn::toolCalls(
            {ToolCall{"", "a", {}}, ToolCall{"mine", "b", {}}, ToolCall{"", "c", {}}}))
        .then(ScriptedTurn::text("done").usage({20, 5}));
    CHECK(provider.remaining() == 3);

    const Outcome first = ask(provider, "one");
    REQUIRE(first);
    CHECK(first->text.empty());
    REQUIRE(first->toolCalls.size() == 1);
    CHECK(first->toolCalls[0].id == "call_1");
    CHECK(first->toolCalls[0].name == "search");
    CHECK(first->toolCalls[0].arguments == nlohmann::json{{"q", "tokyo"}});
    CHECK(first->stopReason == StopReason::tool_use);
    CHECK(first->usage == Usage{12, 3});
    CHECK(first->model == "scripted");

    const Outcome second = ask(provider, "two");
    REQUIRE(second);
    REQUIRE(second->toolCalls.size() == 3);
    // Ids count every call the provider produced; an explicit id is kept.
    CHECK(second->toolCalls[0].id == "call_2");
    CHECK(second->toolCalls[1].id == "mine");
    CHECK(second->toolCalls[2].id == "call_4");
    CHECK(second->usage == Usage{});

    const Outcome third = ask(provider, "three");
    REQUIRE(third);
    CHECK(third->text == "done");
    CHECK(third->toolCalls.empty());
    CHECK(third->stopReason == StopReason::end_turn);
    CHECK(third->usage.total() == 25);
    CHECK(provider.remaining() == 0);
}

TEST_CASE("scripted provider records every request, failed ones included", "[llm][scripted]") {
    ScriptedProvider provider;
    provider.then(ScriptedTurn::text("a"))
        .then(ScriptedTurn::error(ProviderError{ProviderErrc::rate_limited, "slow down", 429, "", 1000ms}));
    REQUIRE(ask(provider, "first"));

    const Outcome second = ask(provider, "second");
    REQUIRE_FALSE(second);
    CHECK(second.error().code == ProviderErrc::rate_limited);
    CHECK(second.error().retryAfter == 1000ms);

    const Outcome third = ask(provider, "third");
    REQUIRE_FALSE(third);
    CHECK(third.error().code == ProviderErrc::configuration);
    CHECK(third.error().providerType == reagent::llm::kScriptExhausted);

    REQUIRE(provider.requests().size() == 3);
    CHECK(provider.requests()[0].messages.back().text == "first");
    CHECK(provider.requests()[1].messages.back().text == "second");
    CHECK(provider.requests()[2].messages.back().text == "third");
    CHECK(provider.requests()[2].messages.front().text == "be brief");
}

TEST_CASE("a failing expectation reports a script mismatch naming it and the request", "[llm][scripted]") {
    ScriptedProvider provider;
    provider.then(ScriptedTurn::text("a"))
        .then(ScriptedTurn::text("b").expectLastMessageContains("42"))
        .then(ScriptedTurn::text("c").expect([](const ModelRequest& r) { return r.tools.size() == 2; },
                                             "two tools are offered"));

    REQUIRE(ask(provider, "anything"));
    const Outcome mismatch = ask(provider, "the answer is 41");
    REQUIRE_FALSE(mismatch);
    CHECK(mismatch.error().code == ProviderErrc::invalid_request);
    CHECK(mismatch.error().providerType == reagent::llm::kScriptMismatch);
    CHECK_THAT(mismatch.error().describe(),
               Catch::StartsWith("invalid_request: request #2") && Catch::EndsWith("(script_mismatch)"));
    CHECK_THAT(mismatch.error().message, Catch::Contains("request #2"));
    CHECK_THAT(mismatch.error().message, Catch::Contains("the last message contains \"42\""));
    CHECK_THAT(mismatch.error().message, Catch::Contains("the answer is 41"));

    // The turn was consumed; the next one has its own expectation.
    const Outcome custom = ask(provider, "x");
    REQUIRE_FALSE(custom);
    CHECK_THAT(custom.error().message, Catch::Contains("request #3"));
    CHECK_THAT(custom.error().message, Catch::Contains("two tools are offered"));
    CHECK(provider.requests().size() == 3);
}

TEST_CASE("a matching expectation lets the turn play", "[llm][scripted]") {
    ScriptedProvider provider;
    provider.then(ScriptedTurn::text("yes").expectLastMessageContains("42"));
    const Outcome reply = ask(provider, "is it 42?");
    REQUIRE(reply);
    CHECK(reply->text == "yes");
}

TEST_CASE("a throwing matcher is a mismatch, not an exception", "[llm][scripted]") {
    ScriptedProvider provider;
    provider.then(ScriptedTurn::text("x").expect(
        [](const ModelRequest&) -> bool { throw std::runtime_error("boom"); }, "never"));
    const Outcome reply = ask(provider, "hi");
    REQUIRE_FALSE(reply);
    CHECK(reply.error().code == ProviderErrc::invalid_request);
    CHECK(reply.error().providerType == reagent::llm::kScriptMismatch);
    CHECK_THAT(reply.error().message, Catch::Contains("boom"));
}

TEST_CASE("an exhausted script says how to fix it", "[llm][scripted]") {
    ScriptedProvider provider({ScriptedTurn::text("only")});
    REQUIRE(ask(provider, "1"));
    const Outcome reply = ask(provider, "2");
    REQUIRE_FALSE(reply);
    CHECK(reply.error().code == ProviderErrc::configuration);
    CHECK(reply.error().providerType == reagent::llm::kScriptExhausted);
    CHECK_FALSE(reply.error().retryable());
    CHECK(reply.error().message ==
          "scripted provider has no turn left for request #2 (script has 1 turns); add turns with then(...)");

    ScriptedProvider empty;
    const Outcome none = ask(empty, "1");
    REQUIRE_FALSE(none);
    CHECK(none.error().message ==
          "scripted provider has no turn left for request #1 (script has 0 turns); add turns with then(...)");
    // loop(true) on an empty script still reports exhaustion.
    empty.loop();
    CHECK(ask(empty, "2").error().providerType == reagent::llm::kScriptExhausted);
}

TEST_CASE("a looping script starts over", "[llm][scripted]") {
    ScriptedProvider provider;
    provider.then(ScriptedTurn::text("a")).then(ScriptedTurn::text("b")).loop(true);
    std::string seen;
    for (int i = 0; i < 5; ++i) {
        const Outcome reply = ask(provider, "go");
        REQUIRE(reply);
        seen += reply->text;
    }
    CHECK(seen == "ababa");
    CHECK(provider.requests().size() == 5);
}

TEST_CASE("with recording off, requests are answered and counted but not kept", "[llm][scripted]") {
    ScriptedProvider provider;
    provider.then(ScriptedTurn::text("a")).recordRequests(false);
    REQUIRE(ask(provider, "1"));
    const Outcome second = ask(provider, "2");
    REQUIRE_FALSE(second);
    CHECK(provider.requests().empty());
    // Numbering still counts every request.
    CHECK(second.error().message.find("request #2") != std::string::npos);
}

TEST_CASE("respond computes the reply from the request", "[llm][scripted]") {
    ScriptedProvider provider;
    provider
        .then(ScriptedTurn::respond([](const ModelRequest& request) -> Outcome {
                  ModelReply reply;
                  reply.text = "you said: " + request.messages.back().text;
                  reply.toolCalls.push_back(ToolCall{"", "echo", {}});
                  return reply;
              }).usage({7, 1}))
        .then(ScriptedTurn::respond([](const ModelRequest&) -> Outcome {
            return reagent::fail(ProviderError{ProviderErrc::invalid_request, "bad", 400, "", {}});
        }))
        .then(
            ScriptedTurn::respond([](const ModelRequest&) -> Outcome { throw std::runtime_error("oops"); }));

    const Outcome first = ask(provider, "hello");
    REQUIRE(first);
    CHECK(first->text == "you said: hello");
    REQUIRE(first->toolCalls.size() == 1);
    CHECK(first->toolCalls[0].id == "call_1");
    CHECK(first->stopReason == StopReason::tool_use);
    CHECK(first->usage == Usage{7, 1});

    const Outcome second = ask(provider, "x");
    REQUIRE_FALSE(second);
    CHECK(second.error().code == ProviderErrc::invalid_request);

    const Outcome third = ask(provider, "y");
    REQUIRE_FALSE(third);
    CHECK(third.error().code == ProviderErrc::server_error);
    CHECK_THAT(third.error().message, Catch::Contains("oops"));
    CHECK_THAT(third.error().message, Catch::Contains("request #3"));
}

TEST_CASE("a full reply keeps its own stop reason", "[llm][scripted]") {
    ModelReply given;
    given.text = "cut off";
    given.stopReason = StopReason::max_tokens;
    given.model = "m-1";
    ScriptedProvider provider({ScriptedTurn::reply(given)});
    const Outcome reply = ask(provider, "x");
    REQUIRE(reply);
    CHECK(reply->stopReason == StopReason::max_tokens);
    CHECK(reply->model == "m-1");
}

TEST_CASE("delay simulates latency", "[llm][scripted][timing]") {
    ScriptedProvider provider({ScriptedTurn::text("late").delay(100ms)});
    const auto start = std::chrono::steady_clock::now();
    const Outcome reply = ask(provider, "x");
    const auto elapsed = reagent::test::elapsedMs(start);
    REQUIRE(reply);
    CHECK(reply->text == "late");
    CHECK(elapsed >= 100);
    CHECK(elapsed < 2000);
}

TEST_CASE("cancelling a delayed turn returns cancelled without throwing", "[llm][scripted][cancel]") {
    namespace asio = boost::asio;
    ScriptedProvider provider({ScriptedTurn::text("too late").delay(5s)});
    asio::io_context io;
    asio::cancellation_signal signal;
    std::optional<Outcome> outcome;
    std::exception_ptr thrown;
    asio::co_spawn(io, provider.complete(requestSaying("x")),
                   asio::bind_cancellation_slot(signal.slot(), [&](std::exception_ptr e, Outcome result) {
                       thrown = e;
                       outcome = std::move(result);
                   }));
    asio::steady_timer timer(io, 50ms);
    timer.async_wait([&](boost::system::error_code) { signal.emit(asio::cancellation_type::terminal); });
    const auto start = std::chrono::steady_clock::now();
    io.run();

    CHECK(reagent::test::elapsedMs(start) < 2000);
    CHECK_FALSE(thrown);
    REQUIRE(outcome);
    REQUIRE_FALSE(*outcome);
    CHECK(outcome->error().code == ProviderErrc::cancelled);
    CHECK_THAT(outcome->error().message, Catch::Contains("request #1"));
    CHECK(provider.requests().size() == 1);
}
