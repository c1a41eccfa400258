// mcp::loopbackAuthorizer: the browser's redirect caught on the loopback, against real HTTP requests.

#include "reagent/mcp/loopback_authorizer.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "peer_process.hpp"
#include "reagent/core/timeout.hpp"
#include "reagent/http/http_client.hpp"
#include "run_coro.hpp"

namespace {

namespace mcp = reagent::mcp;
using reagent::Task;
using namespace boost::asio::experimental::awaitable_operators;

mcp::AuthorizationRequest requestFor(const std::string& redirectUri) {
    return mcp::AuthorizationRequest{"secured", "https://as.example/authorize?x=1", redirectUri};
}

// A browser: first a stray request, then one to the right path without a code, then the redirect.
Task<std::vector<int>> browse(std::string base) {
    reagent::http::HttpClient http;
    std::vector<int> statuses;
    for (const std::string target : {"/favicon.ico", "/callback", "/callback?code=abc&state=s1"}) {
        reagent::http::HttpRequest request;
        request.url = base + target;
        auto reply = co_await http.send(std::move(request));
        statuses.push_back(reply ? reply->status : -1);
    }
    co_return statuses;
}

}  // namespace

TEST_CASE("loopback authorizer: returns the redirect and answers other requests with 404", "[mcp][oauth]") {
    const std::string base = "http://127.0.0.1:" + std::to_string(reagent::test::unusedPort());
    std::string shown;
    auto authorize = mcp::loopbackAuthorizer([&shown](const mcp::AuthorizationRequest& r) { shown = r.url; });
    reagent::test::runCoro([&]() -> Task<void> {
        auto waiting = authorize(requestFor(base + "/callback"));
        auto browsing = browse(base);
        auto outcome = co_await (std::move(waiting) && std::move(browsing));
        auto& [redirect, statuses] = outcome;
        REQUIRE(redirect);
        CHECK(*redirect == base + "/callback?code=abc&state=s1");
        CHECK(statuses == std::vector<int>{404, 404, 200});
    }());
    CHECK(shown == "https://as.example/authorize?x=1");
}

TEST_CASE("loopback authorizer: refuses redirect URIs it cannot listen on", "[mcp][oauth]") {
    auto authorize = mcp::loopbackAuthorizer({});
    reagent::test::runCoro([&]() -> Task<void> {
        for (const std::string uri :
             {"https://127.0.0.1:8443/cb", "http://example.com:8080/cb", "http://127.0.0.1/cb"}) {
            auto attempt = authorize(requestFor(uri));
            auto refused = co_await std::move(attempt);
            REQUIRE_FALSE(refused);
            CHECK(refused.error().code == mcp::McpErrc::unauthorized);
            CHECK(refused.error().message.find(uri) != std::string::npos);
        }
        // A port already taken.
        boost::asio::ip::tcp::acceptor taken(co_await boost::asio::this_coro::executor,
                                             {boost::asio::ip::make_address("127.0.0.1"), 0});
        const std::string uri = "http://127.0.0.1:" + std::to_string(taken.local_endpoint().port()) + "/cb";
        auto attempt = authorize(requestFor(uri));
        auto busy = co_await std::move(attempt);
        REQUIRE_FALSE(busy);
        CHECK(busy.error().message.find("cannot listen") != std::string::npos);
    }());
}

TEST_CASE("loopback authorizer: the wait ends at the caller's deadline", "[mcp][oauth]") {
    const std::string uri = "http://127.0.0.1:" + std::to_string(reagent::test::unusedPort()) + "/cb";
    auto authorize = mcp::loopbackAuthorizer({});
    reagent::test::runCoro([&]() -> Task<void> {
        auto waiting = authorize(requestFor(uri));
        auto bounded = co_await reagent::withTimeout(std::move(waiting), std::chrono::milliseconds(200));
        REQUIRE_FALSE(bounded);
        CHECK(bounded.error().code == reagent::EffectErrc::timeout);
    }());
}

namespace {

// A browser that opens a connection ahead and sends nothing on it (a pre-connection), then the redirect
// on another: the redirect is answered at once, not after the silent one times out.
Task<int> preconnectThenBrowse(std::string host, unsigned short port, std::string base) {
    const auto executor = co_await boost::asio::this_coro::executor;
    boost::asio::ip::tcp::socket idle(executor);
    const boost::asio::ip::tcp::endpoint listener(boost::asio::ip::make_address(host), port);
    auto connected = co_await idle.async_connect(listener, boost::asio::as_tuple(boost::asio::use_awaitable));
    (void)connected;
    reagent::http::HttpClient http;
    reagent::http::HttpRequest request;
    request.url = base + "/callback?code=xyz";
    auto reply = co_await http.send(std::move(request));
    co_return reply ? reply->status : -1;
}

}  // namespace

TEST_CASE("loopback authorizer: a silent connection does not hold up the redirect", "[mcp][oauth]") {
    const auto port = static_cast<unsigned short>(reagent::test::unusedPort());
    const std::string base = "http://127.0.0.1:" + std::to_string(port);
    auto authorize = mcp::loopbackAuthorizer({});
    const auto started = std::chrono::steady_clock::now();
    reagent::test::runCoro([&]() -> Task<void> {
        auto waiting = authorize(requestFor(base + "/callback"));
        auto browsing = preconnectThenBrowse("127.0.0.1", port, base);
        auto outcome = co_await (std::move(waiting) && std::move(browsing));
        auto& [redirect, status] = outcome;
        REQUIRE(redirect);
        CHECK(*redirect == base + "/callback?code=xyz");
        CHECK(status == 200);
    }());
    // One request at a time waited for the silent connection's 10 s read limit.
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
}
