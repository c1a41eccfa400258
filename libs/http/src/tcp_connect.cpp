#include "tcp_connect.hpp"

#include <sys/socket.h>

#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <cerrno>
#include <memory>

namespace reagent::http::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

bool socketIdleUsable(int fd) noexcept {
    char byte = 0;
    const auto n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    // 0: the peer closed; > 0: bytes nobody asked for. Only "nothing yet" means usable.
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

PlainStream::PlainStream(tcp::socket socket) : socket_(std::move(socket)) {}

Task<IoResult> PlainStream::readSome(asio::mutable_buffer buffer) {
    auto [ec, n] = co_await socket_.async_read_some(buffer, asio::as_tuple(asio::use_awaitable));
    co_return IoResult{ec, n};
}

Task<IoResult> PlainStream::writeAll(asio::const_buffer head, asio::const_buffer body) {
    // One gathered write: head and body leave in one system call (and, with Nagle off, one segment
    // when they fit).
    const std::array<asio::const_buffer, 2> buffers{head, body};
    auto [ec, n] = co_await asio::async_write(socket_, buffers, asio::as_tuple(asio::use_awaitable));
    co_return IoResult{ec, n};
}

bool PlainStream::idleUsable() {
    return socket_.is_open() && socketIdleUsable(socket_.native_handle());
}

void PlainStream::close() noexcept {
    boost::system::error_code ignored;
    socket_.close(ignored);
}

tcp::socket PlainStream::release() {
    return std::move(socket_);
}

namespace {

std::string party(const DialTarget& target) {
    return (target.proxy ? "proxy " : "") + (target.host.find(':') != std::string::npos
                                                 ? "[" + target.host + "]:" + std::to_string(target.port)
                                                 : target.host + ":" + std::to_string(target.port));
}

HttpError timedOut(const DialTarget& target, std::string_view activity, std::chrono::milliseconds limit) {
    return HttpError{HttpErrc::timeout, std::string(activity) + " " + party(target) + " timed out after " +
                                            std::to_string(limit.count()) + " ms"};
}

HttpError cancelledWhile(const DialTarget& target, std::string_view activity) {
    return HttpError{HttpErrc::cancelled, "cancelled while " + std::string(activity) + " " + party(target)};
}

// Asio runs getaddrinfo on a background thread that cannot be interrupted: the watchdog can only
// cancel a lookup that has not started yet, otherwise the result is dropped once it comes.
Task<expected<tcp::resolver::results_type, HttpError>> resolve(Executor executor, DialTarget target,
                                                               std::chrono::steady_clock::time_point deadline,
                                                               std::chrono::milliseconds limit) {
    boost::system::error_code ec;
    const auto address = asio::ip::make_address(target.host, ec);
    if (!ec) {
        co_return tcp::resolver::results_type::create(tcp::endpoint(address, target.port), target.host,
                                                      std::to_string(target.port));
    }
    auto resolver = std::make_shared<tcp::resolver>(executor);
    asio::steady_timer watchdog(executor, deadline);
    watchdog.async_wait([resolver](boost::system::error_code waitError) {
        if (!waitError) resolver->cancel();
    });
    auto [resolveError, results] =
        co_await resolver->async_resolve(target.host, std::to_string(target.port),
                                         tcp::resolver::numeric_service, asio::as_tuple(asio::use_awaitable));
    watchdog.cancel();
    if (!resolveError) co_return results;
    if (std::chrono::steady_clock::now() >= deadline) co_return fail(timedOut(target, "resolving", limit));
    if (resolveError == asio::error::operation_aborted) co_return fail(cancelledWhile(target, "resolving"));
    co_return fail(HttpError{target.proxy ? HttpErrc::proxy_failed : HttpErrc::resolve_failed,
                             "cannot resolve " + std::string(target.proxy ? "proxy " : "") + "host '" +
                                 target.host + "': " + resolveError.message()});
}

}  // namespace

Task<expected<tcp::socket, HttpError>> connectTcp(Executor executor, DialTarget target,
                                                  std::chrono::steady_clock::time_point deadline,
                                                  std::chrono::milliseconds limit) {
    auto endpoints = co_await resolve(executor, target, deadline, limit);
    if (!endpoints) co_return fail(endpoints.error());
    beast::tcp_stream stream(executor);
    stream.expires_at(deadline);
    auto [ec, endpoint] = co_await stream.async_connect(*endpoints, asio::as_tuple(asio::use_awaitable));
    if (ec == beast::error::timeout) co_return fail(timedOut(target, "connecting to", limit));
    if (ec == asio::error::operation_aborted) co_return fail(cancelledWhile(target, "connecting to"));
    if (ec) {
        co_return fail(HttpError{target.proxy ? HttpErrc::proxy_failed : HttpErrc::connect_failed,
                                 "cannot connect to " + party(target) + ": " + ec.message()});
    }
    // Requests are written whole; Nagle would only delay them.
    boost::system::error_code ignored;
    stream.socket().set_option(tcp::no_delay(true), ignored);
    // The connect timeout ends here: later deadlines are the exchange's watchdog's.
    co_return stream.release_socket();
}

}  // namespace reagent::http::detail
