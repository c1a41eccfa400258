// The request rules of reagent's HTTP servers (server_rules): Host, Origin, bearer token, Content-Type.

#include "reagent/http/server_rules.hpp"

#include <catch2/catch.hpp>
#include <set>
#include <string>

namespace http = reagent::http;

namespace {

http::CallerHeaders from(std::string_view host, std::optional<std::string_view> origin = std::nullopt,
                         std::optional<std::string_view> authorization = std::nullopt) {
    return http::CallerHeaders{host, origin, authorization};
}

}  // namespace

TEST_CASE("server rules: local hosts and origins", "[http][server]") {
    CHECK(http::isLocalHost("localhost"));
    CHECK(http::isLocalHost("127.0.0.1:8080"));
    CHECK(http::isLocalHost("[::1]:3000"));
    CHECK(http::isLocalHost("LOCALHOST:1"));
    CHECK_FALSE(http::isLocalHost("evil.example.com"));
    CHECK_FALSE(http::isLocalHost("localhost.evil.com"));
    CHECK(http::isLocalOrigin("http://localhost:5173"));
    CHECK(http::isLocalOrigin("https://127.0.0.1"));
    CHECK_FALSE(http::isLocalOrigin("http://evil.example.com"));
    CHECK_FALSE(http::isLocalOrigin("null"));
}

TEST_CASE("server rules: Host and Origin against DNS rebinding and cross-site requests", "[http][server]") {
    http::CallerPolicy policy;
    CHECK_FALSE(http::checkCaller(from("localhost:80"), policy));
    const auto noHost = http::checkCaller(http::CallerHeaders{}, policy);
    REQUIRE(noHost);
    CHECK(noHost->status == 400);
    const auto evilHost = http::checkCaller(from("evil.example.com"), policy);
    REQUIRE(evilHost);
    CHECK(evilHost->status == 403);
    CHECK(evilHost->message.find("evil.example.com") != std::string::npos);
    const auto evilOrigin = http::checkCaller(from("127.0.0.1", "http://evil.example.com"), policy);
    REQUIRE(evilOrigin);
    CHECK(evilOrigin->status == 403);
    CHECK(evilOrigin->message.find("origin") != std::string::npos);
    policy.loopback = false;
    CHECK_FALSE(http::checkCaller(from("example.com"), policy));
    policy.loopback = true;
    policy.allowedHosts = {"mcp.example.com"};
    policy.allowedOrigins = {"https://app.example.com"};
    CHECK_FALSE(http::checkCaller(from("MCP.example.com:443", "https://app.example.com"), policy));
    policy.loopback = false;
    CHECK(http::checkCaller(from("other.example.com"), policy));
}

TEST_CASE("server rules: the bearer token", "[http][server]") {
    http::CallerPolicy policy;
    policy.bearerToken = "s3cret-token_1";
    const auto missing = http::checkCaller(from("127.0.0.1"), policy);
    REQUIRE(missing);
    CHECK(missing->status == 401);
    CHECK(missing->challenge == "Bearer");
    const auto wrong = http::checkCaller(from("127.0.0.1", std::nullopt, "Bearer s3cret-token_2"), policy);
    REQUIRE(wrong);
    CHECK(wrong->status == 401);
    CHECK(wrong->challenge.starts_with("Bearer"));
    CHECK(wrong->message.find("s3cret") == std::string::npos);  // the token is never quoted
    CHECK(missing->message.find("s3cret") == std::string::npos);
    CHECK_FALSE(http::checkCaller(from("127.0.0.1", std::nullopt, "Bearer s3cret-token_1"), policy));
    CHECK_FALSE(http::checkCaller(from("127.0.0.1", std::nullopt, "bearer  s3cret-token_1 "), policy));
    // A foreign Host is refused before the token is looked at (403, not 401).
    CHECK(
        http::checkCaller(from("evil.example.com", std::nullopt, "Bearer s3cret-token_1"), policy)->status ==
        403);

    CHECK(http::bearerMatches("Bearer abc", "abc"));
    CHECK_FALSE(http::bearerMatches("Bearer abcd", "abc"));
    CHECK_FALSE(http::bearerMatches("Bearer ab", "abc"));
    CHECK_FALSE(http::bearerMatches("Basic abc", "abc"));
    CHECK_FALSE(http::bearerMatches("abc", "abc"));
    CHECK_FALSE(http::bearerMatches(std::nullopt, "abc"));
    CHECK_FALSE(http::bearerMatches("Bearer ", ""));  // an empty token is never a token

    std::set<std::string> tokens;
    for (int i = 0; i < 50; ++i) {
        const auto token = http::newBearerToken();
        CHECK(token.size() == 43);
        CHECK_FALSE(http::invalidBearerToken(token));
        CHECK(token.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") ==
              std::string::npos);
        tokens.insert(token);
    }
    CHECK(tokens.size() == 50);
    CHECK(http::invalidBearerToken(""));
    CHECK(http::invalidBearerToken("two words"));
    CHECK(http::invalidBearerToken("new\nline"));
    CHECK_FALSE(http::invalidBearerToken("abc=="));
    CHECK(http::invalidBearerToken("=="));
}

TEST_CASE("server rules: a POST carries JSON", "[http][server]") {
    CHECK_FALSE(http::checkJsonContentType(std::nullopt));
    CHECK_FALSE(http::checkJsonContentType("application/json"));
    CHECK_FALSE(http::checkJsonContentType("Application/JSON; charset=utf-8"));
    for (const auto* type : {"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
                             "multipart/form-data; boundary=x", "application/json-seq", ""}) {
        INFO(type);
        const auto refused = http::checkJsonContentType(type);
        REQUIRE(refused);
        CHECK(refused->status == 415);
    }
}
