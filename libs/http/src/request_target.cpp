#include "request_target.hpp"

#include <arpa/inet.h>

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>
#include <charconv>

#include "reagent/core/base64.hpp"
#include "reagent/http/redacted_url.hpp"
#include "reagent/http/url_parts.hpp"

namespace reagent::http::detail {

namespace {

HttpError invalidUrl(std::string_view url, std::string_view why) {
    return HttpError{HttpErrc::invalid_url, "invalid URL '" + redactedUrl(url) + "': " + std::string(why)};
}

// RFC 9110 token characters (method and field names).
bool isToken(std::string_view text) {
    if (text.empty()) return false;
    for (const char c : text) {
        const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!alnum && std::string_view("!#$%&'*+-.^_`|~").find(c) == std::string_view::npos) return false;
    }
    return true;
}

bool isFieldValue(std::string_view text) {
    return text.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

// Boost.URL accepts any digits as a port and truncates the number: check the range here.
std::optional<std::uint16_t> parsePort(std::string_view text) {
    unsigned port = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || port == 0 || port > 65535) {
        return std::nullopt;
    }
    return static_cast<std::uint16_t>(port);
}

bool bodyExpected(std::string_view method) {
    return method == "POST" || method == "PUT" || method == "PATCH";
}

}  // namespace

std::string Origin::hostPort() const {
    const bool v6 = host.find(':') != std::string::npos;
    return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

bool isIpLiteral(std::string_view host) {
    const std::string copy(host);
    unsigned char bytes[16];
    return inet_pton(AF_INET, copy.c_str(), bytes) == 1 || inet_pton(AF_INET6, copy.c_str(), bytes) == 1;
}

expected<RequestTarget, HttpError> parseTarget(std::string_view url) {
    auto parsed = boost::urls::parse_uri(url);
    if (!parsed) return fail(invalidUrl(url, "not an absolute URL (" + parsed.error().message() + ")"));
    const boost::urls::url_view& view = *parsed;
    RequestTarget target;
    if (view.scheme_id() == boost::urls::scheme::http) {
        target.scheme = "http";
    } else if (view.scheme_id() == boost::urls::scheme::https) {
        target.scheme = "https";
        target.origin.tls = true;
    } else {
        return fail(invalidUrl(url, "the scheme must be http or https"));
    }
    if (view.host_type() == boost::urls::host_type::ipvfuture)
        return fail(invalidUrl(url, "unsupported host"));
    target.origin.host = view.host_address();
    if (target.origin.host.empty()) return fail(invalidUrl(url, "no host"));
    const std::uint16_t defaultPort = target.origin.tls ? 443 : 80;
    target.origin.port = defaultPort;
    if (view.has_port()) {
        const auto port = parsePort(view.port());
        if (!port) return fail(invalidUrl(url, "the port must be a number from 1 to 65535"));
        target.origin.port = *port;
    }
    target.path = std::string(view.encoded_target());
    if (target.path.empty() || target.path.front() != '/') target.path.insert(0, "/");
    target.authority = std::string(view.encoded_host_and_port());
    if (target.origin.port == defaultPort && view.has_port())
        target.authority = std::string(view.encoded_host());
    return target;
}

expected<ProxyEndpoint, HttpError> parseProxy(std::string_view url) {
    // curl accepts `host:port` without a scheme and takes it as http://.
    const std::string text =
        url.find("://") == std::string_view::npos ? "http://" + std::string(url) : std::string(url);
    const auto bad = [&](std::string_view why) {
        return HttpError{HttpErrc::proxy_failed, "proxy URL '" + redactedUrl(url) + "' " + std::string(why)};
    };
    auto parsed = boost::urls::parse_uri(text);
    if (!parsed) return fail(bad("is not a URL"));
    const boost::urls::url_view& view = *parsed;
    if (view.scheme_id() != boost::urls::scheme::http) {
        return fail(bad("is not supported: only http:// proxies are (no TLS to the proxy, no SOCKS)"));
    }
    ProxyEndpoint proxy;
    proxy.server.host = view.host_address();
    if (proxy.server.host.empty()) return fail(bad("has no host"));
    proxy.server.port = 1080;
    if (view.has_port()) {
        const auto port = parsePort(view.port());
        if (!port) return fail(bad("has a bad port"));
        proxy.server.port = *port;
    }
    if (view.has_userinfo()) {
        proxy.authorization =
            "Basic " + base64Encode(std::string(view.user()) + ":" + std::string(view.password()));
    }
    return proxy;
}

expected<Route, HttpError> makeRoute(std::string_view url, const ProxySettings& proxies) {
    auto target = parseTarget(url);
    if (!target) return fail(std::move(target.error()));
    Route route;
    route.target = std::move(*target);
    const std::string proxyUrl =
        proxies.proxyFor(route.target.scheme, route.target.origin.host, route.target.origin.port);
    if (!proxyUrl.empty()) {
        auto parsed = parseProxy(proxyUrl);
        if (!parsed) return fail(std::move(parsed.error()));
        route.proxy = std::move(*parsed);
    }
    route.poolKey = poolKey(route.target, route.proxy ? &*route.proxy : nullptr);
    route.hostPort = route.target.origin.hostPort();
    return route;
}

expected<Route, HttpError> pinnedRoute(const Route& route, const std::string& address) {
    if (!isIpLiteral(address)) {
        return fail(HttpError{
            HttpErrc::invalid_request,
            "request to " + route.hostPort + ": connectAddress '" + address + "' is not an IP address"});
    }
    if (route.proxy) {
        return fail(HttpError{HttpErrc::invalid_request,
                              "request to " + route.hostPort +
                                  ": connectAddress cannot be used through a proxy (the proxy resolves the "
                                  "host itself)"});
    }
    Route pinned = route;
    pinned.dialAddress = address;
    pinned.poolKey += " at " + address;
    return pinned;
}

expected<std::string, HttpError> serializeHead(const HttpRequest& request, const Route& route,
                                               std::string_view userAgent) {
    const auto invalid = [&](std::string why) {
        return HttpError{HttpErrc::invalid_request, "request to " + route.hostPort + ": " + why};
    };
    if (!isToken(request.method)) return fail(invalid("method '" + request.method + "' is not a token"));
    const RequestTarget& target = route.target;
    const ProxyEndpoint* absoluteFormVia = route.absoluteFormVia();
    const auto field = [](std::string& out, std::string_view name, std::string_view value) {
        out.append(name).append(": ").append(value).append("\r\n");
    };

    std::size_t size =
        request.method.size() + target.path.size() + target.authority.size() + 64 + userAgent.size();
    for (const auto& header : request.headers) size += header.name.size() + header.value.size() + 4;
    std::string head;
    head.reserve(size);
    head.append(request.method).append(" ");
    if (absoluteFormVia != nullptr) head.append(target.scheme).append("://").append(target.authority);
    head.append(target.path).append(" HTTP/1.1\r\n");
    if (!request.headers.contains("Host")) field(head, "Host", target.authority);
    for (const auto& header : request.headers) {
        if (!isToken(header.name)) return fail(invalid("header name '" + header.name + "' is not a token"));
        if (!isFieldValue(header.value))
            return fail(invalid("header '" + header.name + "' holds CR, LF or NUL"));
        // The client frames the body itself.
        if (equalsIgnoreCase(header.name, "Content-Length") ||
            equalsIgnoreCase(header.name, "Transfer-Encoding")) {
            continue;
        }
        field(head, header.name, header.value);
    }
    if (!userAgent.empty() && !request.headers.contains("User-Agent")) field(head, "User-Agent", userAgent);
    if (!request.body.empty() || bodyExpected(request.method)) {
        char digits[24];
        const char* end = std::to_chars(digits, digits + sizeof digits, request.body.size()).ptr;
        field(head, "Content-Length", std::string_view(digits, static_cast<std::size_t>(end - digits)));
    }
    if (absoluteFormVia != nullptr && !absoluteFormVia->authorization.empty() &&
        !request.headers.contains("Proxy-Authorization")) {
        field(head, "Proxy-Authorization", absoluteFormVia->authorization);
    }
    head.append("\r\n");
    return head;
}

std::string serializeConnect(const RequestTarget& target, const ProxyEndpoint& proxy,
                             std::string_view userAgent) {
    const std::string hostPort = target.origin.hostPort();
    std::string head = "CONNECT " + hostPort + " HTTP/1.1\r\nHost: " + hostPort + "\r\n";
    if (!userAgent.empty()) head += "User-Agent: " + std::string(userAgent) + "\r\n";
    if (!proxy.authorization.empty()) head += "Proxy-Authorization: " + proxy.authorization + "\r\n";
    head += "\r\n";
    return head;
}

std::string poolKey(const RequestTarget& target, const ProxyEndpoint* proxy) {
    std::string key = target.scheme + "://" + target.origin.hostPort();
    if (proxy != nullptr) key += " via " + proxy->server.hostPort() + " " + proxy->authorization;
    return key;
}

}  // namespace reagent::http::detail

namespace reagent::http {

std::optional<UrlParts> urlParts(std::string_view url) {
    auto target = detail::parseTarget(url);
    if (!target) {
        return std::nullopt;
    }
    const std::string_view path = std::string_view(target->path).substr(0, target->path.find('?'));
    return UrlParts{target->origin.host, target->origin.port,
                    target->scheme + "://" + target->authority + std::string(path)};
}

}  // namespace reagent::http
