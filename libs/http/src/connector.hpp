#pragma once
// Opening a connection for a request: TCP (to the server or the proxy), a CONNECT tunnel, TLS.

#include <chrono>
#include <memory>
#include <optional>

#include "byte_stream.hpp"
#include "client_state.hpp"
#include "request_target.hpp"

namespace reagent::http::detail {

/// A fresh connection ready for `target`'s requests. The connect phase ends by
/// `HttpClientConfig::connectTimeout` or `deadline`, whichever is first; the rest by `deadline`
/// (`timeout` is the request's limit, quoted in messages).
[[nodiscard]] Task<expected<std::unique_ptr<ByteStream>, HttpError>> openConnection(
    std::shared_ptr<ClientState> client, RequestTarget target, std::optional<ProxyEndpoint> proxy,
    std::chrono::steady_clock::time_point deadline, std::chrono::milliseconds timeout);

/// Maps a failed read or write to an error naming the activity (`"waiting for the response headers"`)
/// and `hostPort`.
[[nodiscard]] HttpError ioError(const boost::system::error_code& ec, std::string_view activity,
                                std::string_view hostPort, std::chrono::steady_clock::time_point deadline,
                                std::chrono::milliseconds timeout);

/// True for failures that mean a pooled connection had gone stale (closed or reset by the server).
[[nodiscard]] bool staleConnection(const boost::system::error_code& ec) noexcept;

}  // namespace reagent::http::detail
