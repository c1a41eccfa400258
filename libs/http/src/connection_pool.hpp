#pragma once
// ConnectionPool: idle keep-alive connections per (scheme, host, port, proxy).

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <string>

#include "byte_stream.hpp"

namespace reagent::http::detail {

class ConnectionPool {
  public:
    ConnectionPool(std::size_t maxIdlePerKey, std::chrono::milliseconds idleTimeout);

    /// The most recently used idle connection for `key` that still looks alive, or null. Connections
    /// idle past the timeout, closed by the peer or holding unasked bytes are dropped on the way.
    [[nodiscard]] std::unique_ptr<ByteStream> acquire(const std::string& key);
    /// Keeps `stream` for reuse; the oldest idle connection of `key` goes when there are too many.
    void release(const std::string& key, std::unique_ptr<ByteStream> stream);

    [[nodiscard]] std::size_t idleCount() const noexcept;
    void clear() noexcept;

  private:
    struct Idle {
        std::unique_ptr<ByteStream> stream;
        std::chrono::steady_clock::time_point since;
    };
    void prune(std::chrono::steady_clock::time_point now);

    std::size_t maxIdlePerKey_;
    std::chrono::milliseconds idleTimeout_;
    std::map<std::string, std::deque<Idle>> idle_;
};

}  // namespace reagent::http::detail
