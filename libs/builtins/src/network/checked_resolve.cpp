#include "network/checked_resolve.hpp"

#include <algorithm>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace reagent::builtins::detail {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

tools::ToolError refused(const std::string& host, const std::string& why) {
    return tools::ToolError::failure(
        "http-get refused '" + host + "': " + why +
        ". This tool does not reach private, loopback, link-local or other non-public addresses (the user "
        "can allow them in the tool's options: allowPrivateNetwork or allowedPrivateRanges). Do not retry "
        "with another name or form of the same address.");
}

}  // namespace

Task<expected<std::vector<std::string>, tools::ToolError>> resolveChecked(
    std::string host, std::uint16_t port, std::shared_ptr<const AddressRule> rule,
    std::chrono::milliseconds timeout) {
    std::vector<asio::ip::address> addresses;
    boost::system::error_code literalError;
    const auto literal = asio::ip::make_address(host, literalError);
    if (!literalError) {
        addresses.push_back(literal);
    } else {
        const auto executor = co_await asio::this_coro::executor;
        auto resolver = std::make_shared<tcp::resolver>(executor);
        // Asio runs getaddrinfo on a thread of its own; the timer can only drop a late answer.
        asio::steady_timer watchdog(executor, timeout);
        watchdog.async_wait([resolver](boost::system::error_code ec) {
            if (!ec) resolver->cancel();
        });
        auto [ec, results] = co_await resolver->async_resolve(
            host, std::to_string(port), tcp::resolver::numeric_service, asio::as_tuple(asio::use_awaitable));
        const bool timedOut = watchdog.expiry() <= asio::steady_timer::clock_type::now();
        watchdog.cancel();
        if (ec && timedOut) {
            co_return fail(tools::ToolError::failure("looking up host '" + host + "' timed out after " +
                                                     std::to_string(timeout.count()) + " ms"));
        }
        if (ec) {
            co_return fail(tools::ToolError::failure("host '" + host + "' could not be resolved (" +
                                                     ec.message() + "); check the URL's spelling"));
        }
        for (const auto& entry : results) addresses.push_back(entry.endpoint().address());
    }
    std::vector<std::string> allowed;
    for (const auto& address : addresses) {
        // Every address is checked, not only the first: the connection may go to any of them.
        if (auto why = rule->refusal(address)) co_return fail(refused(host, *why));
        auto text = address.to_string();
        if (std::find(allowed.begin(), allowed.end(), text) == allowed.end())
            allowed.push_back(std::move(text));
    }
    if (allowed.empty()) co_return fail(tools::ToolError::failure("host '" + host + "' has no address"));
    co_return allowed;
}

}  // namespace reagent::builtins::detail
