#pragma once
/// \file
/// \brief `HttpClient`: HTTP/1.1 and HTTPS requests with keep-alive pooling, proxies and deadlines.

#include <cstddef>
#include <cstdint>
#include <memory>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/http/http_client_config.hpp"
#include "reagent/http/http_error.hpp"
#include "reagent/http/http_request.hpp"
#include "reagent/http/http_response.hpp"
#include "reagent/http/http_response_stream.hpp"

namespace reagent::http {

namespace detail {
struct ClientState;
}

/// \brief An HTTP/1.1 client: `send` for whole responses, `stream` for bodies read as they arrive.
///
/// Connections are kept alive and reused per (scheme, host, port, proxy): one returns to the pool only
/// after a complete response the server did not close. A pooled connection that fails before any byte
/// of the response arrived is replaced once by a fresh connection, transparently; no other failure is
/// retried. HTTPS verifies the server against the system CA store plus `HttpClientConfig::caFile`, with
/// SNI and host name (or IP address) verification. Proxies follow `HttpClientConfig::proxy`.
///
/// \par Errors
/// Every failure comes back as an `HttpError` value; no exception escapes. An HTTP error status is not
/// a failure: the response carries it.
///
/// \par Cancellation
/// Asio per-operation cancellation of the awaiting coroutine (a terminal, partial or total signal, as
/// sent by `withTimeout`, a parallel group or `bind_cancellation_slot`) closes the connection at once
/// and the call returns `HttpErrc::cancelled`. One exception: an ongoing host name lookup
/// (`getaddrinfo`) cannot be interrupted, so a request cancelled while resolving returns when the lookup
/// ends.
///
/// \par Thread safety and lifetimes
/// Not thread-safe: construct, call and destroy it on one thread (its executor, or a strand). Several
/// requests may be in flight at once. Pending calls and open `HttpResponseStream`s keep the shared
/// state alive, so the client may be destroyed before them. A moved-from client may only be assigned to
/// or destroyed.
class HttpClient {
  public:
    /// \brief A client running its I/O on `executor`; reads the proxy environment now unless
    /// `config.proxy` is set.
    explicit HttpClient(Executor executor, HttpClientConfig config = {});
    HttpClient(HttpClient&&) noexcept;
    HttpClient& operator=(HttpClient&&) noexcept;
    HttpClient(const HttpClient&) = delete;
    HttpClient& operator=(const HttpClient&) = delete;
    ~HttpClient();

    /// \brief Sends `request` and reads the whole response.
    ///
    /// \par Errors
    /// `invalid_url`, `invalid_request`, `resolve_failed`, `connect_failed`, `proxy_failed`,
    /// `tls_failed`, `timeout`, `cancelled`, `connection_closed`, `protocol_error` (see `HttpErrc`).
    [[nodiscard]] Task<expected<HttpResponse, HttpError>> send(HttpRequest request);

    /// \brief Sends `request` and returns once the status line and headers have arrived; the body is then
    /// read with `HttpResponseStream::next` as it arrives (chunked, `Content-Length` or close-delimited).
    ///
    /// A caller that expects a 2xx can read an error body whole with `readAll`. Errors as `send`.
    [[nodiscard]] Task<expected<HttpResponseStream, HttpError>> stream(HttpRequest request);

    /// \brief Number of connections this client has opened (TCP connects that succeeded), for tests and
    /// benchmarks of connection reuse.
    [[nodiscard]] std::uint64_t connectionsOpened() const noexcept;

    /// \brief Number of idle connections waiting in the pool.
    [[nodiscard]] std::size_t idleConnections() const noexcept;

    /// \brief Closes every idle pooled connection.
    void closeIdleConnections() noexcept;

    /// \brief The settings in use (with the proxies resolved from the environment if they were unset).
    [[nodiscard]] const HttpClientConfig& config() const noexcept;

  private:
    std::shared_ptr<detail::ClientState> state_;
};

}  // namespace reagent::http
