#pragma once
// Internal to reagent: opens an acceptor on an endpoint, the one way every server of the project listens
// (MCP over HTTP, A2A, the OAuth redirect catcher).

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/socket_base.hpp>
#include <boost/system/error_code.hpp>

namespace reagent::detail {

/// Opens `acceptor` on `endpoint` (address reuse on, the system's backlog) and listens; the first error,
/// or success. `acceptor` must be closed.
inline boost::system::error_code listenOn(boost::asio::ip::tcp::acceptor& acceptor,
                                          const boost::asio::ip::tcp::endpoint& endpoint) {
    boost::system::error_code ec;
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) {
        acceptor.set_option(boost::asio::socket_base::reuse_address(true), ec);
    }
    if (!ec) {
        acceptor.bind(endpoint, ec);
    }
    if (!ec) {
        acceptor.listen(boost::asio::socket_base::max_listen_connections, ec);
    }
    return ec;
}

}  // namespace reagent::detail
