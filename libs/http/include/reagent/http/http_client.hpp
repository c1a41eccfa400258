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
class ClientState;
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
/// \par Execution contexts
/// A call runs on the executor of the coroutine awaiting it; the client is bound to none. Idle
/// connections are kept per execution context (an `io_context`), by a service of that context: they
/// close when the context is destroyed, and a client used on two contexts keeps a pool in each.
///
/// \par Thread safety and lifetimes
/// Thread-safe: calls may come from several threads and execution contexts at once (each call, and the
/// stream it returns, stays on its own executor; on a context run by several threads, use a strand).
/// The client may be destroyed before or after the contexts it was used on; its idle connections close
/// with the first of the two. Pending calls and open `HttpResponseStream`s keep the shared state alive,
/// so the client may be destroyed before them. A moved-from client may only be assigned to or destroyed.
class HttpClient {
  public:
    /// \brief A client with these settings; reads the proxy environment now unless `config.proxy` is
    /// set.
    explicit HttpClient(HttpClientConfig config = {});
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

    /// \brief Number of idle connections waiting in this client's pools, over every execution context
    /// still alive.
    [[nodiscard]] std::size_t idleConnections() const;

    /// \brief Closes every idle pooled connection of this client, in every execution context.
    void closeIdleConnections() noexcept;

    /// \brief The settings in use (with the proxies resolved from the environment if they were unset).
    [[nodiscard]] const HttpClientConfig& config() const noexcept;

  private:
    std::shared_ptr<detail::ClientState> state_;
};

}  // namespace reagent::http
