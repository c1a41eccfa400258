#pragma once
// Exchange: one request/response on one connection, from the sent request to the end of the body.

#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "byte_stream.hpp"
#include "client_state.hpp"
#include "reagent/http/http_request.hpp"
#include "reagent/http/http_response.hpp"
#include "response_reader.hpp"

namespace reagent::http::detail {

struct Exchange {
    std::shared_ptr<ClientState> client;
    std::string poolKey;
    std::string hostPort;
    std::unique_ptr<ByteStream> stream;
    ResponseReader reader;
    HttpResponseHead head;
    std::chrono::steady_clock::time_point deadline;
    std::chrono::milliseconds timeout{0};
    bool finished = false;
    std::optional<HttpError> failure;

    /// The body is complete: the connection goes back to the pool when the server keeps it alive.
    void finish();
    /// Ends the exchange with `error`, closing the connection.
    void abort(HttpError error) noexcept;
};

/// Sends `request` and reads the response head, on a pooled connection or a new one; a pooled
/// connection that fails before any response byte is replaced once by a new one.
[[nodiscard]] Task<expected<std::shared_ptr<Exchange>, HttpError>> startExchange(
    std::shared_ptr<ClientState> client, HttpRequest request);

/// The next body bytes, or nullopt at the end of the body.
[[nodiscard]] Task<expected<std::optional<std::string>, HttpError>> nextBody(
    std::shared_ptr<Exchange> exchange);

/// The error for an exception that left the driver: a cancellation of the awaiting coroutine (Asio throws
/// `operation_aborted` from the next `co_await` once cancelled) or a broken invariant.
[[nodiscard]] HttpError errorFromException(std::exception_ptr error, bool cancelled, std::string_view where);

}  // namespace reagent::http::detail
