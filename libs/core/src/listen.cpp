// The accept loop every server of the project runs (see reagent/core/detail/listen.hpp).

#include "reagent/core/detail/listen.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "reagent/core/cancellation.hpp"

namespace reagent::detail {

namespace asio = boost::asio;

Task<void> acceptConnections(std::shared_ptr<asio::ip::tcp::acceptor> acceptor,
                             std::function<void(asio::ip::tcp::socket)> onConnection,
                             std::chrono::milliseconds pause) {
    constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
    asio::steady_timer wait(acceptor->get_executor());
    // Checked before each await: a cancellation that came while nothing was pending (during
    // `onConnection`) is seen here, and no await after it throws.
    while (acceptor->is_open() && !isCancelled(co_await asio::this_coro::cancellation_state)) {
        auto [ec, socket] = co_await acceptor->async_accept(kTuple);
        if (ec == asio::error::operation_aborted || !acceptor->is_open() ||
            isCancelled(co_await asio::this_coro::cancellation_state)) {
            break;
        }
        if (!ec) {
            onConnection(std::move(socket));
            continue;
        }
        wait.expires_after(pause);
        (void)co_await wait.async_wait(kTuple);
    }
}

}  // namespace reagent::detail
