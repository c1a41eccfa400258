#pragma once
// Internal to reagent: opens an acceptor on an endpoint and accepts its connections, the one way every
// server of the project listens (MCP over HTTP, A2A, the OAuth redirect catcher).

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/socket_base.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <functional>
#include <memory>

#include "reagent/core/task.hpp"

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

/// How long an accept loop waits after a failed accept before it tries again.
inline constexpr std::chrono::milliseconds kAcceptPause{50};

/// Accepts connections on `acceptor` and hands each to `onConnection` (called synchronously: it spawns
/// what serves the connection, and must not throw), until the awaiting coroutine is cancelled or the
/// acceptor is closed; then returns. Never throws.
///
/// A failed accept that is not the end (out of descriptors, memory or buffers, a connection reset before
/// it was taken) pauses `pause` before the next try: a connection that cannot be taken for want of a
/// descriptor keeps the acceptor readable, and trying again at once would spin the thread. The waiting
/// connections stay in the backlog meanwhile and are taken once descriptors are free.
[[nodiscard]] Task<void> acceptConnections(std::shared_ptr<boost::asio::ip::tcp::acceptor> acceptor,
                                           std::function<void(boost::asio::ip::tcp::socket)> onConnection,
                                           std::chrono::milliseconds pause = kAcceptPause);

}  // namespace reagent::detail
