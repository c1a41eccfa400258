// The accept loop every server runs (reagent/core/detail/listen.hpp): connections handed over, a pause
// instead of a spin when the process is out of descriptors, and an end on cancellation.

#include "reagent/core/detail/listen.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <catch2/catch.hpp>
#include <vector>

#include "descriptor_exhaustion.hpp"

namespace asio = boost::asio;
using asio::ip::tcp;
using namespace std::chrono_literals;

// Not under the sanitizers, whose vptr check needs a free descriptor (descriptor_exhaustion.hpp); the
// clang build runs it.
#if !defined(REAGENT_TEST_SANITIZED)
TEST_CASE("acceptConnections: out of descriptors it pauses, then accepts the waiting connections",
          "[core][listen]") {
    asio::io_context io;
    auto acceptor = std::make_shared<tcp::acceptor>(io);
    REQUIRE_FALSE(
        reagent::detail::listenOn(*acceptor, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)));
    std::vector<tcp::socket> accepted;
    std::function<void(tcp::socket)> take = [&accepted](tcp::socket socket) {
        accepted.push_back(std::move(socket));
    };
    asio::cancellation_signal stop;
    bool ended = false;
    asio::co_spawn(io, reagent::detail::acceptConnections(acceptor, take),
                   asio::bind_cancellation_slot(stop.slot(), [&](std::exception_ptr error) {
                       CHECK_FALSE(error);
                       ended = true;
                   }));
    io.poll();

    tcp::socket client(io);
    client.connect(acceptor->local_endpoint());
    {
        reagent::test::DescriptorExhaustion full;
        const auto cpuBefore = reagent::test::threadCpuTime();
        const auto wallBefore = std::chrono::steady_clock::now();
        io.run_for(300ms);
        const auto cpu = reagent::test::threadCpuTime() - cpuBefore;
        const auto wall = std::chrono::steady_clock::now() - wallBefore;
        INFO("CPU " << std::chrono::duration_cast<std::chrono::milliseconds>(cpu).count() << " ms in "
                    << std::chrono::duration_cast<std::chrono::milliseconds>(wall).count() << " ms");
        CHECK(cpu < wall / 10);
        CHECK(accepted.empty());
    }
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (accepted.empty() && std::chrono::steady_clock::now() < deadline) {
        io.run_for(10ms);
    }
    CHECK(accepted.size() == 1);

    stop.emit(asio::cancellation_type::terminal);
    io.run_for(5s);
    CHECK(ended);
    CHECK(acceptor->is_open());  // the loop ends; closing the acceptor is its owner's business
}

#endif

TEST_CASE("acceptConnections: closing the acceptor ends the loop", "[core][listen]") {
    asio::io_context io;
    auto acceptor = std::make_shared<tcp::acceptor>(io);
    REQUIRE_FALSE(
        reagent::detail::listenOn(*acceptor, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)));
    bool ended = false;
    asio::co_spawn(io, reagent::detail::acceptConnections(acceptor, [](tcp::socket) {}),
                   [&](std::exception_ptr error) {
                       CHECK_FALSE(error);
                       ended = true;
                   });
    io.poll();
    acceptor->close();
    io.run_for(5s);
    CHECK(ended);
}
