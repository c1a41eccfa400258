#include "reagent/providers/http_provider.hpp"

#include <utility>

#include <boost/asio/this_coro.hpp>

#include "reagent/core/retry.hpp"

namespace reagent::providers {

namespace {

namespace asio = boost::asio;

std::string withoutTrailingSlash(std::string url) {
    while (!url.empty() && url.back() == '/') {
        url.pop_back();
    }
    return url;
}

// Failures of the transport, in the provider's terms.
llm::ProviderError transportError(std::string_view provider, const http::HttpError& error) {
    llm::ProviderErrc code = llm::ProviderErrc::connection_failed;
    switch (error.code) {
        case http::HttpErrc::timeout: code = llm::ProviderErrc::timeout; break;
        case http::HttpErrc::cancelled: code = llm::ProviderErrc::cancelled; break;
        case http::HttpErrc::invalid_url:
        case http::HttpErrc::invalid_request: code = llm::ProviderErrc::configuration; break;
        default: break;
    }
    return llm::ProviderError{code, std::string(provider) + ": " + error.describe(), std::nullopt, {}, std::nullopt};
}

// Retried: what a later attempt may well not hit. Timeouts are not retried: a slow model would make the
// caller wait maxAttempts times the deadline.
RetryDecision decideRetry(const llm::ProviderError& error, bool deltaDelivered) {
    if (deltaDelivered) {
        return RetryDecision::stop();
    }
    switch (error.code) {
        case llm::ProviderErrc::rate_limited:
        case llm::ProviderErrc::server_error:
        case llm::ProviderErrc::connection_failed: break;
        default: return RetryDecision::stop();
    }
    if (error.retryAfter) {
        return RetryDecision::afterDelay(*error.retryAfter);
    }
    return RetryDecision::backoff();
}

}  // namespace

/// Everything one call's attempts share.
struct HttpProvider::Attempt {
    http::HttpRequest request;
    ToolNameMap names;
    std::function<void(const llm::StreamDelta&)> onDelta;
    bool streamed = false;
    bool deltaDelivered = false;
};

HttpProvider::HttpProvider(ProviderConfig config) : config_(std::move(config)) {
    if (config_.model.empty()) {
        config_.model = std::string(defaultModel(config_.kind));
    }
    config_.baseUrl = withoutTrailingSlash(config_.baseUrl.empty() ? std::string(defaultBaseUrl(config_.kind))
                                                                   : config_.baseUrl);
}

HttpProvider::~HttpProvider() = default;

std::string HttpProvider::url(const EncodedRequest& encoded) const {
    return config_.baseUrl + encoded.path;
}

Task<expected<llm::ModelReply, llm::ProviderError>> HttpProvider::complete(llm::ModelRequest request) {
    if (!client_) {
        // Providers are built before any executor exists: the client is made on the first call.
        http::HttpClientConfig httpConfig;
        httpConfig.connectTimeout = config_.connectTimeout;
        httpConfig.requestTimeout = config_.requestTimeout;
        httpConfig.caFile = config_.caFile;
        httpConfig.proxy = config_.proxy;
        auto executor = co_await asio::this_coro::executor;
        client_ = std::make_shared<http::HttpClient>(executor, std::move(httpConfig));
    }
    if (!request.temperature) {
        request.temperature = config_.temperature;
    }
    if (!request.maxTokens) {
        request.maxTokens = config_.maxTokens;
    }
    auto state = std::make_shared<Attempt>();
    state->streamed = config_.stream && static_cast<bool>(request.onDelta);
    state->onDelta = std::move(request.onDelta);

    CodecOptions options;
    options.model = config_.model;
    options.stream = state->streamed;
    EncodedRequest encoded = encode(request, options);

    state->request.method = "POST";
    state->request.url = url(encoded);
    state->request.headers.set("Content-Type", "application/json");
    state->request.headers.set("Accept", state->streamed ? "text/event-stream" : "application/json");
    authenticate(state->request.headers);
    for (const auto& field : config_.extraHeaders) {
        state->request.headers.set(field.name, field.value);
    }
    state->request.body = encoded.serialize();
    state->request.timeout = config_.requestTimeout;
    state->names = std::move(encoded.toolNames);

    // A plain lambda making a fresh coroutine per attempt; `state` keeps what they share alive.
    auto once = [this, state] { return attempt(state); };
    auto decide = [state](const llm::ProviderError& error, int) {
        return decideRetry(error, state->deltaDelivered);
    };
    co_return co_await retry(config_.retry, std::move(once), std::move(decide));
}

Task<expected<llm::ModelReply, llm::ProviderError>> HttpProvider::attempt(std::shared_ptr<Attempt> state) {
    if (state->streamed) {
        co_return co_await attemptStreamed(std::move(state));
    }
    http::HttpRequest request = state->request;
    auto response = co_await client_->send(std::move(request));
    if (!response) {
        co_return fail(transportError(name(), response.error()));
    }
    co_return decode(response->status, response->body, state->names, response->headers);
}

Task<expected<llm::ModelReply, llm::ProviderError>> HttpProvider::attemptStreamed(std::shared_ptr<Attempt> state) {
    http::HttpRequest request = state->request;
    auto stream = co_await client_->stream(std::move(request));
    if (!stream) {
        co_return fail(transportError(name(), stream.error()));
    }
    if (!stream->head().ok()) {
        // An error status carries a whole JSON error body, not a stream.
        auto body = co_await stream->readAll();
        if (!body) {
            co_return fail(transportError(name(), body.error()));
        }
        co_return decode(stream->head().status, *body, state->names, stream->head().headers);
    }
    std::unique_ptr<StreamDecoding> decoder = streamDecoder(state->names);
    for (;;) {
        auto chunk = co_await stream->next();
        if (!chunk) {
            co_return fail(transportError(name(), chunk.error()));
        }
        if (!*chunk) {
            break;
        }
        auto deltas = decoder->feed(**chunk);
        if (!deltas) {
            co_return fail(std::move(deltas.error()));
        }
        for (const llm::StreamDelta& delta : *deltas) {
            state->deltaDelivered = true;
            try {
                state->onDelta(delta);
            } catch (...) {
                // A subscriber must not be able to break the call.
            }
        }
    }
    co_return decoder->finish();
}

}  // namespace reagent::providers
