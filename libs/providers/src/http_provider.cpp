#include "reagent/providers/http_provider.hpp"

#include <algorithm>
#include <array>
#include <mutex>
#include <utility>
#include <vector>

#include "reagent/core/retry.hpp"

namespace reagent::providers {

namespace {

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

http::HttpClientConfig clientConfig(const ProviderConfig& config) {
    http::HttpClientConfig httpConfig;
    httpConfig.connectTimeout = config.connectTimeout;
    httpConfig.requestTimeout = config.requestTimeout;
    httpConfig.readTimeout = config.readTimeout;
    httpConfig.maxIdlePerHost = config.maxIdleConnections;
    httpConfig.caFile = config.caFile;
    httpConfig.proxy = config.proxy;
    return httpConfig;
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

/// What every request of a provider shares. Guarded: a provider may serve several threads.
struct HttpProvider::Caches {
    /// Agents of one provider rarely offer more than a few distinct tool lists.
    static constexpr std::size_t kToolLists = 4;

    struct ToolsEntry {
        llm::ToolList tools;
        std::shared_ptr<const EncodedTools> encoded;
    };

    /// The encoded tool lists seen last, most recent first.
    std::mutex toolsMutex;
    std::vector<ToolsEntry> tools;

    std::once_flag headersOnce;
    /// Not streamed, streamed (they differ in `Accept`).
    std::array<http::HttpHeaders, 2> headers;
};

HttpProvider::HttpProvider(ProviderConfig config)
    : config_(std::move(config)),
      client_(std::make_shared<http::HttpClient>(clientConfig(config_))),
      caches_(std::make_unique<Caches>()) {
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

std::shared_ptr<const EncodedTools> HttpProvider::encodedTools(const llm::ToolList& tools,
                                                               const CodecOptions& options) {
    auto& cache = *caches_;
    {
        const std::lock_guard lock(cache.toolsMutex);
        for (auto it = cache.tools.begin(); it != cache.tools.end(); ++it) {
            // Identity first (free); equal specs next (a tree comparison, far cheaper than encoding).
            if (!it->tools.sameAs(tools) && !(it->tools == tools)) {
                continue;
            }
            it->tools = tools;  // the next request of this run is then recognised by identity
            std::rotate(cache.tools.begin(), it, std::next(it));
            return cache.tools.front().encoded;
        }
    }
    auto encoded = std::make_shared<const EncodedTools>(encodeTools(tools, options));
    const std::lock_guard lock(cache.toolsMutex);
    cache.tools.insert(cache.tools.begin(), Caches::ToolsEntry{tools, encoded});
    if (cache.tools.size() > Caches::kToolLists) {
        cache.tools.pop_back();
    }
    return encoded;
}

const http::HttpHeaders& HttpProvider::headers(bool streamed) {
    auto& cache = *caches_;
    // Not in the constructor: `authenticate` is a hook of the derived class.
    std::call_once(cache.headersOnce, [this, &cache] {
        for (const bool stream : {false, true}) {
            http::HttpHeaders& fields = cache.headers[stream ? 1 : 0];
            fields.set("Content-Type", "application/json");
            fields.set("Accept", stream ? "text/event-stream" : "application/json");
            authenticate(fields);
            for (const auto& field : config_.extraHeaders) {
                fields.set(field.name, field.value);
            }
        }
    });
    return cache.headers[streamed ? 1 : 0];
}

Task<expected<llm::ModelReply, llm::ProviderError>> HttpProvider::complete(llm::ModelRequest request) {
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
    options.openAiMaxCompletionTokens = config_.openAiMaxCompletionTokens;
    options.geminiJsonSchemaParameters = config_.geminiJsonSchemaParameters;
    const auto tools = encodedTools(request.tools, options);
    EncodedRequest encoded = encode(request, options, *tools);

    state->request.method = "POST";
    state->request.url = url(encoded);
    state->request.headers = headers(state->streamed);
    state->request.body = std::move(encoded.body);
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
