#pragma once
// Resolving and connecting TCP, and the plain (non-TLS) ByteStream over a TCP socket.

#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdint>
#include <string>

#include "byte_stream.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/http/http_error.hpp"

namespace reagent::http::detail {

class PlainStream final : public ByteStream {
  public:
    explicit PlainStream(boost::asio::ip::tcp::socket socket);

    [[nodiscard]] Task<IoResult> readSome(boost::asio::mutable_buffer buffer) override;
    [[nodiscard]] Task<IoResult> writeAll(boost::asio::const_buffer head,
                                          boost::asio::const_buffer body) override;
    [[nodiscard]] bool idleUsable() override;
    void close() noexcept override;

    /// Hands the socket on (to TLS, after a CONNECT tunnel).
    [[nodiscard]] boost::asio::ip::tcp::socket release();

  private:
    boost::asio::ip::tcp::socket socket_;
};

/// What a connect attempt is for, so that failures name the right party.
struct DialTarget {
    std::string host;
    std::uint16_t port = 0;
    /// True when dialling a proxy: failures are `proxy_failed`.
    bool proxy = false;
};

/// Resolves `target` and connects to the first address that answers, before `deadline`. `limit` is the
/// time limit that `deadline` stands for, quoted in timeout messages.
[[nodiscard]] Task<expected<boost::asio::ip::tcp::socket, HttpError>> connectTcp(
    Executor executor, DialTarget target, std::chrono::steady_clock::time_point deadline,
    std::chrono::milliseconds limit);

}  // namespace reagent::http::detail
