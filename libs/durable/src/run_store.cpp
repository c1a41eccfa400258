#include "reagent/durable/run_store.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "reagent/core/settle.hpp"

namespace reagent::durable {

Task<expected<void, DurableError>> RunStore::release(Lease lease) {
    auto renewed = co_await renew(std::move(lease), std::chrono::milliseconds(1));
    if (!renewed) {
        co_return unexpected(std::move(renewed.error()));
    }
    co_return expected<void, DurableError>{};
}

Task<void> RunStore::waitForWork(std::chrono::milliseconds upTo) {
    namespace asio = boost::asio;
    // A cancelled caller stops waiting; checked, so that nothing is thrown.
    co_await withCheckedCancellation([](std::chrono::milliseconds upTo) -> Task<void> {
        asio::steady_timer timer(co_await asio::this_coro::executor, upTo);
        auto [ec] = co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
        (void)ec;
    }(upTo));
}

}  // namespace reagent::durable
