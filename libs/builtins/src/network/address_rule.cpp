#include "network/address_rule.hpp"

#include <charconv>

namespace reagent::builtins::detail {

namespace asio = boost::asio;

namespace {

using Bytes = std::array<std::uint8_t, 16>;

// IPv4 in its IPv4-mapped IPv6 form, so one table and one comparison serve both families.
Bytes uniform(const asio::ip::address& address) {
    if (address.is_v6()) return address.to_v6().to_bytes();
    const auto v4 = address.to_v4().to_bytes();
    Bytes bytes{};
    bytes[10] = 0xff;
    bytes[11] = 0xff;
    for (std::size_t i = 0; i < 4; ++i) bytes[12 + i] = v4[i];
    return bytes;
}

bool prefixMatches(const Bytes& a, const Bytes& b, unsigned prefix) {
    for (unsigned bit = 0; bit < prefix; bit += 8) {
        const unsigned take = prefix - bit >= 8 ? 8 : prefix - bit;
        const auto mask = static_cast<std::uint8_t>(0xff << (8 - take));
        if ((a[bit / 8] & mask) != (b[bit / 8] & mask)) return false;
    }
    return true;
}

struct Special {
    const char* range;
    const char* kind;
};

// Ranges that are not public unicast (RFC 6890 and its updates). IPv4 ones are checked in mapped form.
constexpr Special kV4[] = {
    {"0.0.0.0/8", "an unspecified ('this network') address (0.0.0.0/8)"},
    {"10.0.0.0/8", "a private address (10.0.0.0/8)"},
    {"100.64.0.0/10", "a shared (carrier-grade NAT) address (100.64.0.0/10)"},
    {"127.0.0.0/8", "a loopback address (127.0.0.0/8)"},
    {"169.254.0.0/16", "a link-local address (169.254.0.0/16, where cloud metadata services live)"},
    {"172.16.0.0/12", "a private address (172.16.0.0/12)"},
    {"192.0.0.0/24", "an IETF protocol assignment (192.0.0.0/24)"},
    {"192.0.2.0/24", "a documentation address (192.0.2.0/24)"},
    {"192.168.0.0/16", "a private address (192.168.0.0/16)"},
    {"198.18.0.0/15", "a benchmarking address (198.18.0.0/15)"},
    {"198.51.100.0/24", "a documentation address (198.51.100.0/24)"},
    {"203.0.113.0/24", "a documentation address (203.0.113.0/24)"},
    {"224.0.0.0/4", "a multicast address (224.0.0.0/4)"},
    {"240.0.0.0/4", "a reserved or broadcast address (240.0.0.0/4)"},
};

constexpr Special kV6[] = {
    {"::/128", "the unspecified address (::)"},
    {"::1/128", "the loopback address (::1)"},
    {"64:ff9b:1::/48", "a local-use NAT64 address (64:ff9b:1::/48)"},
    {"2001::/32", "a Teredo tunnel address (2001::/32)"},
    {"2001:db8::/32", "a documentation address (2001:db8::/32)"},
    {"fc00::/7", "a unique local address (fc00::/7)"},
    {"fe80::/10", "a link-local address (fe80::/10)"},
    {"fec0::/10", "a site-local address (fec0::/10)"},
    {"ff00::/8", "a multicast address (ff00::/8)"},
};

std::optional<std::string> kindIn(const Bytes& bytes, const Special* table, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) {
        // The tables are constants: a range that does not parse is a bug caught by the unit tests.
        const auto range = parseAddressRange(table[i].range);
        if (range && prefixMatches(bytes, range->bytes, range->prefix)) return std::string(table[i].kind);
    }
    return std::nullopt;
}

asio::ip::address v4At(const Bytes& bytes, std::size_t offset) {
    return asio::ip::address_v4(asio::ip::address_v4::bytes_type{bytes[offset], bytes[offset + 1],
                                                                 bytes[offset + 2], bytes[offset + 3]});
}

}  // namespace

bool AddressRange::contains(const asio::ip::address& address) const noexcept {
    return prefixMatches(uniform(address), bytes, prefix);
}

expected<AddressRange, std::string> parseAddressRange(std::string_view text) {
    const auto slash = text.find('/');
    const std::string host(text.substr(0, slash));
    boost::system::error_code ec;
    const auto address = asio::ip::make_address(host, ec);
    if (ec) return fail("'" + std::string(text) + "' is not an IP address or CIDR range");
    AddressRange range;
    range.bytes = uniform(address);
    const unsigned width = address.is_v4() ? 32 : 128;
    unsigned prefix = width;
    if (slash != std::string_view::npos) {
        const auto digits = text.substr(slash + 1);
        const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), prefix);
        if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size() || prefix > width)
            return fail("'" + std::string(text) + "' has a bad prefix length (0 to " + std::to_string(width) +
                        ")");
    }
    range.prefix = address.is_v4() ? prefix + 96 : prefix;
    return range;
}

std::optional<std::string> nonPublicKind(const asio::ip::address& address) {
    const Bytes bytes = uniform(address);
    static const AddressRange mapped = *parseAddressRange("::ffff:0:0/96");
    if (prefixMatches(bytes, mapped.bytes, mapped.prefix)) return kindIn(bytes, kV4, std::size(kV4));
    if (auto kind = kindIn(bytes, kV6, std::size(kV6))) return kind;
    // Addresses that carry an IPv4 address reach that address: judge it.
    static const AddressRange nat64 = *parseAddressRange("64:ff9b::/96");
    if (prefixMatches(bytes, nat64.bytes, nat64.prefix)) {
        if (auto inner = nonPublicKind(v4At(bytes, 12))) return "a NAT64 form of " + *inner;
        return std::nullopt;
    }
    static const AddressRange sixToFour = *parseAddressRange("2002::/16");
    if (prefixMatches(bytes, sixToFour.bytes, sixToFour.prefix)) {
        if (auto inner = nonPublicKind(v4At(bytes, 2))) return "a 6to4 form of " + *inner;
        return std::nullopt;
    }
    static const AddressRange global = *parseAddressRange("2000::/3");
    if (!prefixMatches(bytes, global.bytes, global.prefix))
        return std::string("a reserved IPv6 address (outside global unicast 2000::/3)");
    return std::nullopt;
}

std::optional<std::string> AddressRule::refusal(const asio::ip::address& address) const {
    if (allowPrivate_) return std::nullopt;
    auto kind = nonPublicKind(address);
    if (!kind) return std::nullopt;
    for (const auto& range : allowed_) {
        if (range.contains(address)) return std::nullopt;
    }
    return address.to_string() + " is " + *kind;
}

}  // namespace reagent::builtins::detail
