#pragma once
/// \file
/// \brief `HttpRequest`: what `HttpClient` sends.

#include <chrono>
#include <optional>
#include <string>

#include "reagent/http/http_headers.hpp"

namespace reagent::http {

/// \brief One HTTP/1.1 request.
///
/// The client adds `Host`, `User-Agent` (unless given) and `Content-Length` (when there is a body, or for
/// POST, PUT and PATCH); a `Content-Length` or `Transfer-Encoding` given here is replaced. Nothing else
/// is added: no `Accept-Encoding`, so bodies arrive as the server sends them.
struct HttpRequest {
    /// Method token, sent as given: `"GET"`, `"POST"`, ...
    std::string method = "GET";
    /// Absolute URL, `http://` or `https://`, parsed with Boost.URL; the fragment is not sent, user
    /// information in it is ignored.
    std::string url;
    /// Fields sent in this order after `Host`.
    HttpHeaders headers;
    /// The body, sent with a `Content-Length`.
    std::string body;
    /// An IP address literal (IPv6 without brackets) to connect to instead of resolving the URL's host, as
    /// curl's `--resolve` does; empty (the default): resolve the host. `Host`, TLS SNI and certificate
    /// verification still use the URL's host, so a caller that resolved and vetted the name itself can
    /// pin the connection to the address it checked (closing the window in which the name could be
    /// re-resolved elsewhere). Connections are pooled per address. A request that would go through a
    /// proxy fails with `invalid_request` (the proxy, not the client, would pick the address), and so
    /// does a value that is not an IP address.
    std::string connectAddress;
    /// Deadline for the whole exchange (connect, write, headers and body); unset:
    /// `HttpClientConfig::requestTimeout`.
    std::optional<std::chrono::milliseconds> timeout;
};

}  // namespace reagent::http
