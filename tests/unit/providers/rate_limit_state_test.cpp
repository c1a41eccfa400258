// The rate limits' bookkeeping without I/O: requests spread evenly per minute, tokens counted at their
// estimate then corrected, a slot cap, and the APIs' rate-limit headers holding requests until a reset.

#include "rate_limit_state.hpp"

#include <catch2/catch.hpp>
#include <chrono>

using namespace std::chrono_literals;
using reagent::providers::RateLimits;
using reagent::providers::detail::RateLimitState;
using Clock = RateLimitState::Clock;

TEST_CASE("requests per minute: bursts of a tenth of a second's share, then evenly spread",
          "[providers][ratelimit]") {
    RateLimits limits;
    limits.requestsPerMinute = 6000;  // 100 a second: bursts of 10
    RateLimitState state(limits);
    const Clock::time_point t0 = Clock::time_point{} + 1h;
    int admitted = 0;
    while (!state.admit(t0, 1)) {
        ++admitted;
    }
    CHECK(admitted == 10);
    const auto wait = state.admit(t0, 1);
    REQUIRE(wait);
    CHECK_FALSE(wait->forRelease);
    CHECK(wait->reason == "6000 requests per minute");
    CHECK(wait->wait > 9ms);
    CHECK(wait->wait < 11ms);
    // Over one second, at most 10 + 100 start.
    int inSecond = admitted;
    for (auto now = t0; now < t0 + 1s; now += 1ms) {
        while (!state.admit(now, 1)) {
            ++inSecond;
        }
    }
    CHECK(inSecond <= 110);
    CHECK(inSecond >= 105);
}

TEST_CASE("a slot cap waits for a release, tokens are corrected by the usage reported",
          "[providers][ratelimit]") {
    RateLimits limits;
    limits.maxConcurrent = 2;
    limits.tokensPerMinute = 60'000;  // 1,000 a second: bursts of 100
    RateLimitState state(limits);
    const Clock::time_point t0 = Clock::time_point{} + 1h;
    CHECK_FALSE(state.admit(t0, 100));  // a full burst
    const auto tokens = state.admit(t0, 50);
    REQUIRE(tokens);
    CHECK(tokens->reason == "60000 tokens per minute");
    state.release(100, 20);  // used 20 of its 100: 80 come back
    CHECK_FALSE(state.admit(t0, 50));
    CHECK(state.inFlight() == 1);
    CHECK_FALSE(state.admit(t0 + 1s, 5000));  // larger than a burst: admitted on a full bucket, as a debt
    const auto slots = state.admit(t0 + 2s, 1);
    REQUIRE(slots);
    CHECK(slots->forRelease);
    CHECK(slots->reason == "2 requests in flight (maxConcurrent)");
    state.release(50, 0);
    CHECK(state.admit(t0 + 2s, 1));  // the debt: 5000 tokens take about 5 s to repay
    CHECK_FALSE(state.admit(t0 + 8s, 1));
}

TEST_CASE("the APIs' headers hold requests until the limit they name resets", "[providers][ratelimit]") {
    const Clock::time_point t0 = Clock::time_point{} + 1h;
    const auto wallNow = std::chrono::system_clock::from_time_t(1'800'000'000);  // 2027-01-15T08:00:00Z
    SECTION("OpenAI: x-ratelimit-remaining-requests 0, reset in 1.5s") {
        RateLimitState state(RateLimits{});
        reagent::http::HttpHeaders headers;
        headers.set("x-ratelimit-remaining-requests", "0");
        headers.set("x-ratelimit-reset-requests", "1.5s");
        headers.set("x-ratelimit-remaining-tokens", "5000");
        headers.set("x-ratelimit-reset-tokens", "6m0s");
        state.observe(t0, wallNow, headers);
        const auto wait = state.admit(t0, 1);
        REQUIRE(wait);
        CHECK(wait->wait == 1500ms);
        CHECK(wait->reason == "the API said x-ratelimit-remaining-requests: 0");
        CHECK_FALSE(state.admit(t0 + 1500ms, 1));
    }
    SECTION("Anthropic: anthropic-ratelimit-tokens-remaining 0, reset at an RFC 3339 time") {
        RateLimitState state(RateLimits{});
        reagent::http::HttpHeaders headers;
        headers.set("anthropic-ratelimit-tokens-remaining", "0");
        headers.set("anthropic-ratelimit-tokens-reset", "2027-01-15T08:00:03Z");
        state.observe(t0, wallNow, headers);
        const auto wait = state.admit(t0, 1);
        REQUIRE(wait);
        CHECK(wait->wait == 3s);
    }
    SECTION("not obeyed when told not to; a 429's retry-after holds everyone") {
        RateLimits limits;
        limits.fromHeaders = false;
        RateLimitState ignoring(limits);
        CHECK_FALSE(ignoring.active());
        reagent::http::HttpHeaders headers;
        headers.set("x-ratelimit-remaining-requests", "0");
        headers.set("x-ratelimit-reset-requests", "20s");
        ignoring.observe(t0, wallNow, headers);
        CHECK_FALSE(ignoring.admit(t0, 1));
        RateLimitState obeying(RateLimits{});
        obeying.holdUntil(t0 + 2s);
        REQUIRE(obeying.admit(t0, 1));
        CHECK(obeying.admit(t0, 1)->reason == "the API answered 429 with retry-after");
    }
    SECTION("headers that say something remains, or cannot be read, hold nothing") {
        RateLimitState state(RateLimits{});
        reagent::http::HttpHeaders headers;
        headers.set("x-ratelimit-remaining-requests", "3");
        headers.set("x-ratelimit-reset-requests", "20s");
        headers.set("anthropic-ratelimit-requests-remaining", "0");
        headers.set("anthropic-ratelimit-requests-reset", "soon");
        state.observe(t0, wallNow, headers);
        CHECK_FALSE(state.admit(t0, 1));
    }
}
