#pragma once
// Resolving and connecting TCP, and the plain (non-TLS) ByteStream over a Beast tcp_stream.

#include <boost/beast/core/tcp_stream.hpp>
#include <chrono>
#include <cstdint>
#include <string>

#include "byte_stream.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/http/http_error.hpp"

namespace reagent::http::detail {

class PlainStream final : public ByteStream {
  public:
    explicit PlainStream(boost::beast::tcp_stream stream);

    [[nodiscard]] Task<IoResult> readSome(boost::asio::mutable_buffer buffer) override;
    [[nodiscard]] Task<IoResult> writeAll(std::vector<boost::asio::const_buffer> buffers) override;
    void expiresAt(std::chrono::steady_clock::time_point deadline) override;
    void expiresNever() override;
    [[nodiscard]] bool idleUsable() override;
    void close() noexcept override;

    /// Hands the TCP stream on (to TLS, after a CONNECT tunnel).
    [[nodiscard]] boost::beast::tcp_stream release();

  private:
    boost::beast::tcp_stream stream_;
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
[[nodiscard]] Task<expected<boost::beast::tcp_stream, HttpError>> connectTcp(
    Executor executor, DialTarget target, std::chrono::steady_clock::time_point deadline,
    std::chrono::milliseconds limit);

}  // namespace reagent::http::detail
