// The HTTP library's plain values, without sockets: header lists, NO_PROXY matching, proxy environment.

#include <catch2/catch.hpp>

#include "http_test_support.hpp"
#include "reagent/http/proxy_settings.hpp"

using namespace reagent::http;
using reagent::test::ProxyEnvironment;

TEST_CASE("HttpHeaders keep their order and compare names case-insensitively", "[http][headers]") {
    HttpHeaders headers{{"Content-Type", "text/plain"}, {"X-Tag", "a"}};
    headers.add("x-tag", "b");
    headers.add("Accept", "*/*");

    CHECK(headers.size() == 4);
    CHECK(headers.find("CONTENT-TYPE") == std::optional<std::string_view>("text/plain"));
    CHECK(headers.find("x-TAG") == std::optional<std::string_view>("a"));
    CHECK_FALSE(headers.find("Missing"));

    headers.set("X-TAG", "c");
    std::vector<std::string> order;
    for (const auto& field : headers) order.push_back(field.name + "=" + field.value);
    CHECK(order == std::vector<std::string>{"Content-Type=text/plain", "X-TAG=c", "Accept=*/*"});

    CHECK(headers.remove("accept") == 1);
    CHECK(headers.remove("accept") == 0);
    headers.set("Authorization", "Bearer k");
    CHECK(headers.size() == 3);
    CHECK(equalsIgnoreCase("Keep-Alive", "keep-alive"));
    CHECK_FALSE(equalsIgnoreCase("Keep-Alive", "keep-alivE "));
}

TEST_CASE("NO_PROXY matching follows curl", "[http][proxy]") {
    struct Case {
        const char* noProxy;
        const char* host;
        std::uint16_t port;
        bool bypass;
    };
    const std::vector<Case> cases{
        {"*", "anything.example", 80, true},
        {"", "example.com", 80, false},
        {"example.com", "example.com", 80, true},
        {"example.com", "api.example.com", 443, true},
        {"example.com", "EXAMPLE.com", 80, true},
        {".example.com", "example.com", 80, true},
        {"example.com.", "api.example.com", 80, true},
        {"example.com", "myexample.com", 80, false},
        {"example.com", "example.com.org", 80, false},
        {"api.example.com", "example.com", 80, false},
        {"foo, bar ,example.com", "www.example.com", 80, true},
        {"foo bar\texample.com", "www.example.com", 80, true},
        {"foo,,bar", "bar", 80, true},
        {"*,foo", "other", 80, false},  // `*` only counts alone
        {"localhost", "localhost", 8080, true},
        {"localhost", "127.0.0.1", 8080, false},  // nothing is resolved: loopback is proxied unless listed
        {"127.0.0.1", "localhost", 8080, false},
        {"127.0.0.1", "127.0.0.1", 8080, true},
        {"127.0.0.0/8", "127.1.2.3", 80, true},
        {"10.0.0.0/8", "11.0.0.1", 80, false},
        {"192.168.0.0/16", "192.168.200.7", 80, true},
        {"192.168.1.1", "192.168.1.2", 80, false},
        {"::1", "::1", 80, true},
        {"::1", "[::1]", 80, true},
        {"fd00::/8", "fd12::1", 80, true},
        {"fd00::/8", "fe80::1", 80, false},
        {"example.com:8080", "example.com", 8080, true},  // with a port: that port only (beyond curl)
        {"example.com:8080", "example.com", 443, false},
        {"[::1]:8080", "::1", 8080, true},
        {"[::1]:8080", "::1", 80, false},
        {"example.com:notaport", "example.com", 80, false},
    };
    for (const auto& c : cases) {
        INFO("NO_PROXY=\"" << c.noProxy << "\" host " << c.host << " port " << c.port);
        CHECK(matchesNoProxy(c.noProxy, c.host, c.port) == c.bypass);
    }
}

TEST_CASE("Proxy settings come from the environment, lower-case names first", "[http][proxy]") {
    SECTION("lower case wins over upper case") {
        ProxyEnvironment environment({{"http_proxy", "http://lower:1"},
                                      {"HTTP_PROXY", "http://upper:2"},
                                      {"HTTPS_PROXY", "http://secure:3"},
                                      {"NO_PROXY", "internal"}});
        const auto settings = ProxySettings::fromEnvironment();
        CHECK(settings.httpProxy == "http://lower:1");
        CHECK(settings.httpsProxy == "http://secure:3");
        CHECK(settings.noProxy == "internal");
    }
    SECTION("all_proxy fills in a scheme without its own; empty values count as unset") {
        ProxyEnvironment environment({{"http_proxy", ""}, {"ALL_PROXY", "http://all:4"}});
        const auto settings = ProxySettings::fromEnvironment();
        CHECK(settings.httpProxy == "http://all:4");
        CHECK(settings.httpsProxy == "http://all:4");
    }
    SECTION("nothing set: direct") {
        ProxyEnvironment environment;
        const auto settings = ProxySettings::fromEnvironment();
        CHECK(settings.proxyFor("http", "example.com", 80).empty());
        CHECK(settings.proxyFor("https", "example.com", 443).empty());
    }
}

TEST_CASE("proxyFor picks the scheme's proxy unless NO_PROXY lists the host", "[http][proxy]") {
    ProxySettings settings{"http://plain:3128", "http://secure:3128", "internal.example, 10.0.0.0/8"};

    CHECK(settings.proxyFor("http", "api.example.com", 80) == "http://plain:3128");
    CHECK(settings.proxyFor("https", "api.example.com", 443) == "http://secure:3128");
    CHECK(settings.proxyFor("https", "db.internal.example", 443).empty());
    CHECK(settings.proxyFor("http", "10.1.2.3", 80).empty());
}

TEST_CASE("The client resolves its proxies once, at construction", "[http][proxy]") {
    ProxyEnvironment environment({{"https_proxy", "http://from-env:8080"}});
    HttpClient fromEnvironment;
    HttpClientConfig explicitNone;
    explicitNone.proxy = ProxySettings{};
    HttpClient direct(explicitNone);

    CHECK(fromEnvironment.config().proxy->httpsProxy == "http://from-env:8080");
    CHECK(direct.config().proxy->httpsProxy.empty());
    CHECK(fromEnvironment.config().connectTimeout == std::chrono::seconds(10));
    CHECK(fromEnvironment.config().requestTimeout == std::chrono::seconds(600));
    CHECK(fromEnvironment.config().idleTimeout == std::chrono::seconds(60));
    CHECK(fromEnvironment.config().readTimeout == std::chrono::seconds(120));
    CHECK(fromEnvironment.config().maxIdlePerHost == 4);
    CHECK(fromEnvironment.config().verifyPeer);
}
