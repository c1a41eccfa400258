#include "connector.hpp"

#include <boost/asio/error.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>

#include "response_reader.hpp"
#include "tcp_connect.hpp"
#include "tls_stream.hpp"

namespace reagent::http::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
using Clock = std::chrono::steady_clock;

HttpError ioError(const boost::system::error_code& ec, std::string_view activity, std::string_view hostPort,
                  Clock::time_point deadline, std::chrono::milliseconds timeout) {
    const std::string where = std::string(activity) + " (" + std::string(hostPort) + ")";
    if (ec == beast::error::timeout || (ec != asio::error::operation_aborted && Clock::now() >= deadline)) {
        return HttpError{HttpErrc::timeout,
                         "request timed out after " + std::to_string(timeout.count()) + " ms while " + where};
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
Task<expected<beast::tcp_stream, HttpError>> openTunnel(beast::tcp_stream tcp, RequestTarget target,
                                                        ProxyEndpoint proxy, std::string userAgent,
                                                        Clock::time_point deadline,
                                                        std::chrono::milliseconds timeout) {
    const std::string proxyName = "proxy " + proxy.server.hostPort();
    const std::string activity = "opening a tunnel to " + target.origin.hostPort();
    PlainStream plain(std::move(tcp));
    const std::string request = serializeConnect(target, proxy, userAgent);
    std::vector<asio::const_buffer> buffers{asio::buffer(request)};
    const auto written = co_await plain.writeAll(buffers);
    if (written.ec) co_return fail(ioError(written.ec, activity, proxyName, deadline, timeout));
    ResponseReader reader(false);
    for (;;) {
        const auto step = reader.parse();
        if (step.kind == ResponseReader::Kind::head) break;
        if (step.kind == ResponseReader::Kind::error) {
            co_return fail(HttpError{HttpErrc::proxy_failed, "invalid answer from " + proxyName +
                                                                 " to CONNECT " + target.origin.hostPort() +
                                                                 ": " + step.error.message()});
        }
        const auto read = co_await plain.readSome(reader.prepare());
        if (read.ec == asio::error::eof) {
            auto message =
                proxyName + " closed the connection instead of answering CONNECT " + target.origin.hostPort();
            co_return fail(HttpError{HttpErrc::proxy_failed, std::move(message)});
        }
        if (read.ec) co_return fail(ioError(read.ec, activity, proxyName, deadline, timeout));
        reader.commit(read.bytes);
    }
    const auto head = reader.head();
    if (!head.ok()) {
        co_return fail(
            HttpError{HttpErrc::proxy_failed, proxyName + " refused CONNECT " + target.origin.hostPort() +
                                                  ": " + std::to_string(head.status) + " " + head.reason});
    }
    if (reader.hasLeftover()) {
        co_return fail(
            HttpError{HttpErrc::proxy_failed,
                      proxyName + " sent data before the TLS handshake to " + target.origin.hostPort()});
    }
    co_return plain.release();
}

}  // namespace

Task<expected<std::unique_ptr<ByteStream>, HttpError>> openConnection(std::shared_ptr<ClientState> client,
                                                                      RequestTarget target,
                                                                      std::optional<ProxyEndpoint> proxy,
                                                                      Clock::time_point deadline,
                                                                      std::chrono::milliseconds timeout) {
    const auto connectDeadline = std::min(deadline, Clock::now() + client->config.connectTimeout);
    const auto connectLimit = connectDeadline == deadline ? timeout : client->config.connectTimeout;
    const Origin& dial = proxy ? proxy->server : target.origin;
    DialTarget dialTarget{dial.host, dial.port, proxy.has_value()};
    auto connected =
        co_await connectTcp(client->executor, std::move(dialTarget), connectDeadline, connectLimit);
    if (!connected) co_return fail(connected.error());
    ++client->connectionsOpened;
    beast::tcp_stream tcp = std::move(*connected);
    tcp.expires_at(deadline);
    if (!target.origin.tls)
        co_return std::unique_ptr<ByteStream>(std::make_unique<PlainStream>(std::move(tcp)));
    auto context = client->tlsContext();
    if (!context) co_return fail(context.error());
    const std::string hostPort = target.origin.hostPort();
    if (!proxy)
        co_return co_await startTls(std::move(*context), std::move(tcp), target.origin.host, hostPort,
                                    timeout);
    auto tunnel =
        co_await openTunnel(std::move(tcp), target, *proxy, client->config.userAgent, deadline, timeout);
    if (!tunnel) co_return fail(tunnel.error());
    co_return co_await startTls(std::move(*context), std::move(*tunnel), target.origin.host, hostPort,
                                timeout);
}

}  // namespace reagent::http::detail
