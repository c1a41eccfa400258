#pragma once
// ByteStream: the non-template seam between the HTTP driver and the transports (plain TCP, TLS), so that
// Beast's and Asio's stream templates and OpenSSL are compiled in their own translation units only.

#include <boost/asio/buffer.hpp>
#include <boost/system/error_code.hpp>
#include <cstddef>

#include "reagent/core/task.hpp"

namespace reagent::http::detail {

struct IoResult {
    boost::system::error_code ec;
    std::size_t bytes = 0;
};

/// A connected byte stream. Operations honour Asio per-operation cancellation (they end with
/// `operation_aborted`). Deadlines are not its business: a `Watchdog` closes the stream, which ends the
/// pending operation. End of stream is reported as `asio::error::eof`.
class ByteStream {
  public:
    virtual ~ByteStream() = default;

    [[nodiscard]] virtual Task<IoResult> readSome(boost::asio::mutable_buffer buffer) = 0;
    /// Writes `head` then `body` whole, gathered into as few system calls as the kernel allows.
    [[nodiscard]] virtual Task<IoResult> writeAll(boost::asio::const_buffer head,
                                                  boost::asio::const_buffer body) = 0;
    /// For a pooled idle connection: false when the peer closed it or sent something unasked.
    [[nodiscard]] virtual bool idleUsable() = 0;
    /// Closes the socket now (no TLS close_notify: the peer sees the TCP close at once).
    virtual void close() noexcept = 0;
};

/// The idle check on a socket: nothing to read and not closed (a non-blocking MSG_PEEK).
[[nodiscard]] bool socketIdleUsable(int fd) noexcept;

}  // namespace reagent::http::detail
