#include "reagent/providers/http_provider.hpp"

#include <algorithm>
#include <array>
#include <mutex>
#include <utility>
#include <vector>

#include "attempt_span.hpp"
#include "json_access.hpp"
#include "provider_exchange.hpp"
#include "rate_limiter.hpp"
#include "reagent/core/retry.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/http/trace_headers.hpp"
#include "reagent/llm/retry_notice.hpp"
#include "reagent/providers/provider_http_error.hpp"

namespace reagent::providers {

namespace {

llm::ProviderError emptyReply(std::string_view provider, llm::StopReason reason) {
    llm::ProviderError error;
    error.code = llm::ProviderErrc::empty_reply;
    error.message = std::string(provider) +
                    ": the model returned an empty reply (no text, no tool call; it " +
                    (reason == llm::StopReason::max_tokens
                         ? std::string("hit the token limit before writing anything: raise maxTokens")
                         : "stopped with " + std::string(llm::toString(reason))) +
                    ")";
    return error;
}

// An event or line longer than the limit: the server is not sending a model reply (or it is far larger
// than any reply should be). Not retried.
llm::ProviderError eventTooLarge(std::string_view provider, std::size_t limit) {
    return llm::ProviderError{llm::ProviderErrc::malformed_response,
                              std::string(provider) + ": one event of the streamed reply exceeds " +
                                  std::to_string(limit) +
                                  " bytes without ending; raise ProviderConfig::maxEventBytes if such large "
                                  "events are expected",
                              std::nullopt,
                              {},
                              std::nullopt};
}

}  // namespace

/// Everything one call's attempts share.
struct HttpProvider::Attempt {
    http::HttpRequest request;
    ToolNameMap names;
    std::function<void(const llm::StreamDelta&)> onDelta;
    std::function<void(const llm::RetryNotice&)> onRetry;
    bool streamed = false;
    bool deltaDelivered = false;
    // What the attempts that failed spent (a stream cut after its first event), added to the outcome.
    llm::Usage spent;
    std::function<void(const llm::ThrottleNotice&)> onThrottle;
    // The request's size in tokens for the rate limits: body bytes / 4, plus its reply limit.
    std::int64_t estimatedTokens = 0;
    // The call's span and the tracer its attempts' spans come from (null: not traced).
    SpanContext trace;
    telemetry::Tracer* tracer = nullptr;
    int attempts = 0;
    int status = 0;  // the last attempt's HTTP status, 0 when none came back
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
};

void HttpProvider::deliver(Attempt& state, const llm::StreamDelta& delta) {
    state.deltaDelivered = true;
    (void)settleCall(state.onDelta, delta);  // a subscriber must not be able to break the call
}

HttpProvider::HttpProvider(ProviderConfig config, WireFormat format)
    : config_(std::move(config)),
      format_(std::move(format)),
      client_(std::make_shared<http::HttpClient>(detail::clientConfig(config_))),
      caches_(std::make_unique<Caches>()),
      limiter_(std::make_unique<detail::RateLimiter>(config_.rateLimits)) {
    if (config_.model.empty()) {
        config_.model = format_.defaultModel;
    }
    config_.baseUrl =
        detail::withoutTrailingSlash(config_.baseUrl.empty() ? format_.defaultBaseUrl : config_.baseUrl);
    makeHeaders();
}

HttpProvider::~HttpProvider() = default;

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
    auto encoded = std::make_shared<const EncodedTools>(format_.encodeTools(tools, options));
    const std::lock_guard lock(cache.toolsMutex);
    cache.tools.insert(cache.tools.begin(), Caches::ToolsEntry{tools, encoded});
    if (cache.tools.size() > Caches::kToolLists) {
        cache.tools.pop_back();
    }
    return encoded;
}

void HttpProvider::makeHeaders() {
    for (const bool stream : {false, true}) {
        http::HttpHeaders& fields = headers_[stream ? 1 : 0];
        fields.set("Content-Type", "application/json");
        fields.set("Accept", stream ? "text/event-stream" : "application/json");
        format_.authenticate(fields, config_.apiKey);
        for (const auto& field : config_.extraHeaders) {
            fields.set(field.name, field.value);
        }
    }
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
    state->onRetry = std::move(request.onRetry);
    state->onThrottle = std::move(request.onThrottle);

    const CodecOptions options = codecOptions(state->streamed);
    if (auto refused = refusal(request, options)) {
        co_return fail(std::move(*refused));
    }
    const auto tools = encodedTools(request.tools, options);
    EncodedRequest encoded = format_.encodeRequest(request, options, *tools);

    state->request.method = "POST";
    state->request.url = joinUrl(config_.baseUrl, encoded.path);
    state->request.headers = headers_[state->streamed ? 1 : 0];
    // The API's own tracing (and a proxy's) continues the caller's trace (each attempt's span: attempt()).
    state->trace = request.trace;
    state->tracer = request.tracer;
    state->request.body = std::move(encoded.body);
    state->request.timeout = config_.requestTimeout;
    state->names = std::move(encoded.toolNames);
    state->estimatedTokens =
        static_cast<std::int64_t>(state->request.body.size() / 4) + request.maxTokens.value_or(0);

    // A plain lambda making a fresh coroutine per attempt; `state` keeps what they share alive.
    auto once = [this, state] { return attempt(state); };
    auto decide = [state, policy = config_.retry, maxWait = config_.maxRetryWait](
                      const llm::ProviderError& error, int number) {
        return detail::decideRetry(error, state->deltaDelivered, policy, maxWait, number, state->onRetry);
    };
    auto outcome = co_await retry(config_.retry, std::move(once), std::move(decide));
    if (outcome) {
        outcome->usage += state->spent;
    } else {
        outcome.error().usage = state->spent;  // the last attempt's included
    }
    co_return outcome;
}

std::optional<llm::ProviderError> HttpProvider::refusal(const llm::ModelRequest& request,
                                                        const CodecOptions& options) const {
    if (format_.refuse == nullptr) {
        return std::nullopt;
    }
    auto refused = format_.refuse(request, options);
    if (!refused) {
        return std::nullopt;
    }
    llm::ProviderError error;
    error.code = llm::ProviderErrc::invalid_request;
    error.message = std::move(*refused);
    return error;
}

CodecOptions HttpProvider::codecOptions(bool stream) const {
    CodecOptions options;
    options.model = config_.model;
    options.stream = stream;
    options.openAiMaxCompletionTokens = config_.openAiMaxCompletionTokens;
    options.geminiJsonSchemaParameters = config_.geminiJsonSchemaParameters;
    options.nativeOutput = config_.nativeOutput;
    options.promptCaching = config_.promptCaching;
    options.promptCacheKey = config_.promptCacheKey;
    return options;
}

Task<expected<std::int64_t, llm::ProviderError>> HttpProvider::countTokens(llm::ModelRequest request) {
    if (format_.encodeCount == nullptr || format_.decodeCount == nullptr) {
        auto unsupported = llm::Provider::countTokens(std::move(request));  // says the API has none
        co_return co_await std::move(unsupported);
    }
    const CodecOptions options = codecOptions(false);
    if (auto refused = refusal(request, options)) {
        co_return fail(std::move(*refused));
    }
    const auto tools = encodedTools(request.tools, options);
    EncodedRequest encoded = format_.encodeCount(request, options, *tools);
    auto exchange = std::make_shared<http::HttpRequest>();
    exchange->method = "POST";
    exchange->url = joinUrl(config_.baseUrl, encoded.path);
    exchange->headers = headers_[0];
    exchange->body = std::move(encoded.body);
    exchange->timeout = config_.requestTimeout;
    auto counting =
        detail::exchangeWithRetries<std::int64_t>(client_, std::move(exchange), std::string(name()), config_,
                                                  format_.decodeCount, std::move(request.onRetry));
    co_return co_await std::move(counting);
}

Task<expected<llm::ModelReply, llm::ProviderError>> HttpProvider::attempt(std::shared_ptr<Attempt> state) {
    const bool limited = limiter_->active();
    if (limited && !limiter_->tryAcquire(state->estimatedTokens) &&
        !co_await limiter_->acquire(state->estimatedTokens, state->onThrottle)) {
        llm::ProviderError error;
        error.code = llm::ProviderErrc::cancelled;
        error.message = std::string(name()) + ": cancelled while waiting for the provider's rate limits";
        co_return fail(std::move(error));
    }
    detail::AttemptSpan span(state->tracer, state->trace, state->request, state->attempts++);
    state->status = 0;
    auto task = state->streamed ? attemptStreamed(state) : attemptWhole(state);
    auto outcome = co_await std::move(task);
    span.end(state->status, outcome ? nullptr : &outcome.error());
    if (limited) {
        const auto& usage = outcome ? outcome->usage : outcome.error().usage;
        limiter_->release(state->estimatedTokens, usage.total());
        // A 429, or a 503/529 (overloaded) that says when to come back: every request of the provider
        // waits, not only the one that was refused.
        if (!outcome && outcome.error().retryAfter &&
            (outcome.error().code == llm::ProviderErrc::rate_limited ||
             outcome.error().code == llm::ProviderErrc::server_error)) {
            limiter_->holdFor(*outcome.error().retryAfter);
        }
    }
    if (outcome && outcome->text.empty() && outcome->toolCalls.empty()) {
        // Counting nothing as an answer would end a run with an empty answer that looks like success.
        outcome = fail(emptyReply(name(), outcome->stopReason));
    }
    if (!outcome) {
        state->spent += outcome.error().usage;
        // A provider's message may echo the key it was sent (some proxies and servers do).
        detail::maskSecret(outcome.error().message, config_.apiKey);
        detail::capRetryWait(outcome.error(), config_.maxRetryWait);
    }
    co_return outcome;
}

Task<expected<llm::ModelReply, llm::ProviderError>> HttpProvider::attemptWhole(
    std::shared_ptr<Attempt> state) {
    http::HttpRequest request = state->request;
    auto response = co_await client_->send(std::move(request));
    if (!response) {
        co_return fail(detail::transportError(name(), response.error()));
    }
    state->status = response->status;
    limiter_->observe(response->headers);
    co_return format_.decodeReply(response->status, response->body, state->names, response->headers);
}

Task<expected<llm::ModelReply, llm::ProviderError>> HttpProvider::attemptStreamed(
    std::shared_ptr<Attempt> state) {
    http::HttpRequest request = state->request;
    auto stream = co_await client_->stream(std::move(request));
    if (!stream) {
        co_return fail(detail::transportError(name(), stream.error()));
    }
    state->status = stream->head().status;
    limiter_->observe(stream->head().headers);
    if (!stream->head().ok()) {
        // An error status carries a whole JSON error body, not a stream.
        auto body = co_await stream->readAll();
        if (!body) {
            co_return fail(detail::transportError(name(), body.error()));
        }
        co_return format_.decodeReply(stream->head().status, *body, state->names, stream->head().headers);
    }
    std::unique_ptr<StreamDecoding> decoder = format_.streamDecoder(state->names);
    // The body while no event has been seen: all of it when it is no stream (bounded by maxResponseBytes).
    std::string unframed;
    for (;;) {
        auto chunk = co_await stream->next();
        if (!chunk) {
            // Cut (or cancelled) mid-way: what the stream said it spent so far was spent.
            auto error = detail::transportError(name(), chunk.error());
            error.usage = decoder->usageSoFar();
            co_return fail(std::move(error));
        }
        if (!*chunk) {
            break;
        }
        if (decoder->framesSeen() == 0) {
            unframed += **chunk;
        }
        auto deltas = decoder->feed(**chunk);
        if (!deltas) {
            co_return fail(std::move(deltas.error()));
        }
        if (config_.maxEventBytes != 0 && decoder->pendingBytes() > config_.maxEventBytes) {
            auto error = eventTooLarge(name(), config_.maxEventBytes);
            error.usage = decoder->usageSoFar();
            co_return fail(std::move(error));
        }
        if (decoder->framesSeen() != 0 && !unframed.empty()) {
            std::string().swap(unframed);
        }
        for (const llm::StreamDelta& delta : *deltas) {
            deliver(*state, delta);
        }
    }
    auto reply = decoder->finish();
    if (reply || decoder->framesSeen() != 0 || unframed.empty()) {
        co_return reply;
    }
    const auto& head = stream->head();
    const auto contentType = head.headers.find("content-type");
    if (contentType && contentType->find("json") != std::string_view::npos) {
        // A server that ignores `stream` answers with the whole reply: take it as such.
        auto whole = format_.decodeReply(head.status, unframed, state->names, head.headers);
        if (whole) {
            if (!whole->text.empty()) {
                llm::StreamDelta text;
                text.text = whole->text;
                deliver(*state, text);
            }
            co_return whole;
        }
    }
    // Not an event stream (an HTML page, invalid JSON): say what came back; not retried.
    co_return fail(malformedResponse(
        name(), "HTTP " + std::to_string(head.status) + " (" +
                    (contentType ? "content-type " + detail::excerpt(*contentType, 100)
                                 : std::string("no content-type")) +
                    ") to a streamed request is not a stream: " + detail::excerpt(unframed)));
}

expected<std::shared_ptr<llm::Provider>, llm::ProviderError> makeProvider(ProviderConfig config) {
    if (auto valid = validateConfig(config); !valid) {
        return fail(std::move(valid.error()));
    }
    const WireFormat& format = wire::forKind(config.kind);
    return std::make_shared<HttpProvider>(std::move(config), format);
}

expected<std::shared_ptr<llm::Provider>, llm::ProviderError> makeProvider(ProviderConfig config,
                                                                          WireFormat format) {
    if (!format.encodeTools || !format.encodeRequest || !format.decodeReply || !format.streamDecoder ||
        !format.authenticate) {
        return fail(configurationError(format.name + ": the wire format lacks one of its functions"));
    }
    const std::string& url = config.baseUrl.empty() ? format.defaultBaseUrl : config.baseUrl;
    if (auto valid = validateBaseUrl(format.name, url); !valid) {
        return fail(std::move(valid.error()));
    }
    return std::make_shared<HttpProvider>(std::move(config), std::move(format));
}

}  // namespace reagent::providers
