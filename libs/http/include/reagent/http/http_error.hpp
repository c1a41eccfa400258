#pragma once
/// \file
/// \brief `HttpError`: why an HTTP exchange failed.

#include <boost/describe/enum.hpp>
#include <string>
#include <string_view>

#include "reagent/core/error.hpp"

namespace reagent::http {

/// \brief Why `HttpClient` could not deliver a response. An HTTP status (404, 500, ...) is not an error.
enum class HttpErrc {
    /// The URL is not an absolute `http://` or `https://` URL with a host.
    invalid_url,
    /// The request cannot be sent as given: a method or header name that is not a token, a header value
    /// holding CR, LF or NUL.
    invalid_request,
    /// The host name (of the server, or of the proxy) could not be resolved to an address.
    resolve_failed,
    /// No TCP connection could be made to the server (refused, unreachable).
    connect_failed,
    /// The proxy could not be reached, refused the `CONNECT` tunnel, or its URL is not usable.
    proxy_failed,
    /// The TLS handshake failed; the message says when the server's certificate did not verify (untrusted
    /// issuer, self-signed, expired, name mismatch) and why.
    tls_failed,
    /// The request's deadline (`HttpRequest::timeout`, `HttpClientConfig::requestTimeout`) or the connect
    /// timeout passed first; the connection was closed.
    timeout,
    /// The awaiting coroutine was cancelled (Asio per-operation cancellation); the connection was closed.
    cancelled,
    /// The server closed (or reset) the connection before the response was complete.
    connection_closed,
    /// The server's bytes are not valid HTTP/1.1 (bad status line, bad chunk framing, oversized header).
    protocol_error,
    /// The response body grew past `HttpClientConfig::maxBodyBytes`; the connection was closed. Not
    /// retryable: the same request would get the same body.
    response_too_large,
};
BOOST_DESCRIBE_ENUM(HttpErrc, invalid_url, invalid_request, resolve_failed, connect_failed, proxy_failed,
                    tls_failed, timeout, cancelled, connection_closed, protocol_error, response_too_large)

/// \brief The name of a code, as used in messages and logs (`"timeout"`, ...).
[[nodiscard]] std::string_view toString(HttpErrc code) noexcept;

/// \brief True for failures that a later attempt may well not hit: `resolve_failed`, `connect_failed`,
/// `connection_closed`. Timeouts are left to the caller's policy.
[[nodiscard]] bool retryable(HttpErrc code) noexcept;

/// \brief A failed HTTP exchange: a code and a message a person can act on (it names `host:port`).
using HttpError = reagent::Error<HttpErrc>;

}  // namespace reagent::http
