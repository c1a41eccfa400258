#pragma once
/// \file
/// \brief `NetworkToolOptions`: the settings of the network tools (`http-get`, `web-search`,
/// `crypto-price`).

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "reagent/http/http_client_config.hpp"

namespace reagent::builtins {

/// \brief Settings of the network tools; every field has a usable default.
///
/// \par The network rule
/// `http-get` fetches URLs the model chooses, so it must not become a door into the user's network: it
/// resolves the host itself, refuses the call when any resolved address is private, loopback,
/// link-local, unspecified, multicast, shared (CGNAT), unique local, reserved or documentation (IPv4
/// inside IPv6 forms judged as the IPv4 address), and connects only to an address it checked. Every
/// redirect is checked again. `web-search` and `crypto-price` talk to the base URLs configured here,
/// chosen by the user, not by the model: the rule does not apply to them.
struct NetworkToolOptions {
    /// Lets `http-get` reach every address, private networks included (default false). Only for a user
    /// who wants the agent to browse their own network.
    bool allowPrivateNetwork = false;
    /// Addresses or CIDR ranges `http-get` may reach although the rule refuses them, e.g.
    /// `"192.168.1.20"`, `"10.1.0.0/16"`, `"fd00::/8"` (default none). Every resolved address of a host
    /// must be public or listed here. An entry that does not parse makes `networkTools` fail.
    std::vector<std::string> allowedPrivateRanges;
    /// Deadline of one HTTP request: resolving, connecting, sending, the whole response (milliseconds;
    /// default 20 s).
    std::chrono::milliseconds requestTimeout{20'000};
    /// Deadline of a whole tool call, redirects included (milliseconds; default 60 s).
    std::chrono::milliseconds callTimeout{60'000};
    /// `http-get`: largest body read from the network (bytes; default 2 MiB); the rest is not
    /// downloaded and the result says so.
    std::size_t maxDownloadBytes = 2 * 1024 * 1024;
    /// `http-get`: largest body text handed to the model, after HTML reduction (bytes; default 32 KiB);
    /// a longer text is cut at a character boundary and the result says how many bytes were cut.
    std::size_t maxBodyBytes = 32 * 1024;
    /// `http-get`: most redirects followed in one call (default 5; 0: a redirect is returned as it is).
    int maxRedirects = 5;
    /// `web-search`: the Tavily API's base URL; requests go to `<base>/search` (default
    /// `https://api.tavily.com`).
    std::string tavilyBaseUrl = "https://api.tavily.com";
    /// `web-search`: the Tavily API key; unset (the default): `TAVILY_API_KEY` read when the tools are
    /// made. Without a key, `web-search` stays listed and every call says the tool is inactive. The key
    /// is sent as a bearer token and never appears in results or errors.
    std::optional<std::string> tavilyApiKey;
    /// `crypto-price`: CoinGecko's base URL; requests go to `<base>/api/v3/simple/price` (default
    /// `https://api.coingecko.com`).
    std::string coingeckoBaseUrl = "https://api.coingecko.com";
    /// `crypto-price`: how long a fetched price is reused, per coin and quote currency (milliseconds;
    /// default 60 s; zero: never reused).
    std::chrono::milliseconds priceCacheTtl{60'000};
    /// HTTP settings of `web-search` and `crypto-price` (proxy from the environment by default, extra CA
    /// file, user agent). `http-get` uses its `caFile`, `verifyPeer` and `userAgent` but never a proxy:
    /// a proxy would resolve the host itself, out of reach of the network rule.
    http::HttpClientConfig http;
};

}  // namespace reagent::builtins
