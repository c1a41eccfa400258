#pragma once
// Opening a connection for a request: TCP (to the server or the proxy), a CONNECT tunnel, TLS.

#include <chrono>
#include <memory>

#include "byte_stream.hpp"
#include "client_state.hpp"
#include "request_target.hpp"
#include "watchdog.hpp"

namespace reagent::http::detail {

/// A fresh connection along `route`, on `executor`. The TCP connect ends by
/// `HttpClientConfig::connectTimeout` or `deadline`, whichever is first; the tunnel and TLS handshake are
/// bounded by `watchdog` (the exchange's deadline; `timeout` is that limit, quoted in messages).
[[nodiscard]] Task<expected<std::unique_ptr<ByteStream>, HttpError>> openConnection(
    std::shared_ptr<ClientState> client, Executor executor, std::shared_ptr<const Route> route,
    Watchdog watchdog, std::chrono::steady_clock::time_point deadline, std::chrono::milliseconds timeout);

/// Maps a failed read or write to an error naming the activity (`"waiting for the response headers"`)
/// and `hostPort`; `expiry` says whether the watchdog closed the connection, and `timeout` and
/// `readTimeout` are the limits it enforces, quoted in messages.
[[nodiscard]] HttpError ioError(const boost::system::error_code& ec, std::string_view activity,
                                std::string_view hostPort, Watchdog::Expiry expiry,
                                std::chrono::milliseconds timeout, std::chrono::milliseconds readTimeout);

/// True for failures that mean a pooled connection had gone stale (closed or reset by the server).
[[nodiscard]] bool staleConnection(const boost::system::error_code& ec) noexcept;

}  // namespace reagent::http::detail
