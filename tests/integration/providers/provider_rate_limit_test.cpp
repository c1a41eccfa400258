// One provider object's rate limits shared by many concurrent runs, against a peer that enforces its own
// limit with 429s: none fails and the peer never sees more than its limit; a request waiting for a slot is
// cancelled at once.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "provider_test_support.hpp"

using reagent::agent::Agent;
using reagent::agent::AgentEvent;
using reagent::agent::RunResult;
using reagent::providers::ProviderKind;
using namespace reagent::test;
using namespace std::chrono_literals;
namespace asio = boost::asio;

TEST_CASE("1,000 concurrent runs on one provider keep to its rate limit: no 429, none failed",
          "[integration][providers][ratelimit]") {
    // The peer answers 429 past 60 requests in a second; the provider keeps to 45 a second (bursts of
    // 4), so any second of sending sees at most 49. The margin is for a loaded machine, where requests
    // admitted in one second may reach the peer in the next.
    ProviderPeer peer(
        json{{"limit_per_second", 60},
             {"rules", {{{"match", ""}, {"response", bodyResponse(fixture("openai/text.json"))}}}}});
    auto config = peerConfig(ProviderKind::openai, peer, false);
    config.rateLimits.requestsPerMinute = 2'700;
    auto provider = reagent::providers::makeProvider(config);
    REQUIRE(provider);
    int throttles = 0;
    auto agent = Agent::create()
                     .withProvider(*provider)
                     .withEventHandler([&](const AgentEvent& event) {
                         throttles += std::holds_alternative<reagent::agent::ModelThrottled>(event) ? 1 : 0;
                     })
                     .build();
    REQUIRE(agent);
    asio::io_context io;
    constexpr int kRuns = 1000;
    int succeeded = 0;
    int failed = 0;
    std::string firstFailure;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kRuns; ++i) {
        asio::co_spawn(io, agent->run("Capital of France?"), [&](std::exception_ptr, RunResult result) {
            if (result.success()) {
                ++succeeded;
            } else {
                if (failed++ == 0) {
                    firstFailure = result.errorMessage;
                }
            }
        });
    }
    io.run();
    const auto took = std::chrono::steady_clock::now() - start;
    INFO(firstFailure);
    CHECK(succeeded == kRuns);
    CHECK(failed == 0);
    const json stats = peer.stats();
    CHECK(stats["throttled"] == 0);
    CHECK(stats["peak_per_second"].get<int>() <= 60);
    CHECK(stats["requests"] == kRuns);
    CHECK(took >= 20s);  // (1000 - 4) / 45 a second
    CHECK(took < 60s);
    CHECK(throttles > 0);
}

TEST_CASE("a request waiting for a slot ends at once when cancelled, the one in flight finishes",
          "[integration][providers][ratelimit]") {
    json slow = bodyResponse(fixture("openai/text.json"));
    slow["delay_ms"] = 1500;
    ProviderPeer peer(json{{"rules", {{{"match", ""}, {"response", slow}}}}});
    auto config = peerConfig(ProviderKind::openai, peer, false);
    config.rateLimits.maxConcurrent = 1;
    auto provider = reagent::providers::makeProvider(config);
    REQUIRE(provider);
    std::vector<reagent::llm::ThrottleNotice> notices;
    auto agent = Agent::create()
                     .withProvider(*provider)
                     .withEventHandler([&](const AgentEvent& event) {
                         if (const auto* throttled = std::get_if<reagent::agent::ModelThrottled>(&event)) {
                             notices.push_back(throttled->notice);
                         }
                     })
                     .build();
    REQUIRE(agent);
    asio::io_context io;
    std::optional<RunResult> first;
    std::optional<RunResult> second;
    asio::cancellation_signal cancel;
    std::chrono::steady_clock::time_point secondEnded;
    asio::co_spawn(io, agent->run("first"),
                   [&](std::exception_ptr, RunResult result) { first = std::move(result); });
    asio::co_spawn(io, agent->run("second"),
                   asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr, RunResult result) {
                       second = std::move(result);
                       secondEnded = std::chrono::steady_clock::now();
                   }));
    asio::steady_timer timer(io, 200ms);
    std::chrono::steady_clock::time_point cancelledAt;
    timer.async_wait([&](boost::system::error_code) {
        cancelledAt = std::chrono::steady_clock::now();
        cancel.emit(asio::cancellation_type::terminal);
    });
    io.run();
    REQUIRE(first);
    REQUIRE(second);
    CHECK(first->success());
    CHECK(second->terminatedBy == reagent::agent::TerminatedBy::cancelled);
    CHECK(secondEnded - cancelledAt < 500ms);
    REQUIRE_FALSE(notices.empty());
    CHECK(notices[0].untilRelease);
    CHECK(notices[0].reason == "1 requests in flight (maxConcurrent)");
    CHECK(peer.requests().size() == 1);  // the cancelled one never reached the peer
}

TEST_CASE("an overloaded answer that says when to come back holds every request of the provider until then",
          "[integration][providers][ratelimit]") {
    json overloaded = bodyResponse(fixture("anthropic/error_529.json"), 529);
    overloaded["headers"] = json{{"retry-after", "1"}};
    ProviderPeer peer(
        json{{"responses", {overloaded}},
             {"rules", {{{"match", ""}, {"response", bodyResponse(fixture("anthropic/text.json"))}}}}});
    auto config = peerConfig(ProviderKind::anthropic, peer, false);
    config.rateLimits.maxConcurrent = 8;  // a limiter, which the hold lives in
    auto provider = reagent::providers::makeProvider(config);
    REQUIRE(provider);
    std::vector<reagent::llm::ThrottleNotice> notices;
    auto agent = Agent::create().withProvider(*provider).build();
    REQUIRE(agent);
    asio::io_context io;
    std::optional<RunResult> first;
    std::optional<RunResult> second;
    const auto start = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point secondEnded;
    asio::co_spawn(io, agent->run("first"),
                   [&](std::exception_ptr, RunResult result) { first = std::move(result); });
    asio::steady_timer later(io, 300ms);  // after the 529 came back
    later.async_wait([&](boost::system::error_code) {
        reagent::agent::RunOptions options;
        options.onEvent = [&](const AgentEvent& event) {
            if (const auto* throttled = std::get_if<reagent::agent::ModelThrottled>(&event)) {
                notices.push_back(throttled->notice);
            }
        };
        asio::co_spawn(io, agent->run("second", std::move(options)),
                       [&](std::exception_ptr, RunResult result) {
                           second = std::move(result);
                           secondEnded = std::chrono::steady_clock::now();
                       });
    });
    io.run();
    REQUIRE(first);
    REQUIRE(second);
    CHECK(first->success());
    CHECK(second->success());
    CHECK(secondEnded - start >= 900ms);  // held until the second the server named had passed
    REQUIRE_FALSE(notices.empty());
    CHECK(peer.requests().size() == 3);
}
