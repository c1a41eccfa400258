// HttpClient over TLS (a self-signed certificate made at test time) and through a loopback proxy.

#include <catch2/catch.hpp>

#include "http_test_support.hpp"

using namespace reagent;
using namespace reagent::http;
using reagent::test::directConfig;
using reagent::test::get;
using reagent::test::Loop;
using reagent::test::parseJson;
using reagent::test::peerStats;
using reagent::test::ProxyEnvironment;

namespace {

std::vector<std::string> requestLines(const reagent::test::PeerProcess& peer) {
    return peerStats(peer)["requests"].get<std::vector<std::string>>();
}

bool hasHeader(const nlohmann::json& echo, const std::string& name) {
    for (const auto& field : echo["headers"]) {
        if (field[0] == name) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("HTTPS verifies the server against the CA file, by IP address and by name", "[http][tls]") {
    reagent::test::SelfSignedCert cert;
    auto peer = reagent::test::startHttpPeer({"--tls", cert.certFile(), cert.keyFile()});
    Loop loop;
    auto config = directConfig();
    config.caFile = cert.certFile();
    HttpClient client(config);
    const std::string port = std::to_string(peer.port());

    auto byAddress = loop.run(client.send(get("https://127.0.0.1:" + port + "/echo")));
    auto again = loop.run(client.send(get("https://127.0.0.1:" + port + "/echo")));
    auto byName = loop.run(client.send(get("https://localhost:" + port + "/echo")));

    REQUIRE(byAddress);
    CHECK(byAddress->status == 200);
    CHECK(parseJson(byAddress->body)["headers"][0][1] == "127.0.0.1:" + port);
    REQUIRE(again);
    CHECK(parseJson(again->body)["connection"] == 1);  // kept alive over TLS
    REQUIRE(byName);
    CHECK(parseJson(byName->body)["headers"][0][1] == "localhost:" + port);
    CHECK(client.connectionsOpened() == 2);  // one per (host, port)
}

TEST_CASE("HTTPS without the issuing CA fails with tls_failed naming the verification error", "[http][tls]") {
    reagent::test::SelfSignedCert cert;
    auto peer = reagent::test::startHttpPeer({"--tls", cert.certFile(), cert.keyFile()});
    Loop loop;
    HttpClient client(directConfig());

    auto response = loop.run(client.send(get(peer.url("/echo", "https"))));

    REQUIRE_FALSE(response);
    CHECK(response.error().code == HttpErrc::tls_failed);
    CHECK_THAT(response.error().message,
               Catch::Contains("certificate verification failed") && Catch::Contains("self-signed") &&
                   Catch::Contains("127.0.0.1:" + std::to_string(peer.port())) && Catch::Contains("caFile"));

    SECTION("verifyPeer off accepts it (tests only)") {
        auto config = directConfig();
        config.verifyPeer = false;
        HttpClient trusting(config);
        auto accepted = loop.run(trusting.send(get(peer.url("/echo", "https"))));
        REQUIRE(accepted);
        CHECK(accepted->status == 200);
    }
}

TEST_CASE("A CA file that cannot be read is tls_failed", "[http][tls]") {
    Loop loop;
    auto config = directConfig();
    config.caFile = "/nonexistent/reagent-ca.pem";
    HttpClient client(config);
    auto server = reagent::test::startHttpPeer();

    auto response = loop.run(client.send(get(server.url("/echo", "https"))));

    REQUIRE_FALSE(response);
    CHECK(response.error().code == HttpErrc::tls_failed);
    CHECK_THAT(response.error().message, Catch::Contains("/nonexistent/reagent-ca.pem"));
}

TEST_CASE("HTTP_PROXY sends plain http through the proxy in absolute form", "[http][proxy]") {
    auto origin = reagent::test::startHttpPeer();
    auto proxy = reagent::test::startHttpPeer({"--proxy"});
    const std::string proxyUrl = "http://127.0.0.1:" + std::to_string(proxy.port());
    Loop loop;

    SECTION("proxied") {
        ProxyEnvironment environment({{"HTTP_PROXY", proxyUrl.c_str()}});
        HttpClient client;
        CHECK(client.config().proxy->httpProxy == proxyUrl);

        auto response = loop.run(client.send(get(origin.url("/echo?via=proxy"))));

        REQUIRE(response);
        CHECK(response->status == 200);
        const auto echo = parseJson(response->body);
        CHECK(echo["target"] == "/echo?via=proxy");
        CHECK(hasHeader(echo, "Via"));
        const auto lines = requestLines(proxy);
        CHECK(std::count(lines.begin(), lines.end(), "GET " + origin.url("/echo?via=proxy") + " HTTP/1.1") ==
              1);
    }
    SECTION("NO_PROXY lists the host: direct") {
        ProxyEnvironment environment(
            {{"HTTP_PROXY", proxyUrl.c_str()}, {"NO_PROXY", "example.com, 127.0.0.1"}});
        HttpClient client;

        auto response = loop.run(client.send(get(origin.url("/echo?via=direct"))));

        REQUIRE(response);
        CHECK_FALSE(hasHeader(parseJson(response->body), "Via"));
        const auto lines = requestLines(proxy);
        CHECK(std::none_of(lines.begin(), lines.end(),
                           [](const std::string& line) { return line.find("/echo") != std::string::npos; }));
    }
    SECTION("NO_PROXY names localhost only: 127.0.0.1 is still proxied, as in curl") {
        ProxyEnvironment environment({{"http_proxy", proxyUrl.c_str()}, {"no_proxy", "localhost"}});
        HttpClient client;

        auto response = loop.run(client.send(get(origin.url("/echo"))));

        REQUIRE(response);
        CHECK(hasHeader(parseJson(response->body), "Via"));
    }
}

TEST_CASE("HTTPS_PROXY tunnels https with CONNECT, TLS running end to end", "[http][proxy][tls]") {
    reagent::test::SelfSignedCert cert;
    auto origin = reagent::test::startHttpPeer({"--tls", cert.certFile(), cert.keyFile()});
    auto proxy = reagent::test::startHttpPeer({"--proxy"});
    const std::string proxyUrl = "127.0.0.1:" + std::to_string(proxy.port());  // no scheme, as curl allows
    ProxyEnvironment environment({{"HTTPS_PROXY", proxyUrl.c_str()}});
    Loop loop;
    HttpClientConfig config;
    config.caFile = cert.certFile();
    HttpClient client(config);

    auto first = loop.run(client.send(get(origin.url("/echo", "https"))));
    auto second = loop.run(client.send(get(origin.url("/echo", "https"))));

    REQUIRE(first);
    CHECK(first->status == 200);
    REQUIRE(second);
    CHECK(client.connectionsOpened() == 1);  // the tunnel is pooled like any connection
    const auto lines = requestLines(proxy);
    CHECK(std::count(lines.begin(), lines.end(),
                     "CONNECT 127.0.0.1:" + std::to_string(origin.port()) + " HTTP/1.1") == 1);

    SECTION("a refused CONNECT is proxy_failed") {
        const reagent::test::ClosedPort closed;
        auto refused = loop.run(client.send(get("https://127.0.0.1:" + std::to_string(closed.port()) + "/")));
        REQUIRE_FALSE(refused);
        CHECK(refused.error().code == HttpErrc::proxy_failed);
        CHECK_THAT(refused.error().message, Catch::Contains("refused CONNECT") && Catch::Contains("502"));
    }
}

TEST_CASE("An unreachable proxy is proxy_failed", "[http][proxy]") {
    Loop loop;
    auto config = directConfig();
    const reagent::test::ClosedPort closed;
    config.proxy->httpProxy = closed.url();
    HttpClient client(config);

    auto response = loop.run(client.send(get("http://127.0.0.1:9/")));

    REQUIRE_FALSE(response);
    CHECK(response.error().code == HttpErrc::proxy_failed);
    CHECK_THAT(response.error().message, Catch::Contains("proxy 127.0.0.1:"));
}

TEST_CASE("Unsupported proxy schemes are proxy_failed", "[http][proxy]") {
    Loop loop;
    auto config = directConfig();
    config.proxy->httpProxy = "socks5://127.0.0.1:1080";
    HttpClient client(config);

    auto response = loop.run(client.send(get("http://127.0.0.1:9/")));

    REQUIRE_FALSE(response);
    CHECK(response.error().code == HttpErrc::proxy_failed);
    CHECK_THAT(response.error().message, Catch::Contains("socks5://127.0.0.1:1080"));
}
