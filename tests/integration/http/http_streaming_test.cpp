// HttpClient streaming, deadlines and cancellation against the loopback peer.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/steady_timer.hpp>
#include <catch2/catch.hpp>

#include "http_test_support.hpp"
#include "reagent/core/timeout.hpp"

using namespace reagent;
using namespace reagent::http;
using namespace std::chrono_literals;
using reagent::test::directConfig;
using reagent::test::get;
using reagent::test::Loop;
using reagent::test::msBetween;
using reagent::test::parseJson;
using reagent::test::waitForStat;
using Clock = std::chrono::steady_clock;

namespace {

struct Piece {
    std::string bytes;
    long long receivedMs = 0;
};

struct StreamedBody {
    int status = 0;
    std::vector<Piece> pieces;
    std::optional<HttpError> error;
};

// Reads a streamed response piece by piece, noting when each piece arrived (wall clock, as the peer's
// `sent_ms`).
Task<StreamedBody> readPieces(std::shared_ptr<HttpClient> client, HttpRequest request) {
    StreamedBody result;
    auto stream = co_await client->stream(std::move(request));
    if (!stream) {
        result.error = stream.error();
        co_return result;
    }
    result.status = stream->head().status;
    for (;;) {
        auto piece = co_await stream->next();
        if (!piece) {
            result.error = piece.error();
            break;
        }
        if (!*piece) break;
        result.pieces.push_back(Piece{std::move(**piece), reagent::test::epochMs()});
    }
    co_return result;
}

long long sentMs(const std::string& body, int index) {
    const std::string marker = "data: {\"i\":" + std::to_string(index) + ",";
    const auto at = body.find(marker);
    if (at == std::string::npos) return -1;
    const auto line = body.substr(at + 6, body.find('\n', at) - at - 6);
    return parseJson(line)["sent_ms"].get<long long>();
}

std::string joined(const std::vector<Piece>& pieces) {
    std::string all;
    for (const auto& piece : pieces) all += piece.bytes;
    return all;
}

}  // namespace

TEST_CASE("Streamed SSE bytes arrive as they are sent, not at the end", "[http][stream]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    auto client = std::make_shared<HttpClient>(directConfig());

    SECTION("chunked") {
        auto body = loop.run(readPieces(client, get(peer.url("/sse?events=3&delay_ms=300"))));

        REQUIRE_FALSE(body.error);
        CHECK(body.status == 200);
        const auto all = joined(body.pieces);
        REQUIRE(body.pieces.size() >= 3);
        const long long lastSent = sentMs(all, 2);
        REQUIRE(lastSent > 0);
        // The first event was in our hands before the server even wrote the last one.
        CHECK(body.pieces.front().receivedMs < lastSent);
        CHECK(body.pieces.front().bytes.find("\"i\":0") != std::string::npos);
        CHECK(all.find("\"i\":2") != std::string::npos);
        // A complete chunked body leaves the connection reusable.
        CHECK(client->idleConnections() == 1);
    }
    SECTION("delimited by the connection's close") {
        auto body = loop.run(readPieces(client, get(peer.url("/sse?events=3&delay_ms=300&close=1"))));

        REQUIRE_FALSE(body.error);
        const auto all = joined(body.pieces);
        REQUIRE(body.pieces.size() >= 3);
        CHECK(body.pieces.front().receivedMs < sentMs(all, 2));
        CHECK(all.find("\"i\":2") != std::string::npos);
        CHECK(client->idleConnections() == 0);
    }
}

namespace {

Task<std::pair<HttpResponseHead, expected<std::string, HttpError>>> headThenBody(
    std::shared_ptr<HttpClient> client, HttpRequest request) {
    auto stream = co_await client->stream(std::move(request));
    if (!stream)
        co_return std::make_pair(HttpResponseHead{}, expected<std::string, HttpError>(fail(stream.error())));
    auto head = stream->head();
    auto body = co_await stream->readAll();
    co_return std::make_pair(std::move(head), std::move(body));
}

}  // namespace

TEST_CASE("A streamed non-2xx response gives its head first and its error body whole", "[http][stream]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    auto client = std::make_shared<HttpClient>(directConfig());

    auto [head, body] = loop.run(headThenBody(client, get(peer.url("/status/503"))));

    CHECK(head.status == 503);
    CHECK(head.reason == "Service Unavailable");
    REQUIRE(body);
    CHECK(parseJson(*body)["error"]["message"] == "status 503");
    CHECK(client->idleConnections() == 1);
}

TEST_CASE("A response slower than the request's timeout fails with timeout and closes the connection",
          "[http][timeout]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    HttpClient client(directConfig());
    auto request = get(peer.url("/stall?ms=5000"));
    request.timeout = 300ms;

    const auto start = Clock::now();
    auto response = loop.run(client.send(request));
    const auto elapsed = msBetween(start, Clock::now());

    REQUIRE_FALSE(response);
    CHECK(response.error().code == HttpErrc::timeout);
    CHECK_THAT(response.error().message,
               Catch::Contains("300 ms") && Catch::Contains("127.0.0.1:" + std::to_string(peer.port())));
    CHECK(elapsed >= 280);
    CHECK(elapsed < 2000);
    CHECK(waitForStat(peer, "stall_closed", 1) == 1);
}

TEST_CASE("The deadline also covers a streamed body", "[http][timeout][stream]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    auto config = directConfig();
    config.requestTimeout = 500ms;
    auto client = std::make_shared<HttpClient>(config);

    const auto start = Clock::now();
    auto body = loop.run(readPieces(client, get(peer.url("/stall-body?ms=5000"))));

    CHECK(body.status == 200);
    CHECK(joined(body.pieces) == "12345");
    REQUIRE(body.error);
    CHECK(body.error->code == HttpErrc::timeout);
    CHECK_THAT(body.error->message, Catch::Contains("5 of 10 body bytes"));
    CHECK(msBetween(start, Clock::now()) < 3000);
}

TEST_CASE("A body that stalls past the read timeout fails long before the deadline",
          "[http][timeout][stream]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    auto config = directConfig();
    config.readTimeout = 400ms;
    auto client = std::make_shared<HttpClient>(config);

    SECTION("streamed") {
        const auto start = Clock::now();
        auto body = loop.run(readPieces(client, get(peer.url("/stall-body?ms=5000"))));
        const auto elapsed = msBetween(start, Clock::now());

        CHECK(body.status == 200);
        CHECK(joined(body.pieces) == "12345");
        REQUIRE(body.error);
        CHECK(body.error->code == HttpErrc::timeout);
        CHECK_THAT(body.error->message, Catch::Contains("no data for 400 ms") &&
                                            Catch::Contains("readTimeout") &&
                                            Catch::Contains("5 of 10 body bytes"));
        CHECK(elapsed >= 380);
        CHECK(elapsed < 3000);
    }
    SECTION("read whole") {
        auto response = loop.run(client->send(get(peer.url("/stall-body?ms=5000"))));

        REQUIRE_FALSE(response);
        CHECK(response.error().code == HttpErrc::timeout);
        CHECK_THAT(response.error().message, Catch::Contains("readTimeout"));
    }
    CHECK(client->idleConnections() == 0);
    CHECK(waitForStat(peer, "stall_closed", 1) == 1);
}

TEST_CASE("The read timeout does not bound the wait for the headers", "[http][timeout]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    auto config = directConfig();
    config.readTimeout = 200ms;
    HttpClient client(config);

    // The answer comes after 700 ms of silence: only the request's deadline governs that wait.
    auto response = loop.run(client.send(get(peer.url("/stall?ms=700"))));

    REQUIRE(response);
    CHECK(response->status == 200);
    CHECK(parseJson(response->body)["late"] == true);
}

TEST_CASE("Cancelling the awaiting coroutine closes the socket promptly", "[http][cancel]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    HttpClient client(directConfig());
    boost::asio::cancellation_signal signal;
    std::optional<expected<HttpResponse, HttpError>> result;
    Clock::time_point cancelledAt;
    Clock::time_point finishedAt;

    boost::asio::co_spawn(loop.io(), client.send(get(peer.url("/stall?ms=5000"))),
                          boost::asio::bind_cancellation_slot(
                              signal.slot(), [&](std::exception_ptr, expected<HttpResponse, HttpError> r) {
                                  result = std::move(r);
                                  finishedAt = Clock::now();
                              }));
    boost::asio::steady_timer timer(loop.io(), 300ms);
    timer.async_wait([&](boost::system::error_code) {
        cancelledAt = Clock::now();
        signal.emit(boost::asio::cancellation_type::terminal);
    });
    loop.io().run();

    REQUIRE(result);
    REQUIRE_FALSE(*result);
    CHECK(result->error().code == HttpErrc::cancelled);
    CHECK(msBetween(cancelledAt, finishedAt) < 100);
    CHECK(client.idleConnections() == 0);
    // The peer saw the connection close while it stalled.
    CHECK(waitForStat(peer, "stall_closed", 1) == 1);
}

TEST_CASE("withTimeout around send cancels the request and closes its connection", "[http][cancel]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    HttpClient client(directConfig());

    const auto start = Clock::now();
    auto outcome = loop.run(withTimeout(client.send(get(peer.url("/stall?ms=5000"))), 250ms));

    REQUIRE_FALSE(outcome);
    CHECK(outcome.error().code == EffectErrc::timeout);
    CHECK(msBetween(start, Clock::now()) < 1500);
    CHECK(waitForStat(peer, "stall_closed", 1) == 1);
}

namespace {

Task<std::pair<std::string, expected<std::optional<std::string>, HttpError>>> firstPieceThenCancelled(
    std::shared_ptr<HttpClient> client, HttpRequest request, std::chrono::milliseconds limit) {
    auto stream = co_await client->stream(std::move(request));
    if (!stream)
        co_return std::make_pair(std::string(),
                                 expected<std::optional<std::string>, HttpError>(fail(stream.error())));
    auto first = co_await stream->next();
    std::string firstBytes = first && *first ? **first : std::string();
    // Race the next read against a timer: the read loses and is cancelled.
    auto rest = co_await withTimeout(stream->next(), limit);
    if (rest) co_return std::make_pair(firstBytes, std::move(*rest));
    auto done = stream->done();
    co_return std::make_pair(firstBytes + (done ? "|done" : "|open"),
                             expected<std::optional<std::string>, HttpError>(
                                 fail(HttpError{HttpErrc::cancelled, rest.error().message})));
}

}  // namespace

TEST_CASE("Cancelling a body read ends the stream and closes the connection", "[http][cancel][stream]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    auto client = std::make_shared<HttpClient>(directConfig());

    auto [first, rest] =
        loop.run(firstPieceThenCancelled(client, get(peer.url("/stall-body?ms=5000")), 200ms));

    CHECK(first == "12345|done");
    REQUIRE_FALSE(rest);
    CHECK(client->idleConnections() == 0);
    CHECK(waitForStat(peer, "stall_closed", 1) == 1);
}

namespace {

Task<std::string> readOnePieceAndDrop(std::shared_ptr<HttpClient> client, HttpRequest request) {
    auto stream = co_await client->stream(std::move(request));
    if (!stream) co_return "error: " + stream.error().message;
    auto piece = co_await stream->next();
    co_return piece&&* piece ? **piece : std::string("nothing");
}

}  // namespace

TEST_CASE("Dropping a stream before its end closes the connection instead of pooling it",
          "[http][stream][pool]") {
    auto peer = reagent::test::startHttpPeer();
    Loop loop;
    auto client = std::make_shared<HttpClient>(directConfig());

    auto piece = loop.run(readOnePieceAndDrop(client, get(peer.url("/sse?events=5&delay_ms=200"))));
    auto next = loop.run(client->send(get(peer.url("/echo"))));

    CHECK(piece.find("\"i\":0") != std::string::npos);
    REQUIRE(next);
    CHECK(parseJson(next->body)["connection"] == 2);
    CHECK(client->connectionsOpened() == 2);
}
