#include "exchange.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>

#include "connector.hpp"
#include "reagent/core/detail/exception_message.hpp"
#include "request_target.hpp"

namespace reagent::http::detail {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

void Exchange::finish() {
    finished = true;
    if (!stream) return;
    if (reader.keepAlive() && !reader.hasLeftover()) {
        stream->expiresNever();
        client->pool.release(poolKey, std::move(stream));
    } else {
        stream->close();
        stream.reset();
    }
}

void Exchange::abort(HttpError error) noexcept {
    finished = true;
    failure = std::move(error);
    // Closed, not destroyed: a coroutine may still be suspended in one of its operations.
    if (stream) stream->close();
}

namespace {

struct HeadFailure {
    HttpError error;
    /// Nothing of the response arrived and the connection looks closed by the server.
    bool stale = false;
};

Task<expected<void, HeadFailure>> readHead(std::shared_ptr<Exchange> exchange) {
    auto& reader = exchange->reader;
    for (;;) {
        const auto step = reader.parse();
        if (step.kind == ResponseReader::Kind::head) {
            exchange->head = reader.head();
            co_return expected<void, HeadFailure>{};
        }
        if (step.kind == ResponseReader::Kind::error) {
            co_return fail(HeadFailure{
                HttpError{HttpErrc::protocol_error,
                          "invalid HTTP response from " + exchange->hostPort + ": " + step.error.message()}});
        }
        const auto read = co_await exchange->stream->readSome(reader.prepare());
        if (read.ec == asio::error::eof) {
            const bool nothing = !reader.receivedAny();
            co_return fail(HeadFailure{
                HttpError{HttpErrc::connection_closed,
                          "server " + exchange->hostPort + " closed the connection " +
                              (nothing ? "without answering" : "in the middle of the response headers")},
                nothing});
        }
        if (read.ec) {
            co_return fail(HeadFailure{ioError(read.ec, "waiting for the response headers",
                                               exchange->hostPort, exchange->deadline, exchange->timeout),
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

}  // namespace

Task<expected<std::shared_ptr<Exchange>, HttpError>> startExchange(std::shared_ptr<ClientState> client,
                                                                   HttpRequest request) {
    auto target = parseTarget(request.url);
    if (!target) co_return fail(target.error());
    const auto timeout = request.timeout.value_or(client->config.requestTimeout);
    const auto deadline = Clock::now() + timeout;

    std::optional<ProxyEndpoint> proxy;
    const std::string proxyUrl =
        client->config.proxy->proxyFor(target->scheme, target->origin.host, target->origin.port);
    if (!proxyUrl.empty()) {
        auto parsed = parseProxy(proxyUrl);
        if (!parsed) co_return fail(parsed.error());
        proxy = std::move(*parsed);
    }
    // Plain http through a proxy is sent to the proxy in absolute form; https goes through a tunnel.
    const ProxyEndpoint* absoluteFormVia = proxy && !target->origin.tls ? &*proxy : nullptr;
    const auto head = serializeHead(request, *target, absoluteFormVia, client->config.userAgent);
    if (!head) co_return fail(head.error());
    const std::string key = poolKey(*target, proxy ? &*proxy : nullptr);
    const std::string hostPort = target->origin.hostPort();
    const bool expectBody = request.method != "HEAD";

    for (int attempt = 0; attempt < 2; ++attempt) {
        // The second attempt exists only to replace a stale pooled connection: always a fresh one.
        std::unique_ptr<ByteStream> stream = attempt == 0 ? client->pool.acquire(key) : nullptr;
        const bool reused = stream != nullptr;
        if (!stream) {
            auto opened = co_await openConnection(client, *target, proxy, deadline, timeout);
            if (!opened) co_return fail(opened.error());
            stream = std::move(*opened);
        }
        stream->expiresAt(deadline);
        std::vector<asio::const_buffer> buffers{asio::buffer(*head), asio::buffer(request.body)};
        const auto written = co_await stream->writeAll(std::move(buffers));
        if (written.ec) {
            if (reused && staleConnection(written.ec)) continue;
            co_return fail(ioError(written.ec, "sending the request", hostPort, deadline, timeout));
        }
        auto exchange = std::make_shared<Exchange>();
        exchange->client = client;
        exchange->poolKey = key;
        exchange->hostPort = hostPort;
        exchange->stream = std::move(stream);
        exchange->reader = ResponseReader(expectBody);
        exchange->deadline = deadline;
        exchange->timeout = timeout;
        auto headRead = co_await readHead(exchange);
        if (!headRead) {
            exchange->abort(headRead.error().error);
            if (reused && headRead.error().stale) continue;
            co_return fail(std::move(headRead.error().error));
        }
        co_return exchange;
    }
    co_return fail(HttpError{HttpErrc::connection_closed, "no connection to " + hostPort + " could be used"});
}

Task<expected<std::optional<std::string>, HttpError>> nextBody(std::shared_ptr<Exchange> exchange) {
    if (exchange->failure) co_return fail(*exchange->failure);
    if (exchange->finished) co_return std::optional<std::string>();
    auto& reader = exchange->reader;
    for (;;) {
        const auto step = reader.parse();
        if (step.kind == ResponseReader::Kind::body)
            co_return std::optional<std::string>(std::string(step.body));
        if (step.kind == ResponseReader::Kind::done) {
            exchange->finish();
            co_return std::optional<std::string>();
        }
        if (step.kind == ResponseReader::Kind::error) {
            auto error = HttpError{HttpErrc::protocol_error,
                                   "invalid response body from " + exchange->hostPort + " after " +
                                       bodyProgress(reader) + ": " + step.error.message()};
            exchange->abort(error);
            co_return fail(std::move(error));
        }
        const auto read = co_await exchange->stream->readSome(reader.prepare());
        if (read.ec == asio::error::eof) {
            // The end of a close-delimited body, or a cut one.
            if (reader.eof().kind == ResponseReader::Kind::done) {
                exchange->finish();
                co_return std::optional<std::string>();
            }
            auto error = HttpError{
                HttpErrc::connection_closed,
                "server " + exchange->hostPort + " closed the connection after " + bodyProgress(reader)};
            exchange->abort(error);
            co_return fail(std::move(error));
        }
        if (read.ec) {
            auto error = ioError(read.ec, "reading the response body after " + bodyProgress(reader),
                                 exchange->hostPort, exchange->deadline, exchange->timeout);
            exchange->abort(error);
            co_return fail(std::move(error));
        }
        reader.commit(read.bytes);
    }
}

HttpError errorFromException(std::exception_ptr error, bool cancelled, std::string_view where) {
    if (cancelled || reagent::detail::isCancellation(error))
        return HttpError{HttpErrc::cancelled, "request to " + std::string(where) + " was cancelled"};
    return HttpError{HttpErrc::protocol_error, "request to " + std::string(where) + " failed unexpectedly: " +
                                                   reagent::detail::exceptionMessage(error)};
}

}  // namespace reagent::http::detail
