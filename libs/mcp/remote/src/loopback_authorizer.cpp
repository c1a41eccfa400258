// The authorization step for a person at a terminal: the browser comes back to an HTTP listener on a
// loopback address (RFC 8252 §7.3), served by reagent::http's connection loop, which hands the redirect's
// URL to the OAuth flow.

#include "reagent/mcp/loopback_authorizer.hpp"

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/url/parse.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "reagent/core/cancellation.hpp"
#include "reagent/core/detail/listen.hpp"
#include "reagent/core/event.hpp"
#include "reagent/http/server_connections.hpp"

namespace reagent::mcp {

namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

/// A connection that sends no request within this time is dropped; the others are served meanwhile.
constexpr std::chrono::seconds kRequestTimeout{10};
/// The redirect is a short GET: nothing larger is read.
constexpr std::uint32_t kMaxRequestBytes = 16U << 10U;
/// How long the done page has to reach the browser once the redirect came.
constexpr std::chrono::seconds kCloseGrace{1};

constexpr std::string_view kDonePage =
    "<!doctype html><meta charset=utf-8><title>reagent</title>"
    "<p>Authorization received. You may close this tab and return to the terminal.</p>\n";

struct Listening {
    tcp::endpoint endpoint;
    std::string origin;
    std::string path;
};

// What the listener shares with its connections: where the redirect comes, and the first one that came.
struct Catch {
    Catch(const Executor& executor, Listening where) : point(std::move(where)), arrived(executor) {}
    Listening point;
    std::optional<std::string> redirect;
    Event arrived;
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

http::ServerReply page(unsigned status, std::string_view body) {
    http::ServerReply reply;
    reply.status = status;
    reply.headers.set("Content-Type", "text/html; charset=utf-8");
    reply.headers.set("Cache-Control", "no-store");
    reply.body = std::string(body);
    return reply;
}

// Every request ends its connection: the browser needs one page, and the listener goes once it came.
Task<http::ServerAnswer> answerRequest(std::shared_ptr<Catch> caught, http::ServerRequest request) {
    http::ServerAnswer answer;
    answer.close = true;
    if (request.method != "GET" || !isRedirect(request.target, caught->point.path)) {
        answer.reply = page(404, "<p>Not the OAuth redirect.</p>\n");
        co_return answer;
    }
    if (!caught->redirect) {
        caught->redirect = caught->point.origin + request.target;
        caught->arrived.set();
    }
    answer.reply = page(200, kDonePage);
    co_return answer;
}

Task<expected<std::string, McpError>> awaitRedirect(AuthorizationRequest request,
                                                    std::function<void(const AuthorizationRequest&)> show) {
    auto point = listeningPoint(request.redirectUri);
    if (!point) {
        co_return unexpected(point.error());
    }
    const auto executor = co_await asio::this_coro::executor;
    auto acceptor = std::make_shared<tcp::acceptor>(executor);
    if (const auto ec = reagent::detail::listenOn(*acceptor, point->endpoint)) {
        co_return unexpected(refused("cannot listen on " + point->origin + " for the OAuth redirect (" +
                                     ec.message() +
                                     "); free the port or set another OAuthSettings::redirectUri"));
    }
    if (show) {
        show(request);
    }
    auto caught = std::make_shared<Catch>(executor, std::move(*point));
    http::ConnectionHandler handler;
    handler.answer = [caught](http::ServerRequest asked) { return answerRequest(caught, std::move(asked)); };
    handler.refuse = [](unsigned status, std::string why) {
        http::ServerReply reply;
        reply.status = status;
        reply.headers.set("Content-Type", "text/plain; charset=utf-8");
        reply.body = std::move(why) + "\n";
        return reply;
    };
    http::ConnectionLimits limits;
    limits.maxBodyBytes = kMaxRequestBytes;
    limits.maxHeaderBytes = kMaxRequestBytes;
    limits.readTimeout = kRequestTimeout;
    limits.writeTimeout = kRequestTimeout;
    http::ServerConnections connections(executor, limits, std::move(handler));
    std::function<void(tcp::socket)> serve = [&connections](tcp::socket socket) {
        connections.serve(std::move(socket));
    };
    auto accepting = reagent::detail::acceptConnections(acceptor, std::move(serve));
    auto arriving = caught->arrived.wait();
    using namespace asio::experimental::awaitable_operators;
    (void)co_await (std::move(accepting) || std::move(arriving));
    // The redirect came or the caller gave up: the listener goes either way, the done page first.
    const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
    co_await asio::this_coro::reset_cancellation_state();
    boost::system::error_code ignored;
    acceptor->close(ignored);
    co_await connections.close(kCloseGrace);
    if (caught->redirect) {
        co_return *caught->redirect;
    }
    co_return unexpected(McpError{cancelled ? McpErrc::cancelled : McpErrc::unauthorized,
                                  cancelled ? "the wait for the OAuth redirect was cancelled"
                                            : "the OAuth redirect listener stopped accepting connections"});
}

}  // namespace

Authorizer loopbackAuthorizer(std::function<void(const AuthorizationRequest&)> show) {
    return [show = std::move(show)](AuthorizationRequest request) {
        return awaitRedirect(std::move(request), show);
    };
}

}  // namespace reagent::mcp
