#include "reagent/http/url_parts.hpp"

#include <catch2/catch.hpp>

using reagent::http::urlParts;

TEST_CASE("urlParts reads host, port and the address without what may hold a credential", "[http][url]") {
    const auto plain = urlParts("https://api.example.com/v1/chat/completions");
    REQUIRE(plain);
    CHECK(plain->host == "api.example.com");
    CHECK(plain->port == 443);
    CHECK(plain->withoutQuery == "https://api.example.com/v1/chat/completions");

    const auto keyed = urlParts("http://user:pw@127.0.0.1:8080/v1beta/models/x:generateContent?key=SECRET#f");
    REQUIRE(keyed);
    CHECK(keyed->host == "127.0.0.1");
    CHECK(keyed->port == 8080);
    CHECK(keyed->withoutQuery == "http://127.0.0.1:8080/v1beta/models/x:generateContent");

    const auto six = urlParts("http://[::1]:11434");
    REQUIRE(six);
    CHECK(six->host == "::1");
    CHECK(six->port == 11434);
    CHECK(six->withoutQuery == "http://[::1]:11434/");

    CHECK_FALSE(urlParts("ftp://example.com/file"));
    CHECK_FALSE(urlParts("not a url"));
    CHECK_FALSE(urlParts("http://:80/"));
}
