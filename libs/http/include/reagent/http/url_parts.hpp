#pragma once
/// \file
/// \brief `urlParts`: a request URL's host, port and address without query, as the HTTP client reads them
/// (for the attributes of a client span).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace reagent::http {

/// \brief What a request URL names, read as `HttpClient` reads it.
struct UrlParts {
    /// The host (an IPv6 address without brackets).
    std::string host;
    /// The port, the scheme's default when the URL gives none.
    std::uint16_t port = 0;
    /// `scheme://host[:port]/path`: without user information, query or fragment, which may hold
    /// credentials.
    std::string withoutQuery;
};

/// \brief The parts of `url`; none when it is not an `http` or `https` URL the client would send to.
[[nodiscard]] std::optional<UrlParts> urlParts(std::string_view url);

}  // namespace reagent::http
