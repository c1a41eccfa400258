#include "reagent/core/retry.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "reagent/core/expected.hpp"
#include "run_coro.hpp"

using namespace std::chrono_literals;
using reagent::RetryDecision;
using reagent::RetryPolicy;
using reagent::Task;
using reagent::test::runCoro;

namespace {

struct Flaky {
    int failuresLeft;
    int calls = 0;
    std::string error = "busy";
};

Task<reagent::expected<int, std::string>> attemptOnce(Flaky* flaky) {
    ++flaky->calls;
    if (flaky->failuresLeft > 0) {
        --flaky->failuresLeft;
        co_return reagent::fail(flaky->error);
    }
    co_return 7;
}

RetryPolicy fastPolicy(int attempts) {
    RetryPolicy policy;
    policy.maxAttempts = attempts;
    policy.initialDelay = 1ms;
    policy.jitter = 0.0;
    return policy;
}

}  // namespace

TEST_CASE("backoffDelay grows exponentially, caps and jitters within its band", "[core][retry]") {
    RetryPolicy policy;
    policy.initialDelay = 100ms;
    policy.multiplier = 2.0;
    policy.maxDelay = 1000ms;
    policy.jitter = 0.0;
    CHECK(reagent::backoffDelay(policy, 0, 0.5) == 100ms);
    CHECK(reagent::backoffDelay(policy, 1, 0.5) == 200ms);
    CHECK(reagent::backoffDelay(policy, 3, 0.5) == 800ms);
    CHECK(reagent::backoffDelay(policy, 10, 0.5) == 1000ms);
    policy.jitter = 0.2;
    CHECK(reagent::backoffDelay(policy, 0, 0.0) == 80ms);
    CHECK(reagent::backoffDelay(policy, 0, 0.5) == 100ms);
    CHECK(reagent::backoffDelay(policy, 0, 0.999) == 120ms);
    for (int i = 0; i < 100; ++i) {
        const double u = reagent::jitterSample();
        REQUIRE(u >= 0.0);
        REQUIRE(u < 1.0);
    }
}

TEST_CASE("retry returns the first success", "[core][retry]") {
    Flaky flaky{2};
    auto result = runCoro(reagent::retry(
        fastPolicy(5), [&] { return attemptOnce(&flaky); }, [](const std::string&, int) { return true; }));
    REQUIRE(result.has_value());
    CHECK(*result == 7);
    CHECK(flaky.calls == 3);
}

TEST_CASE("retry stops at maxAttempts with the last error", "[core][retry]") {
    Flaky flaky{10};
    auto result = runCoro(reagent::retry(
        fastPolicy(3), [&] { return attemptOnce(&flaky); }, [](const std::string&, int) { return true; }));
    REQUIRE_FALSE(result.has_value());
    CHECK(result.error() == "busy");
    CHECK(flaky.calls == 3);
}

TEST_CASE("retry stops when the predicate says the error is final", "[core][retry]") {
    Flaky flaky{10};
    flaky.error = "bad request";
    auto result = runCoro(reagent::retry(
        fastPolicy(5), [&] { return attemptOnce(&flaky); },
        [](const std::string& e, int) { return e != "bad request"; }));
    REQUIRE_FALSE(result.has_value());
    CHECK(flaky.calls == 1);
}

TEST_CASE("retry honours a delay requested by the other side", "[core][retry]") {
    Flaky flaky{1};
    const auto start = std::chrono::steady_clock::now();
    auto result = runCoro(reagent::retry(
        fastPolicy(3), [&] { return attemptOnce(&flaky); },
        [](const std::string&, int) { return RetryDecision::afterDelay(120ms); }));
    REQUIRE(result.has_value());
    CHECK(reagent::test::elapsedMs(start) >= 115);
}
