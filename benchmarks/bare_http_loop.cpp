#include "bare_http_loop.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <exception>

namespace bench {

namespace asio = boost::asio;
namespace http = boost::beast::http;

struct BareExchanges::State {
    asio::io_context io;
    boost::beast::tcp_stream stream{io};
    boost::beast::flat_buffer buffer;
    std::string target;
    std::string first;
    std::string second;
};

namespace {

asio::awaitable<bool> roundTrip(BareExchanges::State* state, const std::string* body) {
    http::request<http::string_body> request(http::verb::post, state->target, 11);
    request.set(http::field::host, "127.0.0.1");
    request.set(http::field::content_type, "application/json");
    request.set(http::field::authorization, "Bearer bench");
    request.body() = *body;
    request.prepare_payload();
    co_await http::async_write(state->stream, request, asio::use_awaitable);
    http::response<http::string_body> response;
    co_await http::async_read(state->stream, state->buffer, response, asio::use_awaitable);
    co_return response.result() == http::status::ok;
}

// `state` outlives the coroutine: pairs() runs the io_context until it ends.
asio::awaitable<int> pairsOn(BareExchanges::State* state, int count) {
    int ok = 0;
    for (int i = 0; i < count; ++i) {
        const bool a = co_await roundTrip(state, &state->first);
        const bool b = co_await roundTrip(state, &state->second);
        ok += a && b ? 1 : 0;
    }
    co_return ok;
}

}  // namespace

BareExchanges::BareExchanges(int port, std::string target, std::string first, std::string second)
    : state_(std::make_unique<State>()) {
    state_->target = std::move(target);
    state_->first = std::move(first);
    state_->second = std::move(second);
    state_->stream.connect(
        asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)));
    state_->stream.socket().set_option(asio::ip::tcp::no_delay(true));
}

BareExchanges::~BareExchanges() = default;

int BareExchanges::pairs(int count) {
    int ok = 0;
    std::exception_ptr failure;
    asio::co_spawn(state_->io, pairsOn(state_.get(), count), [&](std::exception_ptr error, int done) {
        failure = error;
        ok = done;
    });
    state_->io.run();
    state_->io.restart();
    if (failure) {
        std::rethrow_exception(failure);
    }
    return ok;
}

int bareExchangePairs(int port, const std::string& target, const std::string& first,
                      const std::string& second, int runs) {
    return BareExchanges(port, target, first, second).pairs(runs);
}

}  // namespace bench
