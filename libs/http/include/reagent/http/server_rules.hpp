#pragma once
/// \file
/// \brief The rules reagent's HTTP servers (`mcp::serveHttp`, `a2a::Server`) apply to a request before
/// they read it, with no I/O: who may call (`Host` and `Origin` against DNS rebinding and cross-site
/// requests, a bearer token against other local users), and that a POST carries JSON.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace reagent::http {

/// \brief Whom a server takes requests from. Every field has a default.
struct CallerPolicy {
    /// The server is bound to a loopback address: a `Host` must name this machine (`localhost`,
    /// `127.0.0.1`, `[::1]`, any port) or be in `allowedHosts`, so that a rebound DNS name is refused.
    /// Default true.
    bool loopback = true;
    /// `Host` values (without the port, case-insensitive) accepted besides the local names when
    /// `loopback`; otherwise, when not empty, the only ones accepted. Default none.
    std::vector<std::string> allowedHosts;
    /// `Origin` values (`scheme://host[:port]`) accepted besides local ones (`http(s)://` + a local name,
    /// any port). A request without `Origin` is not a browser's and passes. Default none.
    std::vector<std::string> allowedOrigins;
    /// The token every request must carry as `Authorization: Bearer <token>`; unset (the default): no
    /// authentication (a program that authenticates its callers otherwise). Secret: no message quotes it.
    std::optional<std::string> bearerToken;
};

/// \brief The headers of a request the rules read (absent ones `nullopt`). Untrusted.
struct CallerHeaders {
    std::optional<std::string_view> host;
    std::optional<std::string_view> origin;
    std::optional<std::string_view> authorization;
};

/// \brief A request refused: the HTTP status, a sentence saying why (it may quote the `Host` or the
/// `Origin` sent, never the `Authorization`), and for 401 the `WWW-Authenticate` value to send.
struct Refusal {
    unsigned status = 400;
    std::string message;
    std::string challenge;
};

/// \brief Checks, in this order: 400 without `Host`; 403 for a `Host` or an `Origin` the policy does not
/// accept; 401 (challenge `Bearer`, or `Bearer error="invalid_token"` for a wrong token) when a token is
/// required and the request does not carry it. The token is compared in constant time.
[[nodiscard]] std::optional<Refusal> checkCaller(const CallerHeaders& headers, const CallerPolicy& policy);

/// \brief 415 when a POST's `Content-Type` is present and not `application/json` (parameters such as
/// `charset` allowed, case-insensitive), so that a browser's cross-site "simple" POST (`text/plain`,
/// a form) is refused.
[[nodiscard]] std::optional<Refusal> checkJsonContentType(std::optional<std::string_view> contentType);

/// \brief True for `localhost`, `127.0.0.1` and `[::1]`, with or without a port (case-insensitive).
[[nodiscard]] bool isLocalHost(std::string_view host) noexcept;
/// \brief True for `http(s)://` + a local host (any port, an optional trailing `/`).
[[nodiscard]] bool isLocalOrigin(std::string_view origin) noexcept;

/// \brief True when `authorization` is `Bearer <expected>` (the scheme case-insensitive). Takes the same
/// time whatever prefix of the token matches: both are hashed and the digests compared in constant time.
[[nodiscard]] bool bearerMatches(std::optional<std::string_view> authorization, std::string_view expected);

/// \brief A new bearer token: 32 bytes from OpenSSL's generator, base64url without padding (43 characters).
[[nodiscard]] std::string newBearerToken();

/// \brief Why `token` cannot be a bearer token (empty, or a character outside RFC 6750's `b64token`:
/// letters, digits, `-._~+/` and trailing `=`), or nothing when it can.
[[nodiscard]] std::optional<std::string> invalidBearerToken(std::string_view token);

}  // namespace reagent::http
