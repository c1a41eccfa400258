#pragma once
/// \file
/// \brief `HttpResponseStream`: a response whose body is read piece by piece as it arrives.

#include <memory>
#include <optional>
#include <string>

#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/http/http_error.hpp"
#include "reagent/http/http_response.hpp"

namespace reagent::http {

namespace detail {
struct Exchange;
struct StreamAccess;
}  // namespace detail

/// \brief A response whose head has arrived and whose body is read with `next` (or `readAll`).
///
/// Bodies framed by `Content-Length`, chunked or delimited by the connection's close are all delivered
/// as the bytes arrive, without chunk framing. Once the body is complete the connection goes back to the
/// client's pool (if the server keeps it alive); destroying the stream earlier closes the connection.
/// The request's deadline keeps running while the body is read, and so does the read timeout
/// (`HttpClientConfig::readTimeout`: the longest wait for the next bytes).
///
/// \par Cancellation
/// Cancelling the coroutine that awaits `next` or `readAll` closes the connection at once; the call
/// returns `HttpErrc::cancelled` and the stream is finished.
///
/// \par Thread safety and lifetimes
/// Not thread-safe: use it on the executor of the call that opened it, one call at a time. It may
/// outlive the `HttpClient`, but not its execution context (it holds a connection, as a socket would):
/// destroy it before that context.
class HttpResponseStream {
  public:
    HttpResponseStream(HttpResponseStream&&) noexcept;
    HttpResponseStream& operator=(HttpResponseStream&&) noexcept;
    HttpResponseStream(const HttpResponseStream&) = delete;
    HttpResponseStream& operator=(const HttpResponseStream&) = delete;
    ~HttpResponseStream();

    /// \brief Status line and headers.
    [[nodiscard]] const HttpResponseHead& head() const noexcept;

    /// \brief The next body bytes as they arrive (never empty), or `std::nullopt` once the body is
    /// complete.
    ///
    /// \par Errors
    /// `connection_closed` (the server dropped the connection mid-body), `timeout` (the request's
    /// deadline, or no byte for the read timeout), `cancelled`, `protocol_error` (broken chunk framing).
    /// After an error the stream is finished.
    [[nodiscard]] Task<expected<std::optional<std::string>, HttpError>> next();

    /// \brief The rest of the body, read to its end (errors as `next`).
    [[nodiscard]] Task<expected<std::string, HttpError>> readAll();

    /// \brief True once the body is complete or an error ended the stream.
    [[nodiscard]] bool done() const noexcept;

    /// \brief Body bytes delivered so far.
    [[nodiscard]] std::size_t bodyBytes() const noexcept;

  private:
    friend struct detail::StreamAccess;
    explicit HttpResponseStream(std::shared_ptr<detail::Exchange> exchange);

    std::shared_ptr<detail::Exchange> exchange_;
};

}  // namespace reagent::http
