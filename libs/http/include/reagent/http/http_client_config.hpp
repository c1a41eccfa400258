#pragma once
/// \file
/// \brief `HttpClientConfig`: timeouts, pooling, TLS and proxy settings of an `HttpClient`.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "reagent/http/proxy_settings.hpp"

namespace reagent::http {

/// \brief `"reagent/<version>"`, the default `User-Agent`.
[[nodiscard]] std::string defaultUserAgent();

/// \brief The default of `HttpClientConfig::maxBodyBytes`: 64 MiB.
inline constexpr std::uint64_t kDefaultMaxBodyBytes = 64ULL * 1024 * 1024;

/// \brief Settings of an `HttpClient`; every field has a usable default.
struct HttpClientConfig {
    /// Limit on resolving the host and opening the TCP connection (milliseconds; default 10 s). The
    /// request's own deadline still applies when it is shorter.
    std::chrono::milliseconds connectTimeout{10'000};
    /// Default deadline of one whole exchange: connect, TLS handshake, write, response headers and body
    /// (milliseconds; default 600 s, long enough for a slow streamed model answer).
    /// `HttpRequest::timeout` overrides it per request.
    std::chrono::milliseconds requestTimeout{600'000};
    /// Longest silence while reading a response body: when no byte has arrived for this long, the call
    /// fails with `HttpErrc::timeout` and the connection is closed (milliseconds; default 120 s; zero
    /// disables it). It runs from the arrival of the headers, so a model that thinks long before it
    /// answers a request that does not stream is bounded by `requestTimeout` alone.
    std::chrono::milliseconds readTimeout{120'000};
    /// Largest response body accepted, streamed or read whole (bytes; default 64 MiB; zero removes the
    /// limit). A body growing past it fails with `HttpErrc::response_too_large` and the connection is
    /// closed, so a server sending without end cannot exhaust memory.
    std::uint64_t maxBodyBytes = kDefaultMaxBodyBytes;
    /// How long an idle keep-alive connection stays in the pool (milliseconds; default 60 s).
    std::chrono::milliseconds idleTimeout{60'000};
    /// Most idle connections kept per (scheme, host, port, proxy) (count; default 4; 0 disables reuse).
    std::size_t maxIdlePerHost = 4;
    /// PEM file of extra trusted certificates, added to the system store (default: none).
    std::string caFile;
    /// Verify the server's certificate chain and host name (default true). Turning it off makes TLS
    /// open to interception: for tests only.
    bool verifyPeer = true;
    /// `User-Agent` sent unless a request sets its own (default `"reagent/<version>"`).
    std::string userAgent = defaultUserAgent();
    /// Proxies; unset (the default): read from the environment when the client is constructed
    /// (`ProxySettings::fromEnvironment`). Set to `ProxySettings{}` to never use a proxy.
    std::optional<ProxySettings> proxy;
};

}  // namespace reagent::http
