#pragma once
// Idle keep-alive connections. They belong to the execution context their sockets run on: an Asio service
// of that context owns them, so they die with it, and a client used on two contexts keeps two pools.
// Within a context they are kept per client (settings such as TLS verification differ between clients)
// and per (scheme, host, port, proxy).

#include <boost/asio/execution_context.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "byte_stream.hpp"
#include "response_reader.hpp"

namespace reagent::http::detail {

/// One connection: the transport and its reader (whose input buffer is reused between exchanges).
struct Connection {
    explicit Connection(std::unique_ptr<ByteStream> transport) : stream(std::move(transport)) {}

    std::unique_ptr<ByteStream> stream;
    ResponseReader reader;
};

/// How much a client pools.
struct PoolLimits {
    /// Most idle connections per key; 0 disables pooling.
    std::size_t maxIdlePerKey = 4;
    /// How long a connection may stay idle.
    std::chrono::milliseconds idleTimeout{60'000};
};

/// One client's idle connections on one execution context.
class ConnectionPool {
  public:
    /// The most recently used idle connection for `key` that still looks alive, or null. Connections
    /// idle past the timeout, closed by the peer or holding unasked bytes are dropped on the way.
    [[nodiscard]] std::unique_ptr<Connection> acquire(std::string_view key, const PoolLimits& limits);
    /// Keeps `connection` for reuse; the oldest idle connection of `key` goes when there are too many.
    void release(const std::string& key, std::unique_ptr<Connection> connection, const PoolLimits& limits);

    [[nodiscard]] std::size_t idleCount() const noexcept;
    [[nodiscard]] bool empty() const noexcept { return idle_.empty(); }

  private:
    struct Idle {
        std::unique_ptr<Connection> connection;
        std::chrono::steady_clock::time_point since;
    };
    void prune(std::chrono::steady_clock::time_point now, std::chrono::milliseconds idleTimeout);

    std::map<std::string, std::deque<Idle>, std::less<>> idle_;
};

/// The idle connections of every client used on one execution context. The context's `PoolService`
/// owns it; clients hold it weakly, to close their own connections when they go first.
///
/// Thread-safe: a context may be run by several threads, and a client may be destroyed on any thread.
/// Connections are destroyed under the lock, so the context cannot finish its shutdown (and free its
/// reactor) while a client is closing connections on it.
class ContextPools {
  public:
    [[nodiscard]] std::unique_ptr<Connection> acquire(std::uint64_t client, std::string_view key,
                                                      const PoolLimits& limits);
    /// Pools `connection`, or closes it when the context is shutting down.
    void release(std::uint64_t client, const std::string& key, std::unique_ptr<Connection> connection,
                 const PoolLimits& limits);
    [[nodiscard]] std::size_t idleCount(std::uint64_t client) const;
    /// Closes the idle connections of `client`.
    void clear(std::uint64_t client) noexcept;
    /// The context shuts down: closes everything and pools nothing from now on.
    void close() noexcept;

  private:
    mutable std::mutex mutex_;
    bool closed_ = false;
    std::map<std::uint64_t, ConnectionPool> pools_;
};

/// The Asio service holding an execution context's `ContextPools`; its shutdown closes them while the
/// context's reactor still exists.
class PoolService final : public boost::asio::execution_context::service {
  public:
    static boost::asio::execution_context::id id;

    explicit PoolService(boost::asio::execution_context& context);
    ~PoolService() override;

    [[nodiscard]] const std::shared_ptr<ContextPools>& pools() const noexcept { return pools_; }

  private:
    void shutdown() override;

    std::shared_ptr<ContextPools> pools_;
};

}  // namespace reagent::http::detail
