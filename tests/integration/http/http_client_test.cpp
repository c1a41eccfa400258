// HttpClient against the loopback peer: request framing, bodies, keep-alive reuse and connection errors.

#include <catch2/catch.hpp>

#include "http_test_support.hpp"

using namespace reagent;
using namespace reagent::http;
using reagent::test::directConfig;
using reagent::test::get;
using reagent::test::Loop;
using reagent::test::parseJson;
using reagent::test::peerStats;

namespace {

std::vector<std::vector<std::string>> headerList(const nlohmann::json& echo) {
    return echo["headers"].get<std::vector<std::vector<std::string>>>();
}

std::string hostPort(const reagent::test::PeerProcess& peer) {
    return "127.0.0.1:" + std::to_string(peer.port());
}

}  // namespace

TEST_CASE("GET sends exactly the request line and headers given, plus Host and User-Agent",
          "[http][client]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    HttpClient client(directConfig());
    auto request = get(peer.url("/echo?x=1&y=%20z"));
    request.headers.add("Accept", "application/json");
    request.headers.add("X-Trace", "abc def");

    auto response = loop.run(client.send(request));

    REQUIRE(response);
    CHECK(response->status == 200);
    CHECK(response->reason == "OK");
    CHECK(response->ok());
    CHECK(response->headers.find("content-type") == std::optional<std::string_view>("application/json"));
    const auto echo = parseJson(response->body);
    CHECK(echo["method"] == "GET");
    CHECK(echo["target"] == "/echo?x=1&y=%20z");
    CHECK(echo["version"] == "HTTP/1.1");
    CHECK(echo["body"] == "");
    const std::vector<std::vector<std::string>> expected{{"Host", hostPort(peer)},
                                                         {"Accept", "application/json"},
                                                         {"X-Trace", "abc def"},
                                                         {"User-Agent", defaultUserAgent()}};
    CHECK(headerList(echo) == expected);
    CHECK(defaultUserAgent().rfind("reagent/", 0) == 0);
}

TEST_CASE("POST sends the body with its Content-Length, a given User-Agent and Host win", "[http][client]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    auto config = directConfig();
    config.userAgent = "unused/1";
    HttpClient client(config);
    HttpRequest request;
    request.method = "POST";
    request.url = peer.url("/echo");
    request.headers = HttpHeaders{{"Content-Type", "application/json"}, {"User-Agent", "agent/2"}};
    request.headers.add("Content-Length", "999");  // replaced by the real length
    request.body = "{\"text\":\"line1\\r\\nline2\",\"n\":1}\r\n";

    auto response = loop.run(client.send(request));

    REQUIRE(response);
    const auto echo = parseJson(response->body);
    CHECK(echo["method"] == "POST");
    CHECK(echo["body"] == request.body);
    const std::vector<std::vector<std::string>> expected{
        {"Host", hostPort(peer)},
        {"Content-Type", "application/json"},
        {"User-Agent", "agent/2"},
        {"Content-Length", std::to_string(request.body.size())}};
    CHECK(headerList(echo) == expected);

    SECTION("an empty POST still says Content-Length: 0") {
        HttpRequest empty;
        empty.method = "POST";
        empty.url = peer.url("/echo");
        auto second = loop.run(client.send(empty));
        REQUIRE(second);
        const auto headers = headerList(parseJson(second->body));
        CHECK(headers.back() == std::vector<std::string>{"Content-Length", "0"});
    }
}

TEST_CASE("A non-2xx status is a response with its body, not an error", "[http][client]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    HttpClient client(directConfig());

    auto response = loop.run(client.send(get(peer.url("/status/429"))));

    REQUIRE(response);
    CHECK(response->status == 429);
    CHECK(response->reason == "Too Many Requests");
    CHECK_FALSE(response->ok());
    CHECK(parseJson(response->body)["error"]["type"] == "status_429");
}

TEST_CASE("A chunked body arrives without its framing", "[http][client]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    HttpClient client(directConfig());

    auto response = loop.run(client.send(get(peer.url("/chunked?parts=5"))));

    REQUIRE(response);
    CHECK(response->headers.find("Transfer-Encoding") == std::optional<std::string_view>("chunked"));
    CHECK(response->body == "part-0;part-1;part-2;part-3;part-4;");
    CHECK(client.idleConnections() == 1);
}

TEST_CASE("HEAD reads no body and keeps the connection usable", "[http][client]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    HttpClient client(directConfig());
    auto head = get(peer.url("/echo"));
    head.method = "HEAD";

    auto first = loop.run(client.send(head));
    auto second = loop.run(client.send(get(peer.url("/echo"))));

    REQUIRE(first);
    CHECK(first->status == 200);
    CHECK(first->body.empty());
    CHECK(first->headers.contains("Content-Length"));
    REQUIRE(second);
    CHECK(parseJson(second->body)["method"] == "GET");
    CHECK(client.connectionsOpened() == 1);
}

TEST_CASE("Keep-alive: five sequential requests share one connection", "[http][client][pool]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    HttpClient client(directConfig());

    for (int i = 0; i < 5; ++i) {
        auto response = loop.run(client.send(get(peer.url("/echo"))));
        REQUIRE(response);
        CHECK(response->headers.find("X-Connection-Id") == std::optional<std::string_view>("1"));
        CHECK(client.idleConnections() == 1);
    }

    CHECK(client.connectionsOpened() == 1);
    CHECK(peerStats(peer)["connections"] == 2);  // ours, and the one asking for the stats
}

TEST_CASE("maxIdlePerHost 0 turns reuse off", "[http][client][pool]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    auto config = directConfig();
    config.maxIdlePerHost = 0;
    HttpClient client(config);

    for (int i = 0; i < 3; ++i) REQUIRE(loop.run(client.send(get(peer.url("/echo")))));

    CHECK(client.connectionsOpened() == 3);
    CHECK(client.idleConnections() == 0);
}

TEST_CASE("A connection the server closes is replaced transparently", "[http][client][pool]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    HttpClient client(directConfig());

    SECTION("announced with Connection: close: it is never pooled") {
        auto closing = loop.run(client.send(get(peer.url("/close?announce=1"))));
        REQUIRE(closing);
        CHECK(client.idleConnections() == 0);
    }
    SECTION("not announced: the close is noticed when the connection is taken from the pool") {
        auto closing = loop.run(client.send(get(peer.url("/close"))));
        REQUIRE(closing);
        // Let the server's FIN arrive: the idle check sees it (without it, the stale retry would).
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    auto next = loop.run(client.send(get(peer.url("/echo"))));

    REQUIRE(next);
    CHECK(next->status == 200);
    CHECK(parseJson(next->body)["connection"] == 2);
    CHECK(client.connectionsOpened() == 2);
}

TEST_CASE("A pooled connection that fails before any response byte is retried once on a new one",
          "[http][client][pool]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    HttpClient client(directConfig());
    // The peer answers this one, then reads the next request on the connection and drops it unanswered.
    REQUIRE(loop.run(client.send(get(peer.url("/keepalive-then-drop")))));
    REQUIRE(client.idleConnections() == 1);

    auto retried = loop.run(client.send(get(peer.url("/echo?retry"))));

    REQUIRE(retried);
    CHECK(retried->status == 200);
    CHECK(parseJson(retried->body)["connection"] == 2);
    CHECK(client.connectionsOpened() == 2);
    const auto requests = peerStats(peer)["requests"].get<std::vector<std::string>>();
    CHECK(std::count(requests.begin(), requests.end(), "GET /echo?retry HTTP/1.1") == 2);
}

TEST_CASE("A fresh connection that fails is not retried", "[http][client][errors]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    HttpClient client(directConfig());

    auto response = loop.run(client.send(get(peer.url("/drop-mid-body"))));

    REQUIRE_FALSE(response);
    CHECK(response.error().code == HttpErrc::connection_closed);
    CHECK_THAT(response.error().message,
               Catch::Contains(hostPort(peer)) && Catch::Contains("10 of 100 body bytes"));
    CHECK(client.connectionsOpened() == 1);
    CHECK(client.idleConnections() == 0);
}

TEST_CASE("A refused connection is connect_failed, naming host and port", "[http][client][errors]") {
    Loop loop;
    HttpClient client(directConfig());
    const reagent::test::ClosedPort closed;
    const auto port = closed.port();

    auto response = loop.run(client.send(get("http://127.0.0.1:" + std::to_string(port) + "/")));

    REQUIRE_FALSE(response);
    CHECK(response.error().code == HttpErrc::connect_failed);
    CHECK_THAT(response.error().message, Catch::Contains("127.0.0.1:" + std::to_string(port)) &&
                                             Catch::Contains("refused", Catch::CaseSensitive::No));
    CHECK(reagent::http::retryable(response.error().code));
    CHECK(client.connectionsOpened() == 0);
}

TEST_CASE("Malformed URLs and requests are refused before any I/O", "[http][client][errors]") {
    Loop loop;
    HttpClient client(directConfig());
    const auto sendTo = [&](std::string url) { return loop.run(client.send(get(std::move(url)))); };

    for (const char* url :
         {"ftp://example.com/file", "example.com/path", "http:///path", "http://host:99999/", ""}) {
        INFO(url);
        auto response = sendTo(url);
        REQUIRE_FALSE(response);
        CHECK(response.error().code == HttpErrc::invalid_url);
    }

    auto injected = get("http://127.0.0.1:1/");
    injected.headers.add("X-Evil", "a\r\nHost: elsewhere");
    auto response = loop.run(client.send(injected));
    REQUIRE_FALSE(response);
    CHECK(response.error().code == HttpErrc::invalid_request);
    CHECK_THAT(response.error().message, Catch::Contains("X-Evil"));

    auto badMethod = get("http://127.0.0.1:1/");
    badMethod.method = "GET /x";
    auto refused = loop.run(client.send(badMethod));
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == HttpErrc::invalid_request);
    CHECK(client.connectionsOpened() == 0);
}

TEST_CASE("connectAddress pins the connection to an address while Host names the URL's host",
          "[http][client][pin]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    HttpClient client(directConfig());
    // A name that resolves nowhere: only the pinned address can make this request arrive.
    auto request = get("http://pinned.invalid:" + std::to_string(peer.port()) + "/echo");
    request.connectAddress = "127.0.0.1";

    auto response = loop.run(client.send(request));

    REQUIRE(response);
    const auto echo = parseJson(response->body);
    CHECK(headerList(echo).front() ==
          std::vector<std::string>{"Host", "pinned.invalid:" + std::to_string(peer.port())});

    SECTION("a value that is not an IP address is refused") {
        request.connectAddress = "localhost";
        auto refused = loop.run(client.send(request));
        REQUIRE_FALSE(refused);
        CHECK(refused.error().code == HttpErrc::invalid_request);
    }
    SECTION("a request going through a proxy is refused") {
        auto config = directConfig();
        config.proxy->httpProxy = "127.0.0.1:1";
        HttpClient proxied(config);
        auto refused = loop.run(proxied.send(request));
        REQUIRE_FALSE(refused);
        CHECK(refused.error().code == HttpErrc::invalid_request);
        CHECK(refused.error().message.find("proxy") != std::string::npos);
    }
}
