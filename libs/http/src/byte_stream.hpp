#pragma once
// ByteStream: the non-template seam between the HTTP driver and the transports (plain TCP, TLS), so that
// Beast's stream templates and OpenSSL are compiled in their own translation units only.

#include <boost/asio/buffer.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <cstddef>
#include <vector>

#include "reagent/core/task.hpp"

namespace reagent::http::detail {

struct IoResult {
    boost::system::error_code ec;
    std::size_t bytes = 0;
};

/// A connected byte stream. Operations honour Asio per-operation cancellation (the socket op ends with
/// `operation_aborted`) and the deadline set by `expiresAt` (they end with `beast::error::timeout` and
/// the socket is closed). End of stream is reported as `asio::error::eof`.
class ByteStream {
  public:
    virtual ~ByteStream() = default;

    [[nodiscard]] virtual Task<IoResult> readSome(boost::asio::mutable_buffer buffer) = 0;
    [[nodiscard]] virtual Task<IoResult> writeAll(std::vector<boost::asio::const_buffer> buffers) = 0;
    /// Deadline of the operations started from now on.
    virtual void expiresAt(std::chrono::steady_clock::time_point deadline) = 0;
    virtual void expiresNever() = 0;
    /// For a pooled idle connection: false when the peer closed it or sent something unasked.
    [[nodiscard]] virtual bool idleUsable() = 0;
    /// Closes the socket now (no TLS close_notify: the peer sees the TCP close at once).
    virtual void close() noexcept = 0;
};

/// The idle check on a socket: nothing to read and not closed (a non-blocking MSG_PEEK).
[[nodiscard]] bool socketIdleUsable(int fd) noexcept;

}  // namespace reagent::http::detail
