#include "bare_http_loop.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

namespace bench {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;

asio::awaitable<void> pairs(int port, std::string target, std::string first, std::string second, int runs,
                            int& ok) {
    boost::beast::tcp_stream stream(co_await asio::this_coro::executor);
    const asio::ip::tcp::endpoint peer(asio::ip::make_address("127.0.0.1"),
                                       static_cast<unsigned short>(port));
    co_await stream.async_connect(peer, asio::use_awaitable);
    stream.socket().set_option(asio::ip::tcp::no_delay(true));
    boost::beast::flat_buffer buffer;
    const auto exchange = [&](const std::string& body) -> asio::awaitable<bool> {
        http::request<http::string_body> request(http::verb::post, target, 11);
        request.set(http::field::host, "127.0.0.1");
        request.set(http::field::content_type, "application/json");
        request.set(http::field::authorization, "Bearer bench");
        request.body() = body;
        request.prepare_payload();
        co_await http::async_write(stream, request, asio::use_awaitable);
        http::response<http::string_body> response;
        co_await http::async_read(stream, buffer, response, asio::use_awaitable);
        co_return response.result() == http::status::ok;
    };
    for (int i = 0; i < runs; ++i) {
        const bool a = co_await exchange(first);
        const bool b = co_await exchange(second);
        ok += a && b ? 1 : 0;
    }
}

}  // namespace

int bareExchangePairs(int port, const std::string& target, const std::string& first,
                      const std::string& second, int runs) {
    asio::io_context io;
    int ok = 0;
    asio::co_spawn(io, pairs(port, target, first, second, runs, ok), asio::detached);
    io.run();
    return ok;
}

}  // namespace bench
