#pragma once
// Runs a test body against an in-process A2A server on 127.0.0.1, then stops the server gracefully.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <catch2/catch.hpp>

#include "reagent/a2a/client.hpp"
#include "reagent/a2a/server.hpp"

namespace reagent::a2a::test {

inline Task<expected<std::string, std::string>> echoRun(std::string prompt, ProgressSink progress) {
    progress("thinking about: " + prompt);
    co_return "echo: " + prompt;
}

inline Task<expected<std::string, std::string>> slowRun(std::string prompt, ProgressSink progress) {
    progress("working slowly");
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, std::chrono::seconds(20));
    co_await timer.async_wait(boost::asio::use_awaitable);
    co_return "late: " + prompt;
}

inline Task<expected<std::string, std::string>> failingRun(std::string, ProgressSink) {
    co_return fail(std::string("the model is unavailable"));
}

inline AgentCard testCard() {
    AgentCard card;
    card.name = "test-agent";
    card.description = "Echoes what it is told";
    card.skills.push_back(AgentSkill{"echo", "echo", "Echoes the message", {"test"}});
    return card;
}

/// Binds a server, serves it while `body(server)` runs, then cancels the server and checks it stopped.
/// `run`: a `RunFunction` or a `TracedRunFunction`.
template <class Run, class Body>
void withServer(Run run, ServerConfig config, Body body) {
    boost::asio::io_context io;
    auto server = Server::bind(io.get_executor(), std::move(config), testCard(), std::move(run));
    REQUIRE(server);
    boost::asio::cancellation_signal stop;
    bool stopped = false;
    boost::asio::co_spawn(
        io, server->run(),
        boost::asio::bind_cancellation_slot(stop.slot(), [&](std::exception_ptr) { stopped = true; }));
    std::exception_ptr error;
    boost::asio::co_spawn(io, body(*server), [&](std::exception_ptr e) {
        error = e;
        stop.emit(boost::asio::cancellation_type::terminal);
    });
    io.run();
    CHECK(stopped);
    if (error) {
        std::rethrow_exception(error);
    }
}

}  // namespace reagent::a2a::test
