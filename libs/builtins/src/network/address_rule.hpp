#pragma once
// The network rule of http-get: which IP addresses the tool may connect to (no I/O).

#include <array>
#include <boost/asio/ip/address.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reagent/core/expected.hpp"

namespace reagent::builtins::detail {

/// What `address` is when it is not a public unicast address ("a loopback address (127.0.0.0/8)"), or
/// nothing for a public one. IPv4-mapped IPv6 addresses (`::ffff:127.0.0.1`) are judged as the IPv4
/// address they carry, and so are the IPv4 addresses inside NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`)
/// addresses. Every IPv6 address outside global unicast (`2000::/3`) is refused, as are Teredo tunnels
/// and the documentation ranges.
[[nodiscard]] std::optional<std::string> nonPublicKind(const boost::asio::ip::address& address);

/// A CIDR range (`10.0.0.0/8`, `fd00::/8`) or one address, IPv4 stored in its IPv4-mapped IPv6 form.
struct AddressRange {
    std::array<std::uint8_t, 16> bytes{};
    unsigned prefix = 128;

    [[nodiscard]] bool contains(const boost::asio::ip::address& address) const noexcept;
};

/// Parses `"10.1.2.0/24"`, `"192.168.1.5"`, `"::1"`, `"fd00::/8"`; the error says what is wrong.
[[nodiscard]] expected<AddressRange, std::string> parseAddressRange(std::string_view text);

/// Which addresses http-get may reach: every public one, plus the private ones the user allowed.
class AddressRule {
  public:
    /// Everything allowed when `allowPrivate`; else public addresses and those within `allowed`.
    AddressRule(bool allowPrivate, std::vector<AddressRange> allowed)
        : allowPrivate_(allowPrivate), allowed_(std::move(allowed)) {}

    /// Why `address` is refused ("127.0.0.1 is a loopback address (127.0.0.0/8)"), or nothing.
    [[nodiscard]] std::optional<std::string> refusal(const boost::asio::ip::address& address) const;

  private:
    bool allowPrivate_;
    std::vector<AddressRange> allowed_;
};

}  // namespace reagent::builtins::detail
