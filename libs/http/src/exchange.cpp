#include "exchange.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/this_coro.hpp>

#include "connector.hpp"
#include "reagent/core/detail/exception_message.hpp"

namespace reagent::http::detail {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

Exchange::~Exchange() {
    watchdog.cancel();
}

void Exchange::finish() {
    finished = true;
    watchdog.cancel();
    if (!connection) return;
    const auto& reader = connection->reader;
    if (reader.keepAlive() && !reader.hasLeftover() && !writeFailed && pools) {
        pools->release(client->id, route->poolKey, std::move(connection), client->limits);
    } else {
        connection->stream->close();
        connection.reset();
    }
}

void Exchange::abort(HttpError error) noexcept {
    finished = true;
    failure = std::move(error);
    watchdog.cancel();
    // Closed, not destroyed: a coroutine may still be suspended in one of its operations.
    if (connection) connection->stream->close();
}

namespace {

struct HeadFailure {
    HttpError error;
    /// Nothing of the response arrived and the connection looks closed by the server.
    bool stale = false;
};

HttpError lostWhile(const Exchange& exchange, const boost::system::error_code& ec,
                    std::string_view activity) {
    return ioError(ec, activity, exchange.route->hostPort, exchange.watchdog.expired(), exchange.timeout,
                   exchange.client->config.readTimeout);
}

Task<expected<void, HeadFailure>> readHead(std::shared_ptr<Exchange> exchange) {
    auto& reader = exchange->connection->reader;
    const std::string& hostPort = exchange->route->hostPort;
    std::string none;  // no body byte is parsed before the head is out
    for (;;) {
        const auto step = reader.parse(none);
        if (step.kind == ResponseReader::Kind::head) {
            exchange->head = reader.takeHead();
            // From here on a body that stops flowing fails after the read timeout.
            exchange->watchdog.watchIdle();
            co_return expected<void, HeadFailure>{};
        }
        if (step.kind == ResponseReader::Kind::error) {
            co_return fail(
                HeadFailure{HttpError{HttpErrc::protocol_error, "invalid HTTP response from " + hostPort +
                                                                    ": " + step.error.message()}});
        }
        const auto read = co_await exchange->connection->stream->readSome(reader.prepare());
        if (read.ec == asio::error::eof) {
            const bool nothing = !reader.receivedAny();
            co_return fail(HeadFailure{
                HttpError{HttpErrc::connection_closed,
                          "server " + hostPort + " closed the connection " +
                              (nothing ? "without answering" : "in the middle of the response headers")},
                nothing});
        }
        if (read.ec) {
            co_return fail(HeadFailure{lostWhile(*exchange, read.ec, "waiting for the response headers"),
                                       !reader.receivedAny() && staleConnection(read.ec)});
        }
        reader.commit(read.bytes);
    }
}

std::string bodyProgress(const ResponseReader& reader) {
    std::string text = std::to_string(reader.bodyBytes());
    if (const auto length = reader.contentLength()) text += " of " + std::to_string(*length);
    return text + " body bytes";
}

// Reads the next piece of the body (`whole` false) or all of the rest (`whole` true). Nothing: the body
// had already ended (never for `whole`).
Task<expected<std::optional<std::string>, HttpError>> readBody(std::shared_ptr<Exchange> exchange,
                                                               bool whole) {
    if (exchange->failure) co_return fail(*exchange->failure);
    std::string out;
    if (exchange->finished) {
        co_return whole ? std::optional<std::string>(std::move(out)) : std::optional<std::string>();
    }
    auto& reader = exchange->connection->reader;
    for (;;) {
        const auto step = reader.parse(out);
        exchange->bodyBytes = reader.bodyBytes();
        const std::uint64_t limit = exchange->client->config.maxBodyBytes;
        if (limit != 0 && exchange->bodyBytes > limit) {
            // Checked before anything is handed out: a server sending without end must not fill memory.
            auto error = HttpError{HttpErrc::response_too_large,
                                   "the response body from " + exchange->route->hostPort + " exceeds " +
                                       std::to_string(limit) +
                                       " bytes (HttpClientConfig::maxBodyBytes); raise the limit if such a "
                                       "large response is expected"};
            exchange->abort(error);
            co_return fail(std::move(error));
        }
        if (step.kind == ResponseReader::Kind::body) {
            // A complete body gives its connection back at once, not on the caller's next call.
            const bool complete = reader.done();
            if (complete) exchange->finish();
            if (complete || !whole) co_return std::optional<std::string>(std::move(out));
            continue;
        }
        if (step.kind == ResponseReader::Kind::done) {
            exchange->finish();
            co_return whole ? std::optional<std::string>(std::move(out)) : std::optional<std::string>();
        }
        if (step.kind == ResponseReader::Kind::error) {
            auto error = HttpError{HttpErrc::protocol_error,
                                   "invalid response body from " + exchange->route->hostPort + " after " +
                                       bodyProgress(reader) + ": " + step.error.message()};
            exchange->abort(error);
            co_return fail(std::move(error));
        }
        const auto read = co_await exchange->connection->stream->readSome(reader.prepare());
        if (read.ec == asio::error::eof) {
            // The end of a close-delimited body, or a cut one.
            if (reader.eof().kind == ResponseReader::Kind::done) {
                exchange->finish();
                co_return whole || !out.empty() ? std::optional<std::string>(std::move(out))
                                                : std::optional<std::string>();
            }
            auto error = HttpError{HttpErrc::connection_closed, "server " + exchange->route->hostPort +
                                                                    " closed the connection after " +
                                                                    bodyProgress(reader)};
            exchange->abort(error);
            // An early answer (see startExchange) ends in a reset: its status matters more than the cut.
            if (whole && exchange->writeFailed) co_return std::optional<std::string>(std::move(out));
            co_return fail(std::move(error));
        }
        if (read.ec) {
            auto error =
                lostWhile(*exchange, read.ec, "reading the response body after " + bodyProgress(reader));
            exchange->abort(error);
            if (whole && exchange->writeFailed && staleConnection(read.ec) &&
                exchange->watchdog.expired() == Watchdog::Expiry::none) {
                co_return std::optional<std::string>(std::move(out));
            }
            co_return fail(std::move(error));
        }
        reader.commit(read.bytes);
        exchange->watchdog.activity();
    }
}

}  // namespace

Task<expected<std::shared_ptr<Exchange>, HttpError>> startExchange(std::shared_ptr<ClientState> client,
                                                                   HttpRequest request) {
    auto route = client->route(request.url);
    if (!route) co_return fail(std::move(route.error()));
    if (!request.connectAddress.empty()) {
        auto pinned = pinnedRoute(**route, request.connectAddress);
        if (!pinned) co_return fail(std::move(pinned.error()));
        route = std::make_shared<const Route>(std::move(*pinned));
    }
    const auto timeout = request.timeout.value_or(client->config.requestTimeout);
    const auto deadline = Clock::now() + timeout;
    const auto head = serializeHead(request, **route, client->config.userAgent);
    if (!head) co_return fail(head.error());
    const bool expectBody = request.method != "HEAD";
    const Executor executor = co_await asio::this_coro::executor;
    // Null until a connection was pooled on this execution context.
    auto pools = client->pools(executor, false);

    for (int attempt = 0; attempt < 2; ++attempt) {
        auto exchange = std::make_shared<Exchange>();
        exchange->client = client;
        exchange->route = *route;
        exchange->timeout = timeout;
        exchange->watchdog = Watchdog(executor, deadline, client->config.readTimeout);
        // The second attempt exists only to replace a stale pooled connection: always a fresh one.
        if (attempt == 0 && pools)
            exchange->connection = pools->acquire(client->id, (*route)->poolKey, client->limits);
        const bool reused = exchange->connection != nullptr;
        if (!reused) {
            auto opened =
                co_await openConnection(client, executor, *route, exchange->watchdog, deadline, timeout);
            if (!opened) co_return fail(opened.error());
            exchange->connection = std::make_unique<Connection>(std::move(*opened));
            if (!pools) pools = client->pools(executor, true);
        }
        exchange->pools = pools;
        ByteStream* stream = exchange->connection->stream.get();
        exchange->watchdog.onExpiry([stream] { stream->close(); });
        exchange->connection->reader.reset(expectBody);
        const auto written = co_await stream->writeAll(asio::buffer(*head), asio::buffer(request.body));
        if (written.ec) {
            // A server may answer before it has read the whole request (413 to a large upload) and close:
            // the write then fails, but its answer is waiting to be read and says more than the reset.
            if (staleConnection(written.ec) && exchange->watchdog.expired() == Watchdog::Expiry::none) {
                exchange->writeFailed = true;
                auto early = co_await readHead(exchange);
                if (early) co_return exchange;
            }
            exchange->abort(lostWhile(*exchange, written.ec, "sending the request"));
            if (reused && staleConnection(written.ec)) continue;
            co_return fail(*exchange->failure);
        }
        auto headRead = co_await readHead(exchange);
        if (!headRead) {
            exchange->abort(headRead.error().error);
            if (reused && headRead.error().stale) continue;
            co_return fail(std::move(headRead.error().error));
        }
        co_return exchange;
    }
    co_return fail(
        HttpError{HttpErrc::connection_closed, "no connection to " + (*route)->hostPort + " could be used"});
}

Task<expected<std::optional<std::string>, HttpError>> nextBody(std::shared_ptr<Exchange> exchange) {
    return readBody(std::move(exchange), false);
}

Task<expected<std::string, HttpError>> restOfBody(std::shared_ptr<Exchange> exchange) {
    auto body = co_await readBody(std::move(exchange), true);
    if (!body) co_return fail(std::move(body.error()));
    co_return std::move(**body);
}

HttpError fromEffect(const reagent::EffectError& error, std::string_view where) {
    if (error.code == reagent::EffectErrc::cancelled)
        return HttpError{HttpErrc::cancelled, "request to " + std::string(where) + " was cancelled"};
    return HttpError{HttpErrc::protocol_error,
                     "request to " + std::string(where) + " failed unexpectedly: " + error.message};
}

}  // namespace reagent::http::detail
