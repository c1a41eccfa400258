// One HttpClient across execution contexts: idle connections are pooled per io_context and die with it,
// so the client may outlive its contexts (and the reverse), and may serve several contexts at once.

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "http_test_support.hpp"

using namespace reagent;
using namespace reagent::http;
using reagent::test::directConfig;
using reagent::test::get;
using reagent::test::Loop;
using reagent::test::parseJson;

namespace {

// The peer's connection id for a response of /echo.
long long connectionOf(const expected<HttpResponse, HttpError>& response) {
    REQUIRE(response);
    REQUIRE(response->status == 200);
    return parseJson(response->body)["connection"].get<long long>();
}

}  // namespace

TEST_CASE("A client outlives the io_context its connections were pooled on", "[http][pool][contexts]") {
    auto peer = reagent::test::startHttpPeer();
    auto client = std::make_unique<HttpClient>(directConfig());
    {
        Loop first;
        const auto id = connectionOf(first.run(client->send(get(peer.url("/echo")))));
        CHECK(connectionOf(first.run(client->send(get(peer.url("/echo"))))) == id);
        CHECK(client->idleConnections() == 1);
    }
    // The context took its idle connection with it.
    CHECK(client->idleConnections() == 0);

    SECTION("and is destroyed afterwards") {
        client.reset();
    }
    SECTION("and keeps working on a new context, on a new connection") {
        Loop second;
        auto response = second.run(client->send(get(peer.url("/echo"))));
        CHECK(connectionOf(response) == 2);
        CHECK(client->connectionsOpened() == 2);
        CHECK(client->idleConnections() == 1);
        // The client goes first this time: its idle connection closes in the context still running,
        // which goes on serving other clients.
        client.reset();
        HttpClient other(directConfig());
        CHECK(connectionOf(second.run(other.send(get(peer.url("/echo"))))) == 3);
    }
}

TEST_CASE("An io_context may be destroyed while the client keeps a pooled connection on it",
          "[http][pool][contexts]") {
    auto peer = reagent::test::startHttpPeer();
    HttpClient client(directConfig());
    auto io = std::make_unique<Loop>();
    REQUIRE(io->run(client.send(get(peer.url("/echo")))));
    REQUIRE(client.idleConnections() == 1);

    io.reset();

    CHECK(client.idleConnections() == 0);
    client.closeIdleConnections();  // nothing left to close, and nothing dangling to touch
}

TEST_CASE("One client on two io_contexts one after the other keeps a pool in each",
          "[http][pool][contexts]") {
    auto peer = reagent::test::startHttpPeer();
    HttpClient client(directConfig());
    Loop first;
    Loop second;

    const auto a = connectionOf(first.run(client.send(get(peer.url("/echo")))));
    const auto b = connectionOf(second.run(client.send(get(peer.url("/echo")))));
    // Each context reuses its own connection, never the other's.
    CHECK(connectionOf(first.run(client.send(get(peer.url("/echo"))))) == a);
    CHECK(connectionOf(second.run(client.send(get(peer.url("/echo"))))) == b);

    CHECK(a != b);
    CHECK(client.connectionsOpened() == 2);
    CHECK(client.idleConnections() == 2);
    client.closeIdleConnections();
    CHECK(client.idleConnections() == 0);
}

TEST_CASE("One client serves two threads, each running its own io_context", "[http][pool][contexts]") {
    auto peer = reagent::test::startHttpPeer();
    auto client = std::make_shared<HttpClient>(directConfig());
    constexpr int kRequests = 25;
    struct Outcome {
        int ok = 0;
        std::vector<long long> connections;
    };
    std::vector<Outcome> outcomes(2);

    std::vector<std::thread> threads;
    for (auto& outcome : outcomes) {
        threads.emplace_back([&client, &peer, &outcome] {
            Loop loop;  // made, run and destroyed on this thread
            for (int i = 0; i < kRequests; ++i) {
                auto response = loop.run(client->send(get(peer.url("/echo"))));
                if (response && response->status == 200) {
                    ++outcome.ok;
                    outcome.connections.push_back(parseJson(response->body)["connection"].get<long long>());
                }
            }
        });
    }
    for (auto& thread : threads) thread.join();

    for (const auto& outcome : outcomes) {
        CHECK(outcome.ok == kRequests);
        REQUIRE_FALSE(outcome.connections.empty());
        // Keep-alive within each context: one connection for all of its requests.
        CHECK(std::count(outcome.connections.begin(), outcome.connections.end(),
                         outcome.connections.front()) == kRequests);
    }
    CHECK(outcomes[0].connections.front() != outcomes[1].connections.front());
    CHECK(client->connectionsOpened() == 2);
    // Both contexts are gone, and their connections with them.
    CHECK(client->idleConnections() == 0);
}
