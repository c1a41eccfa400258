#include "reagent/providers/provider_http_error.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>

using namespace std::chrono_literals;
using reagent::http::HttpHeaders;
using reagent::llm::ProviderErrc;
using reagent::providers::errcForErrorType;
using reagent::providers::errcForStatus;
using reagent::providers::httpError;
using reagent::providers::parseRetryAfter;
using reagent::providers::retryDelay;
using reagent::providers::streamError;

namespace {

// Sun, 06 Nov 1994 08:49:37 GMT, minus a few seconds.
std::chrono::system_clock::time_point referenceNow() {
    using namespace std::chrono;
    return sys_days{year{1994} / November / 6} + 8h + 49min + 7s;
}

}  // namespace

TEST_CASE("HTTP statuses map to error codes", "[providers][errors]") {
    CHECK(errcForStatus(429) == ProviderErrc::rate_limited);
    CHECK(errcForStatus(401) == ProviderErrc::authentication);
    CHECK(errcForStatus(403) == ProviderErrc::authentication);
    CHECK(errcForStatus(402) == ProviderErrc::quota_exceeded);
    CHECK(errcForStatus(400) == ProviderErrc::invalid_request);
    CHECK(errcForStatus(404) == ProviderErrc::invalid_request);
    CHECK(errcForStatus(413) == ProviderErrc::invalid_request);
    CHECK(errcForStatus(422) == ProviderErrc::invalid_request);
    CHECK(errcForStatus(408) == ProviderErrc::timeout);
    CHECK(errcForStatus(500) == ProviderErrc::server_error);
    CHECK(errcForStatus(503) == ProviderErrc::server_error);
    CHECK(errcForStatus(529) == ProviderErrc::server_error);
}

TEST_CASE("provider error types map to error codes", "[providers][errors]") {
    CHECK(errcForErrorType("overloaded_error", ProviderErrc::invalid_request) == ProviderErrc::server_error);
    CHECK(errcForErrorType("rate_limit_error", ProviderErrc::server_error) == ProviderErrc::rate_limited);
    CHECK(errcForErrorType("RESOURCE_EXHAUSTED", ProviderErrc::server_error) == ProviderErrc::rate_limited);
    CHECK(errcForErrorType("PERMISSION_DENIED", ProviderErrc::server_error) == ProviderErrc::authentication);
    CHECK(errcForErrorType("something_new", ProviderErrc::timeout) == ProviderErrc::timeout);
    CHECK(errcForErrorType("insufficient_quota", ProviderErrc::server_error) == ProviderErrc::quota_exceeded);
    CHECK(errcForErrorType("billing_error", ProviderErrc::server_error) == ProviderErrc::quota_exceeded);
}

TEST_CASE("Retry-After as delta-seconds", "[providers][errors][retry-after]") {
    const auto now = referenceNow();
    CHECK(parseRetryAfter("120", now) == 120'000ms);
    CHECK(parseRetryAfter(" 3 ", now) == 3'000ms);
    CHECK(parseRetryAfter("0", now) == 0ms);
    CHECK_FALSE(parseRetryAfter("-1", now));
    CHECK_FALSE(parseRetryAfter("1.5", now));
    CHECK_FALSE(parseRetryAfter("soon", now));
    CHECK_FALSE(parseRetryAfter("", now));
    CHECK_FALSE(parseRetryAfter("99999999999999999999", now));
}

TEST_CASE("Retry-After as an HTTP-date in its three forms", "[providers][errors][retry-after]") {
    const auto now = referenceNow();
    CHECK(parseRetryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now) == 30'000ms);
    CHECK(parseRetryAfter("Sunday, 06-Nov-94 08:49:37 GMT", now) == 30'000ms);
    CHECK(parseRetryAfter("Sun Nov  6 08:49:37 1994", now) == 30'000ms);
    CHECK(parseRetryAfter("Mon, 07 Nov 1994 08:49:07 GMT", now) == 86'400'000ms);
    // A date in the past means "now".
    CHECK(parseRetryAfter("Sat, 05 Nov 1994 08:49:37 GMT", now) == 0ms);
    CHECK_FALSE(parseRetryAfter("Sun, 31 Feb 1994 08:49:37 GMT", now));
    CHECK_FALSE(parseRetryAfter("Sun, 06 Nov 1994 25:49:37 GMT", now));
    CHECK_FALSE(parseRetryAfter("Sun, 06 Nov 1994 08:49:37 UTC", now));
    CHECK_FALSE(parseRetryAfter("Sun, 6 Nov 1994 08:49:37 GMT", now));
}

TEST_CASE("retry-after-ms wins over Retry-After", "[providers][errors][retry-after]") {
    const auto now = referenceNow();
    CHECK(retryDelay(HttpHeaders{{"Retry-After-Ms", "1500.4"}, {"Retry-After", "2"}}, now) == 1500ms);
    CHECK(retryDelay(HttpHeaders{{"retry-after-ms", "junk"}, {"retry-after", "2"}}, now) == 2000ms);
    CHECK_FALSE(retryDelay(HttpHeaders{{"content-type", "application/json"}}, now));
}

TEST_CASE("error bodies of every shape give the provider's type and message", "[providers][errors]") {
    const HttpHeaders none;
    const auto anthropic =
        httpError("anthropic", 529,
                  R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})", none);
    CHECK(anthropic.code == ProviderErrc::server_error);
    CHECK(anthropic.httpStatus == 529);
    CHECK(anthropic.providerType == "overloaded_error");
    CHECK(anthropic.message == "anthropic: Overloaded");
    CHECK(anthropic.retryable());

    const auto openai = httpError(
        "openai", 429,
        R"({"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}})",
        HttpHeaders{{"retry-after", "7"}});
    // A 429 that says the quota is spent is no rate limit: waiting would not help.
    CHECK(openai.code == ProviderErrc::quota_exceeded);
    CHECK_FALSE(openai.retryable());
    CHECK(openai.providerType == "insufficient_quota");
    CHECK(openai.message ==
          "openai: You exceeded your current quota (not retried: add credit or raise the account's limits)");
    CHECK(openai.retryAfter == 7000ms);

    // The code alone says it too (compatible servers that reuse OpenAI's codes with another type).
    const auto byCode = httpError(
        "openai", 429, R"({"error":{"message":"Quota","type":"requests","code":"insufficient_quota"}})",
        HttpHeaders{});
    CHECK(byCode.code == ProviderErrc::quota_exceeded);
    CHECK(byCode.providerType == "requests");

    const auto rateLimited = httpError(
        "openai", 429,
        R"({"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}})",
        HttpHeaders{});
    CHECK(rateLimited.code == ProviderErrc::rate_limited);
    CHECK(rateLimited.retryable());

    const auto billing = httpError(
        "anthropic", 400,
        R"({"type":"error","error":{"type":"billing_error","message":"Your credit balance is too low"}})",
        HttpHeaders{});
    CHECK(billing.code == ProviderErrc::quota_exceeded);

    const auto gemini = httpError(
        "gemini", 429,
        R"([{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37.5s"}]}}])",
        none);
    CHECK(gemini.providerType == "RESOURCE_EXHAUSTED");
    CHECK(gemini.message == "gemini: Quota exceeded");
    CHECK(gemini.retryAfter == 37'500ms);

    const auto ollama =
        httpError("ollama", 404, R"({"error":"model \"llama9\" not found, try pulling it first"})", none);
    CHECK(ollama.code == ProviderErrc::invalid_request);
    CHECK(ollama.providerType.empty());
    CHECK(ollama.message == "ollama: model \"llama9\" not found, try pulling it first");

    const auto auth = httpError(
        "openai", 401, R"({"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}})",
        none);
    CHECK(auth.code == ProviderErrc::authentication);
    CHECK(auth.message ==
          "openai: Incorrect API key provided (check the API key and that it may use this model)");
}

TEST_CASE("unexpected error bodies are quoted, shortened", "[providers][errors]") {
    const auto html = httpError("anthropic", 502, "<html>\n<body>Bad Gateway</body>\n</html>", HttpHeaders{});
    CHECK(html.code == ProviderErrc::server_error);
    CHECK(html.message ==
          "anthropic: HTTP 502 with an unexpected body: <html> <body>Bad Gateway</body> </html>");
    const auto longBody = httpError("openai", 500, std::string(500, 'x'), HttpHeaders{});
    CHECK(longBody.message == "openai: HTTP 500 with an unexpected body: " + std::string(200, 'x') + "...");
    CHECK(httpError("gemini", 503, "", HttpHeaders{}).message == "gemini: HTTP 503 with an empty body");
}

TEST_CASE("errors inside a stream take their code from the provider's type", "[providers][errors]") {
    const auto overloaded = streamError(
        "anthropic", nlohmann::json::parse(
                         R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"));
    CHECK(overloaded.code == ProviderErrc::server_error);
    CHECK(overloaded.providerType == "overloaded_error");
    CHECK(overloaded.message == "anthropic: the stream reported an error: Overloaded");
    CHECK_FALSE(overloaded.httpStatus);

    const auto gemini = streamError(
        "gemini",
        nlohmann::json::parse(R"({"error":{"code":429,"message":"slow down","status":"SOMETHING_NEW"}})"));
    CHECK(gemini.code == ProviderErrc::rate_limited);  // from the numeric code, the status being unknown

    const auto ollama = streamError("ollama", nlohmann::json::parse(R"({"error":"out of memory"})"));
    CHECK(ollama.code == ProviderErrc::server_error);
    CHECK(ollama.message == "ollama: the stream reported an error: out of memory");
}
