#include "reagent/http/http_response_stream.hpp"

#include <boost/asio/this_coro.hpp>

#include "exchange.hpp"
#include "reagent/core/settle.hpp"

namespace reagent::http {

namespace {

using detail::Exchange;

HttpError movedFrom() {
    return HttpError{HttpErrc::protocol_error, "HttpResponseStream used after it was moved from"};
}

// Settled: a cancellation (Asio throws `operation_aborted` from the next `co_await`) or a broken
// invariant becomes an error value, and the connection is closed.
template <class T>
Task<expected<T, HttpError>> settled(std::shared_ptr<Exchange> exchange, Task<expected<T, HttpError>> step) {
    if (!exchange) co_return fail(movedFrom());  // `step` is dropped unstarted
    auto outcome = co_await settle(std::move(step));
    if (outcome) co_return std::move(*outcome);
    auto failure = detail::fromEffect(outcome.error(), exchange->route->hostPort);
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
    return settled(exchange_, detail::nextBody(exchange_));
}

Task<expected<std::string, HttpError>> HttpResponseStream::readAll() {
    return settled(exchange_, detail::restOfBody(exchange_));
}

bool HttpResponseStream::done() const noexcept {
    return !exchange_ || exchange_->finished;
}

std::size_t HttpResponseStream::bodyBytes() const noexcept {
    return exchange_ ? static_cast<std::size_t>(exchange_->bodyBytes) : 0;
}

}  // namespace reagent::http
