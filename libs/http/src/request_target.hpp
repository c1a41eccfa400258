#pragma once
// Parsing request and proxy URLs, and writing request heads (no I/O).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "reagent/core/expected.hpp"
#include "reagent/http/http_error.hpp"
#include "reagent/http/http_request.hpp"
#include "reagent/http/proxy_settings.hpp"

namespace reagent::http::detail {

/// Where a connection goes: host (IPv6 without brackets) and port, with or without TLS.
struct Origin {
    bool tls = false;
    std::string host;
    std::uint16_t port = 0;

    /// `host:port` for messages and `CONNECT`, IPv6 in brackets.
    [[nodiscard]] std::string hostPort() const;
};

/// A parsed request URL.
struct RequestTarget {
    Origin origin;
    /// `http` or `https`.
    std::string scheme;
    /// Origin form: path and query, at least `/`.
    std::string path;
    /// `Host` header value: host, with the port when it is not the scheme's default.
    std::string authority;
};

/// A parsed proxy URL.
struct ProxyEndpoint {
    Origin server;
    /// `Proxy-Authorization` value (`Basic ...`) when the URL carried user information.
    std::string authorization;
};

/// Everything a request URL decides, worked out once per URL and client: where to connect, through
/// which proxy, and which pooled connections fit.
struct Route {
    RequestTarget target;
    std::optional<ProxyEndpoint> proxy;
    /// Connections are shared per scheme, host, port and proxy.
    std::string poolKey;
    /// The server's `host:port`, for messages.
    std::string hostPort;
    /// The address to connect to instead of resolving the host (`HttpRequest::connectAddress`); empty:
    /// resolve it.
    std::string dialAddress;

    /// Plain http through a proxy is sent to the proxy in absolute form; https goes through a tunnel.
    [[nodiscard]] const ProxyEndpoint* absoluteFormVia() const noexcept {
        return proxy && !target.origin.tls ? &*proxy : nullptr;
    }
};

[[nodiscard]] expected<RequestTarget, HttpError> parseTarget(std::string_view url);
[[nodiscard]] expected<ProxyEndpoint, HttpError> parseProxy(std::string_view url);

/// The route of a request to `url`, going through the proxy `proxies` name for it.
[[nodiscard]] expected<Route, HttpError> makeRoute(std::string_view url, const ProxySettings& proxies);

/// `route` pinned to `address` (`HttpRequest::connectAddress`): dialled there and pooled apart.
/// `invalid_request` when `address` is not an IP literal or `route` goes through a proxy.
[[nodiscard]] expected<Route, HttpError> pinnedRoute(const Route& route, const std::string& address);

/// The request head (request line and fields, up to the blank line) for `request` along `route`.
[[nodiscard]] expected<std::string, HttpError> serializeHead(const HttpRequest& request, const Route& route,
                                                             std::string_view userAgent);

/// The `CONNECT host:port` request that opens a tunnel through `proxy`.
[[nodiscard]] std::string serializeConnect(const RequestTarget& target, const ProxyEndpoint& proxy,
                                           std::string_view userAgent);

/// Pool key: connections are shared per scheme, host, port and proxy.
[[nodiscard]] std::string poolKey(const RequestTarget& target, const ProxyEndpoint* proxy);

/// True for an IPv4 or IPv6 address literal (such hosts get no SNI).
[[nodiscard]] bool isIpLiteral(std::string_view host);

}  // namespace reagent::http::detail
