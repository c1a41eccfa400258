#include "reagent/http/http_response_stream.hpp"

#include <boost/asio/this_coro.hpp>

#include "exchange.hpp"

namespace reagent::http {

namespace {

using detail::Exchange;

HttpError movedFrom() {
    return HttpError{HttpErrc::protocol_error, "HttpResponseStream used after it was moved from"};
}

bool cancellationRequested(boost::asio::cancellation_state state) {
    return state.cancelled() != boost::asio::cancellation_type::none;
}

// Once the awaiting coroutine is cancelled, Asio throws `operation_aborted` from its next `co_await`;
// these shells turn that into an error value and close the connection.
Task<expected<std::optional<std::string>, HttpError>> nextShell(std::shared_ptr<Exchange> exchange) {
    if (!exchange) co_return fail(movedFrom());
    std::exception_ptr error;
    try {
        co_return co_await detail::nextBody(exchange);
    } catch (...) {
        error = std::current_exception();
    }
    const auto state = co_await boost::asio::this_coro::cancellation_state;
    auto failure = detail::errorFromException(error, cancellationRequested(state), exchange->route->hostPort);
    exchange->abort(failure);
    co_return fail(std::move(failure));
}

Task<expected<std::string, HttpError>> readAllShell(std::shared_ptr<Exchange> exchange) {
    if (!exchange) co_return fail(movedFrom());
    std::exception_ptr error;
    try {
        co_return co_await detail::restOfBody(exchange);
    } catch (...) {
        error = std::current_exception();
    }
    const auto state = co_await boost::asio::this_coro::cancellation_state;
    auto failure = detail::errorFromException(error, cancellationRequested(state), exchange->route->hostPort);
    exchange->abort(failure);
    co_return fail(std::move(failure));
}

}  // namespace

HttpResponseStream::HttpResponseStream(std::shared_ptr<detail::Exchange> exchange)
    : exchange_(std::move(exchange)) {}
HttpResponseStream::HttpResponseStream(HttpResponseStream&&) noexcept = default;
HttpResponseStream& HttpResponseStream::operator=(HttpResponseStream&&) noexcept = default;

HttpResponseStream::~HttpResponseStream() {
    // An unfinished body leaves the connection in an unknown state: close it rather than pool it.
    if (exchange_ && !exchange_->finished) exchange_->abort(HttpError{HttpErrc::cancelled, "stream dropped"});
}

const HttpResponseHead& HttpResponseStream::head() const noexcept {
    static const HttpResponseHead kEmpty;
    return exchange_ ? exchange_->head : kEmpty;
}

Task<expected<std::optional<std::string>, HttpError>> HttpResponseStream::next() {
    return nextShell(exchange_);
}

Task<expected<std::string, HttpError>> HttpResponseStream::readAll() {
    return readAllShell(exchange_);
}

bool HttpResponseStream::done() const noexcept {
    return !exchange_ || exchange_->finished;
}

std::size_t HttpResponseStream::bodyBytes() const noexcept {
    return exchange_ ? static_cast<std::size_t>(exchange_->bodyBytes) : 0;
}

}  // namespace reagent::http
