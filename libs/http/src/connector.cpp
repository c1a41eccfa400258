#include "connector.hpp"

#include <boost/asio/error.hpp>
#include <boost/beast/http/error.hpp>

#include "response_reader.hpp"
#include "tcp_connect.hpp"
#include "tls_stream.hpp"

namespace reagent::http::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
using Clock = std::chrono::steady_clock;

HttpError ioError(const boost::system::error_code& ec, std::string_view activity, std::string_view hostPort,
                  Watchdog::Expiry expiry, std::chrono::milliseconds timeout,
                  std::chrono::milliseconds readTimeout) {
    const std::string where = std::string(activity) + " (" + std::string(hostPort) + ")";
    if (expiry == Watchdog::Expiry::deadline) {
        return HttpError{HttpErrc::timeout,
                         "request timed out after " + std::to_string(timeout.count()) + " ms while " + where};
    }
    if (expiry == Watchdog::Expiry::idle) {
        return HttpError{HttpErrc::timeout, "no data for " + std::to_string(readTimeout.count()) +
                                                " ms (HttpClientConfig::readTimeout) while " + where};
    }
    if (ec == asio::error::operation_aborted)
        return HttpError{HttpErrc::cancelled, "cancelled while " + where};
    return HttpError{HttpErrc::connection_closed, "connection lost while " + where + ": " + ec.message()};
}

bool staleConnection(const boost::system::error_code& ec) noexcept {
    return ec == asio::error::eof || ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
           ec == asio::error::connection_aborted || ec == beast::http::error::end_of_stream;
}

namespace {

// Asks the proxy for a tunnel to the target: `CONNECT host:port`, answered by a 2xx and then raw bytes.
Task<expected<std::unique_ptr<PlainStream>, HttpError>> openTunnel(std::unique_ptr<PlainStream> plain,
                                                                   std::shared_ptr<const Route> route,
                                                                   std::string userAgent, Watchdog watchdog,
                                                                   std::chrono::milliseconds timeout) {
    const std::string proxyName = "proxy " + route->proxy->server.hostPort();
    const std::string activity = "opening a tunnel to " + route->hostPort;
    const std::string request = serializeConnect(route->target, *route->proxy, userAgent);
    const auto written = co_await plain->writeAll(asio::buffer(request), asio::const_buffer());
    if (written.ec) {
        co_return fail(ioError(written.ec, activity, proxyName, watchdog.expired(), timeout, {}));
    }
    ResponseReader reader(false);
    std::string unused;
    for (;;) {
        const auto step = reader.parse(unused);
        if (step.kind == ResponseReader::Kind::head) break;
        if (step.kind == ResponseReader::Kind::error) {
            co_return fail(HttpError{HttpErrc::proxy_failed, "invalid answer from " + proxyName +
                                                                 " to CONNECT " + route->hostPort + ": " +
                                                                 step.error.message()});
        }
        const auto read = co_await plain->readSome(reader.prepare());
        if (read.ec == asio::error::eof) {
            auto message =
                proxyName + " closed the connection instead of answering CONNECT " + route->hostPort;
            co_return fail(HttpError{HttpErrc::proxy_failed, std::move(message)});
        }
        if (read.ec) co_return fail(ioError(read.ec, activity, proxyName, watchdog.expired(), timeout, {}));
        reader.commit(read.bytes);
    }
    const auto head = reader.takeHead();
    if (!head.ok()) {
        co_return fail(HttpError{HttpErrc::proxy_failed, proxyName + " refused CONNECT " + route->hostPort +
                                                             ": " + std::to_string(head.status) + " " +
                                                             head.reason});
    }
    if (reader.hasLeftover()) {
        co_return fail(HttpError{HttpErrc::proxy_failed,
                                 proxyName + " sent data before the TLS handshake to " + route->hostPort});
    }
    co_return plain;
}

}  // namespace

Task<expected<std::unique_ptr<ByteStream>, HttpError>> openConnection(
    std::shared_ptr<ClientState> client, Executor executor, std::shared_ptr<const Route> route,
    Watchdog watchdog, Clock::time_point deadline, std::chrono::milliseconds timeout) {
    const auto connectDeadline = std::min(deadline, Clock::now() + client->config.connectTimeout);
    const auto connectLimit = connectDeadline == deadline ? timeout : client->config.connectTimeout;
    const Origin& dial = route->proxy ? route->proxy->server : route->target.origin;
    const std::string& dialHost = route->dialAddress.empty() ? dial.host : route->dialAddress;
    DialTarget dialTarget{dialHost, dial.port, route->proxy.has_value()};
    auto connected = co_await connectTcp(executor, std::move(dialTarget), connectDeadline, connectLimit);
    if (!connected) co_return fail(connected.error());
    ++client->connectionsOpened;
    if (!route->target.origin.tls)
        co_return std::unique_ptr<ByteStream>(std::make_unique<PlainStream>(std::move(*connected)));
    auto context = client->tlsContext();
    if (!context) co_return fail(context.error());
    const Origin& origin = route->target.origin;
    if (!route->proxy) {
        co_return co_await startTls(std::move(*context), std::move(*connected), origin.host, route->hostPort,
                                    timeout, watchdog);
    }
    auto plain = std::make_unique<PlainStream>(std::move(*connected));
    watchdog.onExpiry([stream = plain.get()] { stream->close(); });
    auto tunnel = co_await openTunnel(std::move(plain), route, client->config.userAgent, watchdog, timeout);
    watchdog.onExpiry(nullptr);
    if (!tunnel) co_return fail(tunnel.error());
    auto socket = (*tunnel)->release();
    co_return co_await startTls(std::move(*context), std::move(socket), origin.host, route->hostPort, timeout,
                                watchdog);
}

}  // namespace reagent::http::detail
