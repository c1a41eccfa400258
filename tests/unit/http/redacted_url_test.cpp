#include "reagent/http/redacted_url.hpp"

#include <catch2/catch.hpp>

using reagent::http::redactedUrl;

TEST_CASE("redactedUrl masks user information, query values and fragments", "[http][redact]") {
    CHECK(redactedUrl("https://api.example.com/v1") == "https://api.example.com/v1");
    CHECK(redactedUrl("https://user:s3cret@api.example.com/v1") == "https://***@api.example.com/v1");
    CHECK(redactedUrl("http://tok@h:8080") == "http://***@h:8080");
    CHECK(redactedUrl("https://h/p?key=AIzaSECRET&alt=sse") == "https://h/p?key=***&alt=***");
    CHECK(redactedUrl("https://h/p?SECRET#frag") == "https://h/p?***#***");
    CHECK(redactedUrl("user:p@ss@proxy:3128") == "***@proxy:3128");
    CHECK(redactedUrl("socks5://u:pw@proxy:1080") == "socks5://***@proxy:1080");
    // Not valid URLs: still masked.
    CHECK(redactedUrl("http://[::1") == "http://[::1");
    CHECK(redactedUrl("http://u:pw@[::1?key=k") == "http://***@[::1?key=***");
    CHECK(redactedUrl("") == "");
}
