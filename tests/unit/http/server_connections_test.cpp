// ServerConnections over real loopback sockets: whole and streamed replies, the refusals of requests that
// cannot be read, a client gone while a reply streams, a producer that fails, and stopping.

#include "reagent/http/server_connections.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "reagent/core/detail/listen.hpp"
#include "reagent/core/event.hpp"
#include "reagent/core/task_group.hpp"
#include "reagent/core/timeout.hpp"
#include "reagent/http/http_client.hpp"
#include "run_coro.hpp"

using namespace reagent;
using namespace reagent::http;
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

// A listening socket on 127.0.0.1 feeding `connections`, accepting until `accepting` is cancelled.
struct Listener {
    std::shared_ptr<tcp::acceptor> acceptor;
    std::uint16_t port = 0;
    std::string url(const std::string& path = "/") const {
        return "http://127.0.0.1:" + std::to_string(port) + path;
    }
};

Listener listenLocally(const Executor& ex, ServerConnections& connections, TaskGroup& accepting) {
    Listener out{std::make_shared<tcp::acceptor>(ex)};
    const auto ec =
        reagent::detail::listenOn(*out.acceptor, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    REQUIRE_FALSE(ec);
    out.port = out.acceptor->local_endpoint().port();
    std::function<void(tcp::socket)> serve = [&connections](tcp::socket socket) {
        connections.serve(std::move(socket));
    };
    accepting.spawn(reagent::detail::acceptConnections(out.acceptor, std::move(serve)));
    return out;
}

ServerReply textReply(unsigned status, std::string body) {
    ServerReply reply{status, {}, std::move(body)};
    reply.headers.add("Content-Type", "text/plain");
    return reply;
}

ConnectionHandler handlerWith(std::function<Task<ServerAnswer>(ServerRequest)> answer) {
    ConnectionHandler handler;
    handler.answer = std::move(answer);
    handler.refuse = [](unsigned status, std::string why) { return textReply(status, "refused: " + why); };
    return handler;
}

Task<ServerAnswer> echo(ServerRequest request) {
    ServerReply reply = textReply(200, request.method + " " + request.target + " " + request.body);
    reply.headers.add("X-Seen", std::string(request.headers.find("X-Test").value_or("none")));
    ServerAnswer answer{std::move(reply)};
    co_return answer;
}

// Stops accepting, then closes the connections.
Task<void> shutDown(ServerConnections& connections, TaskGroup& accepting) {
    accepting.cancel();
    auto closing = connections.close(std::chrono::milliseconds(500));
    co_await std::move(closing);
    (void)co_await accepting.join();
}

// Sends raw bytes and reads until the server closes: what a client that is not HTTP gets.
Task<std::string> rawExchange(std::uint16_t port, std::string bytes) {
    tcp::socket socket(co_await asio::this_coro::executor);
    const tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), port);
    co_await socket.async_connect(endpoint, asio::use_awaitable);
    auto [writeError, written] = co_await asio::async_write(socket, asio::buffer(bytes), kTuple);
    (void)written;
    std::string received;
    if (writeError) {
        co_return received;
    }
    auto [ec, n] = co_await asio::async_read(socket, asio::dynamic_buffer(received), kTuple);
    (void)ec;
    (void)n;
    co_return received;
}

}  // namespace

TEST_CASE("server connections: whole replies, kept alive across requests", "[http][server]") {
    test::runCoro([]() -> Task<void> {
        auto ex = co_await asio::this_coro::executor;
        ServerConnections connections(ex, ConnectionLimits{}, handlerWith(echo));
        TaskGroup accepting(ex);
        const Listener listener = listenLocally(ex, connections, accepting);
        HttpClient client;
        for (int i = 0; i < 3; ++i) {
            HttpRequest request;
            request.method = "POST";
            request.url = listener.url("/x?" + std::to_string(i));
            request.headers.add("x-test", "yes");
            request.body = "hello";
            auto sending = client.send(std::move(request));
            auto response = co_await std::move(sending);
            REQUIRE(response);
            CHECK(response->status == 200);
            CHECK(response->body == "POST /x?" + std::to_string(i) + " hello");
            CHECK(response->headers.find("X-Seen") == std::optional<std::string_view>("yes"));
        }
        auto ending = shutDown(connections, accepting);
        co_await std::move(ending);
    }());
}

TEST_CASE("server connections: a streamed reply arrives piece by piece, then ends", "[http][server]") {
    test::runCoro([]() -> Task<void> {
        auto ex = co_await asio::this_coro::executor;
        auto answer = [](ServerRequest) -> Task<ServerAnswer> {
            auto count = std::make_shared<int>(0);
            StreamedReply reply;
            reply.headers.add("Content-Type", "text/event-stream");
            reply.next = [count]() -> Task<std::optional<std::string>> {
                if (*count == 3) {
                    co_return std::nullopt;
                }
                co_return "piece " + std::to_string((*count)++) + "\n";
            };
            ServerAnswer out{std::move(reply)};
            co_return out;
        };
        ServerConnections connections(ex, ConnectionLimits{}, handlerWith(answer));
        TaskGroup accepting(ex);
        const Listener listener = listenLocally(ex, connections, accepting);
        HttpClient client;
        HttpRequest request;
        request.url = listener.url();
        auto opening = client.stream(std::move(request));
        auto stream = co_await std::move(opening);
        REQUIRE(stream);
        CHECK(stream->head().status == 200);
        auto reading = stream->readAll();
        auto body = co_await std::move(reading);
        REQUIRE(body);
        CHECK(*body == "piece 0\npiece 1\npiece 2\n");
        auto ending = shutDown(connections, accepting);
        co_await std::move(ending);
    }());
}

TEST_CASE("server connections: requests that cannot be read get the server's refusal", "[http][server]") {
    test::runCoro([]() -> Task<void> {
        auto ex = co_await asio::this_coro::executor;
        ConnectionLimits limits;
        limits.maxBodyBytes = 16;
        limits.maxHeaderBytes = 1024;
        ServerConnections connections(ex, limits, handlerWith(echo));
        TaskGroup accepting(ex);
        const Listener listener = listenLocally(ex, connections, accepting);
        HttpClient client;

        HttpRequest large;
        large.method = "POST";
        large.url = listener.url();
        large.body = std::string(17, 'x');
        auto sending = client.send(std::move(large));
        auto tooLarge = co_await std::move(sending);
        REQUIRE(tooLarge);
        CHECK(tooLarge->status == 413);
        CHECK(tooLarge->body.find("refused: Payload Too Large") == 0);
        CHECK(tooLarge->body.find("16 bytes") != std::string::npos);

        HttpRequest heavy;
        heavy.url = listener.url();
        heavy.headers.add("X-Padding", std::string(2048, 'p'));
        auto heavySending = client.send(std::move(heavy));
        auto tooHeavy = co_await std::move(heavySending);
        REQUIRE(tooHeavy);
        CHECK(tooHeavy->status == 431);

        auto raw = rawExchange(listener.port, "NOT HTTP AT ALL\r\n\r\n");
        const std::string garbage = co_await std::move(raw);
        CHECK(garbage.find("HTTP/1.1 400") == 0);
        CHECK(garbage.find("refused: Bad Request") != std::string::npos);

        auto ending = shutDown(connections, accepting);
        co_await std::move(ending);
    }());
}

TEST_CASE("server connections: a client gone while a reply streams cancels the producer", "[http][server]") {
    test::runCoro([]() -> Task<void> {
        auto ex = co_await asio::this_coro::executor;
        // The producer gives one piece, then waits for an event that never comes: only the client's
        // going away can end it.
        struct Shared {
            explicit Shared(const Executor& e) : never(e), ended(e) {}
            Event never;
            Event ended;
            bool cancelled = false;
        };
        auto shared = std::make_shared<Shared>(ex);
        auto answer = [shared](ServerRequest) -> Task<ServerAnswer> {
            auto first = std::make_shared<bool>(true);
            StreamedReply reply;
            reply.next = [shared, first]() -> Task<std::optional<std::string>> {
                if (std::exchange(*first, false)) {
                    co_return std::string("first\n");
                }
                auto waited = co_await shared->never.wait();
                shared->cancelled = !waited;
                shared->ended.set();
                co_return std::nullopt;
            };
            ServerAnswer out{std::move(reply)};
            co_return out;
        };
        ServerConnections connections(ex, ConnectionLimits{}, handlerWith(answer));
        TaskGroup accepting(ex);
        const Listener listener = listenLocally(ex, connections, accepting);
        {
            tcp::socket socket(ex);
            co_await socket.async_connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), listener.port),
                                          asio::use_awaitable);
            const std::string request = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
            co_await asio::async_write(socket, asio::buffer(request), asio::use_awaitable);
            std::string head;
            (void)co_await asio::async_read_until(socket, asio::dynamic_buffer(head), "first\n", kTuple);
            CHECK(head.find("HTTP/1.1 200") == 0);
        }  // the client closes its socket here
        const auto start = std::chrono::steady_clock::now();
        auto waitingForEnd = withTimeout(shared->ended.wait(), std::chrono::seconds(5));
        auto ended = co_await std::move(waitingForEnd);
        REQUIRE(ended);
        CHECK(shared->cancelled);
        CHECK(test::elapsedMs(start) < 2000);
        auto ending = shutDown(connections, accepting);
        co_await std::move(ending);
    }());
}

TEST_CASE("server connections: a producer that throws ends the connection without a last chunk",
          "[http][server]") {
    test::runCoro([]() -> Task<void> {
        auto ex = co_await asio::this_coro::executor;
        auto answer = [](ServerRequest) -> Task<ServerAnswer> {
            auto calls = std::make_shared<int>(0);
            StreamedReply reply;
            reply.next = [calls]() -> Task<std::optional<std::string>> {
                if ((*calls)++ == 0) {
                    co_return std::string("partial");
                }
                throw std::runtime_error("the producer failed");
            };
            ServerAnswer out{std::move(reply)};
            co_return out;
        };
        ServerConnections connections(ex, ConnectionLimits{}, handlerWith(answer));
        TaskGroup accepting(ex);
        const Listener listener = listenLocally(ex, connections, accepting);
        HttpClient client;
        HttpRequest request;
        request.url = listener.url();
        auto sending = client.send(std::move(request));
        auto response = co_await std::move(sending);
        REQUIRE_FALSE(response);
        CHECK(response.error().code == HttpErrc::connection_closed);
        auto ending = shutDown(connections, accepting);
        co_await std::move(ending);
    }());
}

TEST_CASE("server connections: stop ends idle connections at once and refuses new ones", "[http][server]") {
    test::runCoro([]() -> Task<void> {
        auto ex = co_await asio::this_coro::executor;
        ConnectionLimits limits;
        limits.readTimeout = std::chrono::seconds(30);
        ServerConnections connections(ex, limits, handlerWith(echo));
        TaskGroup accepting(ex);
        const Listener listener = listenLocally(ex, connections, accepting);
        tcp::socket idle(ex);
        co_await idle.async_connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), listener.port),
                                    asio::use_awaitable);
        // Let the connection reach its wait for a request.
        co_await test::sleepFor(std::chrono::milliseconds(50));
        const auto start = std::chrono::steady_clock::now();
        connections.stop();
        CHECK(connections.stopping());
        std::string rest;
        auto [ec, n] = co_await asio::async_read(idle, asio::dynamic_buffer(rest), kTuple);
        (void)n;
        CHECK(ec == asio::error::eof);
        CHECK(test::elapsedMs(start) < 2000);

        auto late = rawExchange(listener.port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        const std::string refused = co_await std::move(late);
        CHECK(refused.empty());
        auto ending = shutDown(connections, accepting);
        co_await std::move(ending);
    }());
}
