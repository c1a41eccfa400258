#include "rate_limit_state.hpp"

#include <algorithm>
#include <charconv>
#include <ctime>
#include <string_view>

namespace reagent::providers::detail {

namespace {

using Clock = RateLimitState::Clock;

std::optional<std::int64_t> integerOf(std::string_view text) {
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

// OpenAI's reset durations: "1s", "6m0s", "20ms", "1.5s", "2h3m".
std::optional<Clock::duration> parseDuration(std::string_view text) {
    double total = 0;
    bool any = false;
    while (!text.empty()) {
        std::size_t digits = 0;
        while (digits < text.size() &&
               ((text[digits] >= '0' && text[digits] <= '9') || text[digits] == '.')) {
            ++digits;
        }
        if (digits == 0) {
            return std::nullopt;
        }
        const double value = std::strtod(std::string(text.substr(0, digits)).c_str(), nullptr);
        text.remove_prefix(digits);
        double unit = 0;
        if (text.rfind("ms", 0) == 0) {
            unit = 0.001;
            text.remove_prefix(2);
        } else if (!text.empty() && (text[0] == 's' || text[0] == 'm' || text[0] == 'h')) {
            unit = text[0] == 's' ? 1 : text[0] == 'm' ? 60 : 3600;
            text.remove_prefix(1);
        } else {
            return std::nullopt;
        }
        total += value * unit;
        any = true;
    }
    if (!any) {
        return std::nullopt;
    }
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(total));
}

// Anthropic's reset times: RFC 3339 in UTC, "2026-11-28T09:40:12Z" (fractions of a second ignored).
std::optional<std::chrono::system_clock::time_point> parseRfc3339(std::string_view text) {
    std::tm parts{};
    if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
        text[16] != ':') {
        return std::nullopt;
    }
    const auto number = [&](std::size_t at, std::size_t size) { return integerOf(text.substr(at, size)); };
    const auto year = number(0, 4), month = number(5, 2), day = number(8, 2), hour = number(11, 2),
               minute = number(14, 2), second = number(17, 2);
    if (!year || !month || !day || !hour || !minute || !second) {
        return std::nullopt;
    }
    parts.tm_year = static_cast<int>(*year) - 1900;
    parts.tm_mon = static_cast<int>(*month) - 1;
    parts.tm_mday = static_cast<int>(*day);
    parts.tm_hour = static_cast<int>(*hour);
    parts.tm_min = static_cast<int>(*minute);
    parts.tm_sec = static_cast<int>(*second);
    const std::time_t seconds = timegm(&parts);
    if (seconds == static_cast<std::time_t>(-1)) {
        return std::nullopt;
    }
    return std::chrono::system_clock::from_time_t(seconds);
}

// When the limit a pair of headers describes resets, if it says nothing remains.
std::optional<Clock::time_point> exhaustedUntil(const http::HttpHeaders& headers, std::string_view remaining,
                                                std::string_view reset, Clock::time_point now,
                                                std::chrono::system_clock::time_point wallNow) {
    const auto left = headers.find(remaining);
    const auto when = headers.find(reset);
    if (!left || !when || integerOf(*left).value_or(1) > 0) {
        return std::nullopt;
    }
    if (const auto after = parseDuration(*when)) {
        return now + *after;
    }
    if (const auto at = parseRfc3339(*when)) {
        return now + std::max<Clock::duration>(Clock::duration::zero(), *at - wallNow);
    }
    return std::nullopt;
}

}  // namespace

RateLimitState::Bucket RateLimitState::bucket(double perMinute) {
    Bucket out;
    if (perMinute > 0) {
        out.rate = perMinute / 60.0;
        out.capacity = std::max(1.0, out.rate / 10.0);  // bursts of a tenth of a second's share
        out.available = out.capacity;
    }
    return out;
}

RateLimitState::RateLimitState(RateLimits limits)
    : limits_(limits),
      active_(limits.maxConcurrent > 0 || limits.requestsPerMinute > 0 || limits.tokensPerMinute > 0 ||
              limits.fromHeaders),
      requests_(bucket(limits.requestsPerMinute)),
      tokens_(bucket(static_cast<double>(limits.tokensPerMinute))) {}

void RateLimitState::refill(Bucket& bucket, Clock::time_point now) {
    if (bucket.rate <= 0) {
        return;
    }
    if (bucket.refilled == Clock::time_point{}) {
        bucket.refilled = now;
    }
    const double seconds = std::chrono::duration<double>(now - bucket.refilled).count();
    bucket.available = std::min(bucket.capacity, bucket.available + seconds * bucket.rate);
    bucket.refilled = now;
}

Clock::duration RateLimitState::until(const Bucket& bucket, double amount) {
    const double needed = std::min(amount, bucket.capacity) - bucket.available;
    if (bucket.rate <= 0 || needed <= 0) {
        return Clock::duration::zero();
    }
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(needed / bucket.rate)) +
           std::chrono::microseconds(1);
}

std::optional<RateLimitState::Wait> RateLimitState::admit(Clock::time_point now, std::int64_t tokens) {
    if (now < heldUntil_) {
        return Wait{heldUntil_ - now, false, heldBecause_};
    }
    if (limits_.maxConcurrent > 0 && inFlight_ >= limits_.maxConcurrent) {
        return Wait{Clock::duration::zero(), true,
                    std::to_string(limits_.maxConcurrent) + " requests in flight (maxConcurrent)"};
    }
    refill(requests_, now);
    refill(tokens_, now);
    if (const auto wait = until(requests_, 1); wait > Clock::duration::zero()) {
        return Wait{wait, false, std::to_string(limits_.requestsPerMinute) + " requests per minute"};
    }
    if (const auto wait = until(tokens_, static_cast<double>(tokens)); wait > Clock::duration::zero()) {
        return Wait{wait, false, std::to_string(limits_.tokensPerMinute) + " tokens per minute"};
    }
    if (requests_.rate > 0) {
        requests_.available -= 1;
    }
    if (tokens_.rate > 0) {
        tokens_.available -= static_cast<double>(tokens);  // may go below zero: a large request is a debt
    }
    ++inFlight_;
    return std::nullopt;
}

void RateLimitState::release(std::int64_t estimated, std::int64_t used) {
    inFlight_ = std::max(0, inFlight_ - 1);
    if (tokens_.rate > 0 && used > 0) {
        tokens_.available =
            std::min(tokens_.capacity, tokens_.available + static_cast<double>(estimated - used));
    }
}

void RateLimitState::observe(Clock::time_point now, std::chrono::system_clock::time_point wallNow,
                             const http::HttpHeaders& headers) {
    if (!limits_.fromHeaders) {
        return;
    }
    for (const auto& [remaining, reset] :
         {std::pair<std::string_view, std::string_view>{"anthropic-ratelimit-requests-remaining",
                                                        "anthropic-ratelimit-requests-reset"},
          {"anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-tokens-reset"},
          {"anthropic-ratelimit-input-tokens-remaining", "anthropic-ratelimit-input-tokens-reset"},
          {"anthropic-ratelimit-output-tokens-remaining", "anthropic-ratelimit-output-tokens-reset"},
          {"x-ratelimit-remaining-requests", "x-ratelimit-reset-requests"},
          {"x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"}}) {
        if (const auto until = exhaustedUntil(headers, remaining, reset, now, wallNow);
            until && *until > heldUntil_) {
            heldUntil_ = *until;
            heldBecause_ = "the API said " + std::string(remaining) + ": 0";
        }
    }
}

void RateLimitState::holdUntil(Clock::time_point until) {
    if (limits_.fromHeaders && until > heldUntil_) {
        heldUntil_ = until;
        heldBecause_ = "the API answered 429 with retry-after";
    }
}

}  // namespace reagent::providers::detail
