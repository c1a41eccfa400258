// The legacy HTTP+SSE transport (MCP 2024-11-05): one GET event stream carries every server message; its
// first `endpoint` event names the URL where the client POSTs its frames.
//
// Shape: `open` reads the stream until the endpoint arrives (bounded by `connectTimeout`), then hands it
// to a background reader in a TaskGroup that pushes each `message` event into a FrameQueue, which
// `receive` pops. The stream's end (or `close`, which cancels the reader) finishes the queue.

#include <boost/asio/this_coro.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "frame_queue.hpp"
#include "http_transport_support.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/core/task_group.hpp"
#include "reagent/core/timeout.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/http/http_request.hpp"
#include "reagent/mcp/remote_transports.hpp"
#include "reagent/mcp/transport.hpp"

namespace reagent::mcp {

namespace {

namespace asio = boost::asio;
namespace urls = boost::urls;
using detail::notOpenedError;
using detail::receiveFrame;

struct State : detail::HttpTransportState {
    using HttpTransportState::HttpTransportState;

    /// The event stream, from `open` until the reader takes it over.
    std::optional<http::HttpResponseStream> stream;
    http::SseParser parser;
    /// Where frames are POSTed (the `endpoint` event resolved against `config.url`); empty until it came.
    std::string endpoint;
};

using StatePtr = std::shared_ptr<State>;

[[nodiscard]] std::uint16_t effectivePort(const urls::url_view& url) {
    if (url.has_port()) {
        return url.port_number();
    }
    return url.scheme_id() == urls::scheme::https ? 443 : 80;
}

// The endpoint event's URL resolved against the stream's URL; only the same origin (scheme, host, port) is
// accepted, so a server cannot send the client's frames, and the user's headers, elsewhere.
[[nodiscard]] expected<std::string, McpError> resolveEndpoint(const State& s, std::string_view data) {
    const auto refuse = [&](const std::string& why) {
        return McpError{McpErrc::protocol_error, s.where + " announced an unusable endpoint: " + why};
    };
    const auto base = urls::parse_uri(s.config.url);
    const auto reference = urls::parse_uri_reference(data);
    if (!base || !reference) {
        return fail(refuse("'" + http::redactedUrl(data) + "' is not a URL"));
    }
    urls::url resolved;
    if (const auto result = urls::resolve(*base, *reference, resolved); !result) {
        return fail(refuse("'" + http::redactedUrl(data) + "' cannot be resolved against the server's URL"));
    }
    resolved.remove_fragment();
    const bool sameOrigin = resolved.scheme_id() == base->scheme_id() &&
                            http::equalsIgnoreCase(resolved.encoded_host(), base->encoded_host()) &&
                            effectivePort(resolved) == effectivePort(*base);
    if (!sameOrigin) {
        return fail(refuse(http::redactedUrl(resolved.buffer()) + " is not on the server's origin"));
    }
    return std::string(resolved.buffer());
}

// Hands a chunk's events on: `message` data is a frame, `endpoint` the POST URL (the first one counts).
[[nodiscard]] expected<void, McpError> consume(State& s, std::string_view chunk) {
    std::optional<McpError> refused;
    const auto onEvent = [&s, &refused](http::SseEvent event) {
        if (event.type == "endpoint") {
            if (s.endpoint.empty() && !refused) {
                auto endpoint = resolveEndpoint(s, event.data);
                if (endpoint) {
                    s.endpoint = std::move(*endpoint);
                } else {
                    refused = std::move(endpoint.error());
                }
            }
        } else if (event.type == "message" && !detail::isBlank(event.data)) {
            s.queue.push(std::move(event.data));
        }
    };
    auto fed = detail::feedEvents(s.parser, chunk, s.config.limits.maxMessageBytes, s.where, onEvent);
    if (!fed) {
        return fed;
    }
    if (refused) {
        return fail(std::move(*refused));
    }
    return {};
}

// GETs the stream and reads it until the endpoint event; leaves the stream in `s->stream`.
Task<expected<void, McpError>> connectStream(StatePtr s) {
    http::HttpRequest request;
    request.url = s->config.url;
    request.timeout = detail::kStreamDeadline;
    detail::addUserHeaders(request.headers, s->config);
    request.headers.set("Accept", std::string(detail::kEventStream));
    auto opened = co_await s->http.stream(std::move(request));
    if (!opened) {
        auto error = detail::fromHttpError(opened.error(), s->where);
        if (error.code != McpErrc::cancelled) {
            error.code = McpErrc::connect_failed;
        }
        co_return fail(std::move(error));
    }
    const http::HttpResponseHead head = opened->head();
    if (!head.ok()) {
        const std::string excerpt = co_await detail::bodyExcerpt(std::move(*opened));
        co_return fail(McpError{
            McpErrc::connect_failed,
            s->where + " refused the event stream: " + detail::describeStatus(head, excerpt, s->config)});
    }
    if (!detail::hasContentType(head, detail::kEventStream)) {
        const auto type = head.headers.find("Content-Type");
        co_return fail(
            McpError{McpErrc::connect_failed, s->where + " answered with content type '" +
                                                  std::string(type.value_or("none")) +
                                                  "', not an event stream (is it an SSE endpoint?)"});
    }
    s->stream.emplace(std::move(*opened));
    while (s->endpoint.empty()) {
        auto chunk = co_await s->stream->next();
        if (!chunk) {
            co_return fail(detail::fromHttpError(chunk.error(), s->where));
        }
        if (!*chunk) {
            co_return fail(McpError{McpErrc::connect_failed, s->where + " ended its event stream before "
                                                                        "announcing an endpoint"});
        }
        auto consumed = consume(*s, **chunk);
        if (!consumed) {
            co_return fail(std::move(consumed.error()));
        }
    }
    co_return expected<void, McpError>{};
}

/// Reads the stream until it ends: every `message` event is a frame.
Task<void> readStream(StatePtr s) {
    for (;;) {
        auto chunk = co_await s->stream->next();
        const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
        if (s->closed || cancelled) {
            co_return;
        }
        if (!chunk) {
            s->finish(McpError{McpErrc::connection_closed,
                               s->where + ": the event stream broke (" + chunk.error().message + ")"});
            co_return;
        }
        if (!*chunk) {
            s->finish(McpError{McpErrc::connection_closed, s->where + " ended its event stream"});
            co_return;
        }
        auto consumed = consume(*s, **chunk);
        if (!consumed) {
            s->finish(std::move(consumed.error()));
            co_return;
        }
    }
}

Task<expected<void, McpError>> openSession(StatePtr s) {
    const auto limit = s->config.connectTimeout;
    auto connected = co_await withTimeout(connectStream(s), limit);
    if (!connected) {
        const auto& error = connected.error();
        s->stream.reset();
        if (error.code == EffectErrc::cancelled) {
            co_return fail(McpError{McpErrc::cancelled, s->where + ": open cancelled"});
        }
        if (error.code == EffectErrc::timeout) {
            co_return fail(McpError{McpErrc::connect_failed, s->where + " announced no endpoint within " +
                                                                 std::to_string(limit.count()) +
                                                                 " ms (ServerConfig::connectTimeout)"});
        }
        co_return fail(McpError{McpErrc::connect_failed, s->where + ": " + error.message});
    }
    if (!*connected) {
        s->stream.reset();
        co_return fail(std::move(connected->error()));
    }
    s->readers.spawn(withCheckedCancellation(readStream(s)));
    co_return expected<void, McpError>{};
}

Task<expected<void, McpError>> postFrame(StatePtr s, std::string where, std::string frame) {
    if (!s || s->endpoint.empty()) {
        co_return fail(notOpenedError(where));
    }
    if (s->ended) {
        co_return fail(*s->ended);
    }
    http::HttpRequest request;
    request.method = "POST";
    request.url = s->endpoint;
    request.timeout = s->config.requestTimeout;
    detail::addUserHeaders(request.headers, s->config);
    request.headers.set("Content-Type", std::string(detail::kJson));
    request.headers.set("Accept", std::string(detail::kJson));
    request.body = std::move(frame);
    auto opened = co_await s->http.stream(std::move(request));
    if (!opened) {
        co_return fail(detail::fromHttpError(opened.error(), s->where));
    }
    const http::HttpResponseHead head = opened->head();
    const std::string excerpt = co_await detail::bodyExcerpt(std::move(*opened));
    if (head.ok()) {
        co_return expected<void, McpError>{};
    }
    const std::string status = detail::describeStatus(head, excerpt, s->config);
    if (head.status == 404) {
        // The endpoint (it names the session) is gone: the server forgot the session.
        auto error = McpError{McpErrc::session_expired,
                              s->where + " no longer knows the session (" + status + "); open a new one"};
        s->finish(error);
        co_return fail(std::move(error));
    }
    co_return fail(McpError{McpErrc::protocol_error, s->where + " refused a message: " + status});
}

Task<void> closeStream(StatePtr s) {
    if (!s || !s->beginClose("closed")) {
        co_return;
    }
    (void)co_await s->readers.join();
    s->stream.reset();
}

class SseTransport final : public Transport {
  public:
    explicit SseTransport(ServerConfig config) : config_(std::move(config)) {}
    SseTransport(const SseTransport&) = delete;
    SseTransport& operator=(const SseTransport&) = delete;

    ~SseTransport() override {
        if (state_) {
            state_->beginClose("destroyed");
        }
    }

    Task<expected<void, McpError>> open() override {
        if (state_) {
            co_return expected<void, McpError>{};
        }
        const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
        if (cancelled) {
            co_return fail(McpError{McpErrc::cancelled, label_ + ": open cancelled"});
        }
        const Executor executor = co_await asio::this_coro::executor;
        state_ = std::make_shared<State>(config_, executor);
        co_return co_await withCheckedCancellation(openSession(state_));
    }

    Task<expected<void, McpError>> send(std::string frame) override {
        return withCheckedCancellation(postFrame(state_, label_, std::move(frame)));
    }

    Task<expected<std::string, McpError>> receive() override { return receiveFrame(state_, label_); }

    Task<void> close() override { return withCheckedCancellation(closeStream(state_)); }

  private:
    ServerConfig config_;
    std::string label_ = detail::serverLabel(config_);
    std::shared_ptr<State> state_;
};

}  // namespace

std::unique_ptr<Transport> makeSseTransport(const ServerConfig& config) {
    return std::make_unique<SseTransport>(config);
}

}  // namespace reagent::mcp
