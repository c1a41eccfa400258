// The authorization step for a person at a terminal: the browser comes back to a one-request-at-a-time
// HTTP listener on a loopback address (RFC 8252 §7.3), which hands the redirect's URL to the OAuth flow.

#include "reagent/mcp/loopback_authorizer.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/url/parse.hpp>
#include <chrono>
#include <string>
#include <utility>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/detail/listen.hpp"

namespace reagent::mcp {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using asio::ip::tcp;

/// A connection that sends no request within this time is dropped (it would block the next one).
constexpr std::chrono::seconds kRequestTimeout{10};
/// The redirect is a short GET: nothing larger is read.
constexpr std::uint32_t kMaxRequestBytes = 16U << 10U;

constexpr std::string_view kDonePage =
    "<!doctype html><meta charset=utf-8><title>reagent</title>"
    "<p>Authorization received. You may close this tab and return to the terminal.</p>\n";

struct Listening {
    tcp::endpoint endpoint;
    std::string origin;
    std::string path;
};

[[nodiscard]] McpError refused(std::string why) {
    return McpError{McpErrc::unauthorized, std::move(why)};
}

[[nodiscard]] expected<Listening, McpError> listeningPoint(const std::string& redirectUri) {
    const auto url = boost::urls::parse_uri(redirectUri);
    const std::string why = "the OAuth redirect URI '" + redirectUri + "' ";
    if (!url || url->scheme() != "http" || !url->has_port() || url->port_number() == 0) {
        return unexpected(refused(why + "must be an http:// URL with a port to listen on the loopback"));
    }
    const std::string host(url->encoded_host());
    asio::ip::address address;
    if (host == "localhost" || host == "127.0.0.1") {
        address = asio::ip::make_address_v4("127.0.0.1");
    } else if (host == "[::1]") {
        address = asio::ip::make_address_v6("::1");
    } else {
        return unexpected(refused(why + "is not on a loopback address (127.0.0.1, [::1] or localhost)"));
    }
    std::string path(url->encoded_path());
    return Listening{tcp::endpoint(address, url->port_number()),
                     "http://" + std::string(url->encoded_host_and_port()), path.empty() ? "/" : path};
}

[[nodiscard]] bool isRedirect(std::string_view target, const std::string& path) {
    const std::size_t query = target.find('?');
    if (query == std::string_view::npos || target.substr(0, query) != path) {
        return false;
    }
    const std::string_view params = target.substr(query);
    return params.find("?code=") != std::string_view::npos ||
           params.find("&code=") != std::string_view::npos ||
           params.find("?error=") != std::string_view::npos ||
           params.find("&error=") != std::string_view::npos;
}

Task<void> answer(beast::tcp_stream& stream, bhttp::status status, std::string_view body) {
    bhttp::response<bhttp::string_body> response{status, 11};
    response.set(bhttp::field::content_type, "text/html; charset=utf-8");
    response.set(bhttp::field::cache_control, "no-store");
    response.set(bhttp::field::connection, "close");
    response.body() = std::string(body);
    response.prepare_payload();
    (void)co_await bhttp::async_write(stream, response, asio::as_tuple(asio::use_awaitable));
    beast::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
}

Task<expected<std::string, McpError>> awaitRedirect(AuthorizationRequest request,
                                                    std::function<void(const AuthorizationRequest&)> show) {
    auto point = listeningPoint(request.redirectUri);
    if (!point) {
        co_return unexpected(point.error());
    }
    const auto executor = co_await asio::this_coro::executor;
    tcp::acceptor acceptor(executor);
    beast::error_code ec;
    ec = reagent::detail::listenOn(acceptor, point->endpoint);
    if (ec) {
        co_return unexpected(refused("cannot listen on " + point->origin + " for the OAuth redirect (" +
                                     ec.message() +
                                     "); free the port or set another OAuthSettings::redirectUri"));
    }
    if (show) {
        show(request);
    }
    for (;;) {
        auto [accepted, socket] = co_await acceptor.async_accept(asio::as_tuple(asio::use_awaitable));
        if (accepted) {
            const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
            co_return unexpected(McpError{cancelled ? McpErrc::cancelled : McpErrc::unauthorized,
                                          "waiting for the OAuth redirect: " + accepted.message()});
        }
        beast::tcp_stream stream(std::move(socket));
        stream.expires_after(kRequestTimeout);
        beast::flat_buffer buffer;
        bhttp::request_parser<bhttp::string_body> parser;
        parser.body_limit(kMaxRequestBytes);
        parser.header_limit(kMaxRequestBytes);
        auto [read, bytes] =
            co_await bhttp::async_read(stream, buffer, parser, asio::as_tuple(asio::use_awaitable));
        (void)bytes;
        if (read) {
            continue;  // a stray or silent connection
        }
        const auto& message = parser.get();
        const std::string_view target(message.target().data(), message.target().size());
        if (message.method() != bhttp::verb::get || !isRedirect(target, point->path)) {
            co_await answer(stream, bhttp::status::not_found, "<p>Not the OAuth redirect.</p>\n");
            continue;
        }
        co_await answer(stream, bhttp::status::ok, kDonePage);
        co_return point->origin + std::string(target);
    }
}

}  // namespace

Authorizer loopbackAuthorizer(std::function<void(const AuthorizationRequest&)> show) {
    return [show = std::move(show)](AuthorizationRequest request) {
        return awaitRedirect(std::move(request), show);
    };
}

}  // namespace reagent::mcp
