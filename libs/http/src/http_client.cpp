#include "reagent/http/http_client.hpp"

#include <boost/asio/this_coro.hpp>

#include "client_state.hpp"
#include "exchange.hpp"
#include "reagent/core/settle.hpp"
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

Task<expected<HttpResponseStream, HttpError>> startStream(std::shared_ptr<ClientState> client,
                                                          HttpRequest request) {
    auto started = co_await detail::startExchange(std::move(client), std::move(request));
    if (!started) co_return fail(std::move(started.error()));
    co_return detail::StreamAccess::make(std::move(*started));
}

// Settled: a cancellation (Asio throws `operation_aborted` from the next `co_await`) or a broken
// invariant becomes an error value naming the request.
template <class T>
Task<expected<T, HttpError>> settled(Task<expected<T, HttpError>> task, std::string url) {
    auto outcome = co_await settle(std::move(task));
    if (!outcome) co_return fail(detail::fromEffect(outcome.error(), url));
    co_return std::move(*outcome);
}

}  // namespace

HttpClient::HttpClient(HttpClientConfig config) : state_(std::make_shared<ClientState>(std::move(config))) {}

HttpClient::HttpClient(HttpClient&&) noexcept = default;
HttpClient& HttpClient::operator=(HttpClient&&) noexcept = default;
HttpClient::~HttpClient() = default;

Task<expected<HttpResponse, HttpError>> HttpClient::send(HttpRequest request) {
    std::string url = redactedUrl(request.url);
    return settled(readWhole(state_, std::move(request)), std::move(url));
}

Task<expected<HttpResponseStream, HttpError>> HttpClient::stream(HttpRequest request) {
    std::string url = redactedUrl(request.url);
    return settled(startStream(state_, std::move(request)), std::move(url));
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
