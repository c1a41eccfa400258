#include "reagent/http/http_client.hpp"

#include <boost/asio/this_coro.hpp>

#include "client_state.hpp"
#include "exchange.hpp"
#include "reagent/http/redacted_url.hpp"

namespace reagent::http {

namespace detail {

struct StreamAccess {
    static HttpResponseStream make(std::shared_ptr<Exchange> exchange) {
        return HttpResponseStream(std::move(exchange));
    }
};

}  // namespace detail

namespace {

using detail::ClientState;

// Once the awaiting coroutine is cancelled, Asio throws `operation_aborted` from its next `co_await`;
// these shells turn that (and anything unforeseen) into an error value.
bool cancellationRequested(boost::asio::cancellation_state state) {
    return state.cancelled() != boost::asio::cancellation_type::none;
}

Task<expected<HttpResponse, HttpError>> readWhole(std::shared_ptr<ClientState> client, HttpRequest request) {
    auto started = co_await detail::startExchange(std::move(client), std::move(request));
    if (!started) co_return fail(std::move(started.error()));
    const auto exchange = std::move(*started);
    HttpResponse response;
    static_cast<HttpResponseHead&>(response) = std::move(exchange->head);
    auto body = co_await detail::restOfBody(exchange);
    if (!body) co_return fail(std::move(body.error()));
    response.body = std::move(*body);
    co_return response;
}

Task<expected<HttpResponse, HttpError>> sendShell(std::shared_ptr<ClientState> client, HttpRequest request) {
    const std::string url = redactedUrl(request.url);
    std::exception_ptr error;
    try {
        co_return co_await readWhole(std::move(client), std::move(request));
    } catch (...) {
        error = std::current_exception();
    }
    const auto state = co_await boost::asio::this_coro::cancellation_state;
    co_return fail(detail::errorFromException(error, cancellationRequested(state), url));
}

Task<expected<HttpResponseStream, HttpError>> streamShell(std::shared_ptr<ClientState> client,
                                                          HttpRequest request) {
    const std::string url = redactedUrl(request.url);
    std::exception_ptr error;
    try {
        auto started = co_await detail::startExchange(std::move(client), std::move(request));
        if (!started) co_return fail(std::move(started.error()));
        co_return detail::StreamAccess::make(std::move(*started));
    } catch (...) {
        error = std::current_exception();
    }
    const auto state = co_await boost::asio::this_coro::cancellation_state;
    co_return fail(detail::errorFromException(error, cancellationRequested(state), url));
}

}  // namespace

HttpClient::HttpClient(HttpClientConfig config) : state_(std::make_shared<ClientState>(std::move(config))) {}

HttpClient::HttpClient(HttpClient&&) noexcept = default;
HttpClient& HttpClient::operator=(HttpClient&&) noexcept = default;
HttpClient::~HttpClient() = default;

Task<expected<HttpResponse, HttpError>> HttpClient::send(HttpRequest request) {
    return sendShell(state_, std::move(request));
}

Task<expected<HttpResponseStream, HttpError>> HttpClient::stream(HttpRequest request) {
    return streamShell(state_, std::move(request));
}

std::uint64_t HttpClient::connectionsOpened() const noexcept {
    return state_->connectionsOpened.load();
}

std::size_t HttpClient::idleConnections() const {
    return state_->idleCount();
}

void HttpClient::closeIdleConnections() noexcept {
    state_->closeIdle();
}

const HttpClientConfig& HttpClient::config() const noexcept {
    return state_->config;
}

}  // namespace reagent::http
