#pragma once
/// \file
/// \brief `ProxySettings`: which HTTP proxy a request goes through, read like curl reads it.

#include <cstdint>
#include <string>
#include <string_view>

namespace reagent::http {

/// \brief Proxies for `http://` and `https://` URLs and the hosts that bypass them.
///
/// A proxy URL is `http://[user:password@]host[:port]` or just `host[:port]`; the port defaults to 1080
/// as in curl. Plain `http://` requests go to the proxy in absolute form; `https://` requests go through
/// a `CONNECT` tunnel, TLS running end to end with the server. Proxies spoken to over TLS (`https://`
/// proxy URLs) and SOCKS proxies are not supported: requests through them fail with `proxy_failed`.
struct ProxySettings {
    /// Proxy for `http://` URLs; empty: connect directly.
    std::string httpProxy;
    /// Proxy for `https://` URLs; empty: connect directly.
    std::string httpsProxy;
    /// Hosts that bypass both proxies, in curl's `NO_PROXY` syntax (see `matchesNoProxy`).
    std::string noProxy;

    /// \brief Reads the environment as curl does, lower-case names first: `http_proxy`/`HTTP_PROXY`,
    /// `https_proxy`/`HTTPS_PROXY`, `all_proxy`/`ALL_PROXY` (for a scheme with none of its own) and
    /// `no_proxy`/`NO_PROXY`. Unlike curl, upper-case `HTTP_PROXY` is honoured too. Empty values count
    /// as unset.
    [[nodiscard]] static ProxySettings fromEnvironment();

    /// \brief The proxy URL for a request to `scheme://host:port` (`scheme` is `http` or `https`), or an
    /// empty string when it goes directly.
    [[nodiscard]] std::string proxyFor(std::string_view scheme, std::string_view host,
                                       std::uint16_t port) const;
};

/// \brief True when `host` (with the request's `port`) is listed in `noProxy`, following curl's rules.
///
/// `noProxy` is a list separated by commas or blanks. `*` alone matches every host. A name matches
/// itself and its sub-domains (`example.com` matches `example.com` and `api.example.com`, not
/// `myexample.com`), case-insensitively, ignoring a leading or trailing dot. An IP address host matches an
/// equal address or a CIDR range (`10.0.0.0/8`, `::1`; IPv6 entries without brackets). As in curl, names
/// and addresses are compared as written, nothing is resolved: `localhost` does not match `127.0.0.1` and
/// loopback hosts are proxied unless listed. Beyond curl, an entry may carry a port (`host:8080`,
/// `[::1]:8080`) to bypass only that port; curl never matches such an entry.
[[nodiscard]] bool matchesNoProxy(std::string_view noProxy, std::string_view host, std::uint16_t port);

}  // namespace reagent::http
