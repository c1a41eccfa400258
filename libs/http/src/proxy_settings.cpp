#include "reagent/http/proxy_settings.hpp"

#include <arpa/inet.h>

#include <array>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "reagent/http/http_headers.hpp"

namespace reagent::http {

namespace {

std::string environment(const char* lowerName, const char* upperName) {
    // curl's order: the lower-case name wins; an empty value counts as unset.
    for (const char* name : {lowerName, upperName}) {
        const char* value = std::getenv(name);
        if (value != nullptr && *value != '\0') return value;
    }
    return {};
}

enum class HostKind { name, ipv4, ipv6 };

struct IpAddress {
    int family = AF_INET;
    std::array<unsigned char, 16> bytes{};
};

std::optional<IpAddress> parseIp(std::string_view text, int family) {
    if (text.empty() || text.size() >= 64) return std::nullopt;
    char copy[64];
    std::memcpy(copy, text.data(), text.size());
    copy[text.size()] = '\0';
    IpAddress address;
    address.family = family;
    if (inet_pton(family, copy, address.bytes.data()) != 1) return std::nullopt;
    return address;
}

// curl's Curl_cidr4_match/Curl_cidr6_match: `bits` 0 means the whole address.
bool cidrMatch(const IpAddress& host, std::string_view entry) {
    unsigned bits = 0;
    if (const auto slash = entry.find('/'); slash != std::string_view::npos) {
        const auto digits = entry.substr(slash + 1);
        if (std::from_chars(digits.data(), digits.data() + digits.size(), bits).ec != std::errc{})
            return false;
        entry = entry.substr(0, slash);
    }
    const auto network = parseIp(entry, host.family);
    if (!network) return false;
    const unsigned width = host.family == AF_INET ? 32 : 128;
    if (bits > width) return false;
    if (bits == 0) bits = width;
    for (unsigned i = 0; i < bits / 8; ++i) {
        if (host.bytes[i] != network->bytes[i]) return false;
    }
    if (const unsigned rest = bits % 8; rest != 0) {
        const auto mask = static_cast<unsigned char>(0xffu << (8 - rest));
        if ((host.bytes[bits / 8] & mask) != (network->bytes[bits / 8] & mask)) return false;
    }
    return true;
}

bool nameMatch(std::string_view host, std::string_view entry) {
    if (!entry.empty() && entry.back() == '.') entry.remove_suffix(1);
    if (!entry.empty() && entry.front() == '.') entry.remove_prefix(1);
    if (entry.empty()) return false;
    if (entry.size() == host.size()) return equalsIgnoreCase(entry, host);
    // A sub-domain: the entry is a suffix of the host right after a dot.
    return entry.size() < host.size() && host[host.size() - entry.size() - 1] == '.' &&
           equalsIgnoreCase(entry, host.substr(host.size() - entry.size()));
}

struct Entry {
    std::string_view host;
    std::optional<std::uint16_t> port;
    bool valid = true;
};

// Splits an optional port off an entry: `host:80`, `[::1]:80`; a bare IPv6 address has no port.
Entry splitPort(std::string_view token) {
    Entry entry{token, std::nullopt};
    std::string_view portText;
    if (token.front() == '[') {
        const auto close = token.find(']');
        if (close == std::string_view::npos) return Entry{token, std::nullopt, false};
        entry.host = token.substr(1, close - 1);
        const auto after = token.substr(close + 1);
        if (after.empty()) return entry;
        if (after.front() != ':') return Entry{token, std::nullopt, false};
        portText = after.substr(1);
    } else {
        const auto colon = token.find(':');
        if (colon == std::string_view::npos || token.find(':', colon + 1) != std::string_view::npos)
            return entry;
        entry.host = token.substr(0, colon);
        portText = token.substr(colon + 1);
    }
    unsigned port = 0;
    const auto [end, ec] = std::from_chars(portText.data(), portText.data() + portText.size(), port);
    if (ec != std::errc{} || end != portText.data() + portText.size() || port == 0 || port > 65535) {
        entry.valid = false;
        return entry;
    }
    entry.port = static_cast<std::uint16_t>(port);
    return entry;
}

}  // namespace

bool matchesNoProxy(std::string_view noProxy, std::string_view host, std::uint16_t port) {
    noProxy = trimWhitespace(noProxy);
    if (noProxy.empty() || host.empty()) return false;
    if (noProxy == "*") return true;

    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    HostKind kind = HostKind::name;
    std::optional<IpAddress> address;
    if ((address = parseIp(host, AF_INET))) {
        kind = HostKind::ipv4;
    } else if ((address = parseIp(host, AF_INET6))) {
        kind = HostKind::ipv6;
    } else if (host.back() == '.') {
        host.remove_suffix(1);
    }

    std::size_t pos = 0;
    while (pos < noProxy.size()) {
        const auto end = noProxy.find_first_of(", \t", pos);
        const auto token =
            noProxy.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
        pos = end == std::string_view::npos ? noProxy.size() : end + 1;
        if (token.empty()) continue;
        const Entry entry = splitPort(token);
        if (!entry.valid || (entry.port && *entry.port != port)) continue;
        const bool match =
            kind == HostKind::name ? nameMatch(host, entry.host) : cidrMatch(*address, entry.host);
        if (match) return true;
    }
    return false;
}

ProxySettings ProxySettings::fromEnvironment() {
    ProxySettings settings;
    const std::string all = environment("all_proxy", "ALL_PROXY");
    settings.httpProxy = environment("http_proxy", "HTTP_PROXY");
    settings.httpsProxy = environment("https_proxy", "HTTPS_PROXY");
    if (settings.httpProxy.empty()) settings.httpProxy = all;
    if (settings.httpsProxy.empty()) settings.httpsProxy = all;
    settings.noProxy = environment("no_proxy", "NO_PROXY");
    return settings;
}

std::string ProxySettings::proxyFor(std::string_view scheme, std::string_view host,
                                    std::uint16_t port) const {
    const std::string& proxy = equalsIgnoreCase(scheme, "https") ? httpsProxy : httpProxy;
    if (proxy.empty() || matchesNoProxy(noProxy, host, port)) return {};
    return proxy;
}

}  // namespace reagent::http
