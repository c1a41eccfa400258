// The network rule of http-get: which addresses count as non-public, and the user's exceptions.

#include "network/address_rule.hpp"

#include <catch2/catch.hpp>

using namespace reagent::builtins::detail;
using boost::asio::ip::make_address;

TEST_CASE("Non-public addresses are named, public ones pass", "[builtins][address]") {
    const std::vector<std::pair<const char*, const char*>> refused{
        {"0.0.0.0", "unspecified"},
        {"10.20.30.40", "private address (10.0.0.0/8)"},
        {"100.64.0.1", "carrier-grade NAT"},
        {"100.127.255.255", "carrier-grade NAT"},
        {"127.0.0.1", "loopback"},
        {"127.255.255.254", "loopback"},
        {"169.254.169.254", "link-local"},
        {"172.16.0.1", "private address (172.16.0.0/12)"},
        {"172.31.255.255", "private address (172.16.0.0/12)"},
        {"192.168.0.1", "private address (192.168.0.0/16)"},
        {"192.0.2.1", "documentation"},
        {"198.18.0.1", "benchmarking"},
        {"224.0.0.1", "multicast"},
        {"255.255.255.255", "broadcast"},
        {"::", "unspecified"},
        {"::1", "loopback"},
        {"::ffff:127.0.0.1", "loopback address (127.0.0.0/8)"},
        {"::ffff:10.0.0.1", "private"},
        {"::ffff:169.254.169.254", "link-local"},
        {"::127.0.0.1", "reserved IPv6"},
        {"64:ff9b::a00:1", "NAT64 form of a private"},
        {"2002:7f00:1::", "6to4 form of a loopback"},
        {"2001:db8::1", "documentation"},
        {"2001::1", "Teredo"},
        {"fc00::1", "unique local"},
        {"fd12:3456::1", "unique local"},
        {"fe80::1", "link-local address (fe80::/10)"},
        {"febf::1", "link-local address (fe80::/10)"},
        {"fec0::1", "site-local"},
        {"ff02::1", "multicast"},
        {"100::1", "reserved IPv6"},
    };
    for (const auto& [address, kind] : refused) {
        CAPTURE(address);
        const auto found = nonPublicKind(make_address(address));
        REQUIRE(found);
        CHECK(found->find(kind) != std::string::npos);
    }
    for (const char* address : {"8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.0", "172.15.255.255",
                                "172.32.0.0", "192.169.0.1", "169.253.0.1", "2606:4700:4700::1111",
                                "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::"}) {
        CAPTURE(address);
        CHECK_FALSE(nonPublicKind(make_address(address)));
    }
}

TEST_CASE("Address ranges parse as CIDR or single addresses", "[builtins][address]") {
    const auto net = parseAddressRange("10.1.0.0/16");
    REQUIRE(net);
    CHECK(net->contains(make_address("10.1.200.3")));
    CHECK(net->contains(make_address("::ffff:10.1.0.9")));
    CHECK_FALSE(net->contains(make_address("10.2.0.1")));

    const auto one = parseAddressRange("127.0.0.1");
    REQUIRE(one);
    CHECK(one->contains(make_address("127.0.0.1")));
    CHECK_FALSE(one->contains(make_address("127.0.0.2")));

    const auto v6 = parseAddressRange("fd00::/8");
    REQUIRE(v6);
    CHECK(v6->contains(make_address("fd00:1::5")));
    CHECK_FALSE(v6->contains(make_address("fe80::1")));

    const auto all = parseAddressRange("0.0.0.0/0");
    REQUIRE(all);
    CHECK(all->contains(make_address("192.168.1.1")));
    CHECK_FALSE(all->contains(make_address("::1")));

    for (const char* bad :
         {"", "10.0.0.0/33", "fd00::/129", "10.0.0.0/", "10.0.0.0/x", "example.com", "10.0.0/8"}) {
        CAPTURE(bad);
        const auto parsed = parseAddressRange(bad);
        REQUIRE_FALSE(parsed);
        CHECK(parsed.error().find(bad) != std::string::npos);
    }
}

TEST_CASE("The rule refuses non-public addresses unless allowed", "[builtins][address]") {
    const AddressRule strict(false, {});
    CHECK(strict.refusal(make_address("127.0.0.1")) == "127.0.0.1 is a loopback address (127.0.0.0/8)");
    CHECK_FALSE(strict.refusal(make_address("93.184.215.14")));

    const AddressRule some(false, {*parseAddressRange("192.168.1.0/24")});
    CHECK_FALSE(some.refusal(make_address("192.168.1.20")));
    CHECK(some.refusal(make_address("192.168.2.20")));
    CHECK(some.refusal(make_address("127.0.0.1")));

    const AddressRule open(true, {});
    CHECK_FALSE(open.refusal(make_address("127.0.0.1")));
    CHECK_FALSE(open.refusal(make_address("fe80::1")));
}
