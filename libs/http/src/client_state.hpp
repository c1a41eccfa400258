#pragma once
// ClientState: what an HttpClient shares with its pending requests and open response streams.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "connection_pool.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/http/http_client_config.hpp"
#include "reagent/http/http_error.hpp"
#include "request_target.hpp"

namespace reagent::http::detail {

class TlsContext;

/// Thread-safe: a client may be used from several threads and execution contexts at once.
class ClientState {
  public:
    explicit ClientState(HttpClientConfig config);
    ClientState(const ClientState&) = delete;
    ClientState& operator=(const ClientState&) = delete;
    /// Closes this client's idle connections in every execution context still alive.
    ~ClientState();

    /// The TLS settings, loaded on the first https request (the system store costs a few milliseconds).
    [[nodiscard]] expected<std::shared_ptr<TlsContext>, HttpError> tlsContext();
    /// The route of `url`, worked out on first use and remembered (URLs repeat: a provider has one).
    [[nodiscard]] expected<std::shared_ptr<const Route>, HttpError> route(const std::string& url);
    /// The idle connections of `executor`'s execution context; with `create` false, null when that
    /// context has none yet.
    [[nodiscard]] std::shared_ptr<ContextPools> pools(const Executor& executor, bool create);

    /// Idle connections of this client, over every context still alive.
    [[nodiscard]] std::size_t idleCount() const;
    /// Closes them.
    void closeIdle() noexcept;

    /// Distinguishes this client's connections in the contexts' pools.
    const std::uint64_t id;
    /// With `proxy` always set (read from the environment when it was not).
    const HttpClientConfig config;
    const PoolLimits limits;
    std::atomic<std::uint64_t> connectionsOpened{0};

  private:
    [[nodiscard]] std::vector<std::shared_ptr<ContextPools>> liveContexts() const;

    mutable std::mutex mutex_;
    std::shared_ptr<TlsContext> tls_;
    std::unordered_map<std::string, std::shared_ptr<const Route>> routes_;
    /// Every context this client pooled connections on.
    std::vector<std::weak_ptr<ContextPools>> contexts_;
};

}  // namespace reagent::http::detail
