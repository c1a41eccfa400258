#pragma once
// ClientState: what an HttpClient shares with its pending requests and open response streams.

#include <cstdint>
#include <memory>

#include "connection_pool.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/http/http_client_config.hpp"
#include "reagent/http/http_error.hpp"

namespace reagent::http::detail {

class TlsContext;

struct ClientState {
    ClientState(Executor executor, HttpClientConfig config);

    /// The TLS settings, loaded on the first https request (the system store costs a few milliseconds).
    [[nodiscard]] expected<std::shared_ptr<TlsContext>, HttpError> tlsContext();

    Executor executor;
    /// With `proxy` always set (read from the environment when it was not).
    HttpClientConfig config;
    ConnectionPool pool;
    std::uint64_t connectionsOpened = 0;
    std::shared_ptr<TlsContext> tls;
};

}  // namespace reagent::http::detail
