#pragma once
// Exchange: one request/response on one connection, from the sent request to the end of the body.

#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "client_state.hpp"
#include "connection_pool.hpp"
#include "reagent/core/effect_error.hpp"
#include "reagent/http/http_request.hpp"
#include "reagent/http/http_response.hpp"
#include "watchdog.hpp"

namespace reagent::http::detail {

struct Exchange {
    Exchange() = default;
    Exchange(const Exchange&) = delete;
    Exchange& operator=(const Exchange&) = delete;
    ~Exchange();

    std::shared_ptr<ClientState> client;
    std::shared_ptr<const Route> route;
    /// Where the connection goes back when the body is complete (its execution context's pools).
    std::shared_ptr<ContextPools> pools;
    std::unique_ptr<Connection> connection;
    /// Closes the connection at the deadline, or when a body stalls past the read timeout.
    Watchdog watchdog;
    HttpResponseHead head;
    std::chrono::milliseconds timeout{0};
    std::uint64_t bodyBytes = 0;
    bool finished = false;
    /// The request could not be sent whole (the server answered early): the connection is not reused.
    bool writeFailed = false;
    std::optional<HttpError> failure;

    /// The body is complete: the connection goes back to the pool when the server keeps it alive.
    void finish();
    /// Ends the exchange with `error`, closing the connection.
    void abort(HttpError error) noexcept;
};

/// Sends `request` and reads the response head, on a pooled connection of the calling coroutine's
/// execution context or a new one; a pooled connection that fails before any response byte is replaced
/// once by a new one.
[[nodiscard]] Task<expected<std::shared_ptr<Exchange>, HttpError>> startExchange(
    std::shared_ptr<ClientState> client, HttpRequest request);

/// The next body bytes, or nullopt at the end of the body.
[[nodiscard]] Task<expected<std::optional<std::string>, HttpError>> nextBody(
    std::shared_ptr<Exchange> exchange);

/// The rest of the body, whole.
[[nodiscard]] Task<expected<std::string, HttpError>> restOfBody(std::shared_ptr<Exchange> exchange);

/// The error of an exchange step that ended without a result (see `settle`): a cancellation of the
/// awaiting coroutine, or an exception, which is a broken invariant.
[[nodiscard]] HttpError fromEffect(const reagent::EffectError& error, std::string_view where);

}  // namespace reagent::http::detail
