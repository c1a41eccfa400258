#pragma once
// What the two HTTP transports (streamable-http, sse) share: the HTTP client's settings, requests with the
// user's headers, HTTP errors as MCP errors, bounded reading of event streams and of error bodies.

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "frame_queue.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/expected.hpp"
#include "reagent/core/task.hpp"
#include "reagent/core/task_group.hpp"
#include "reagent/core/timeout.hpp"
#include "reagent/http/http_client.hpp"
#include "reagent/http/http_client_config.hpp"
#include "reagent/http/http_error.hpp"
#include "reagent/http/http_headers.hpp"
#include "reagent/http/http_response.hpp"
#include "reagent/http/http_response_stream.hpp"
#include "reagent/http/redacted_url.hpp"
#include "reagent/http/sse_parser.hpp"
#include "reagent/mcp/mcp_error.hpp"
#include "reagent/mcp/server_config.hpp"

namespace reagent::mcp::detail {

/// Deadline of one HTTP exchange whose body is an event stream: streams live as long as the session, so
/// the HTTP deadline only guards against a connection forgotten for a day. Requests have their own
/// limits in `Client`, and `close` cancels every stream.
inline constexpr std::chrono::hours kStreamDeadline{24};
/// Longest wait for the body of an error reply (its excerpt goes into the error).
inline constexpr std::chrono::milliseconds kExcerptTimeout{2000};
/// Bytes of an error reply quoted in the error.
inline constexpr std::size_t kExcerptBytes = 200;

inline constexpr std::string_view kJson = "application/json";
inline constexpr std::string_view kEventStream = "text/event-stream";

// Streams may stay silent for as long as the server has nothing to say, and their size is bounded per
// message by the transport (`limits.maxMessageBytes`), not per body.
[[nodiscard]] inline http::HttpClientConfig httpClientConfig(const ServerConfig& config) {
    http::HttpClientConfig http;
    http.connectTimeout = config.connectTimeout;
    http.requestTimeout = kStreamDeadline;
    http.readTimeout = std::chrono::milliseconds(0);
    http.maxBodyBytes = 0;
    return http;
}

/// `MCP server 'name' at http://host/path` (query values masked), the subject of every message.
[[nodiscard]] inline std::string serverLabel(const ServerConfig& config) {
    return "MCP server '" + config.name + "' at " + http::redactedUrl(config.url);
}

/// What a transport used before `open` (or after a failed one) answers.
[[nodiscard]] inline McpError notOpenedError(const std::string& where) {
    return McpError{McpErrc::connection_closed, where + ": the transport is not open (call open first)"};
}

/// What both HTTP transports keep of a connection, shared by the transport and its background readers.
struct HttpTransportState {
    HttpTransportState(const ServerConfig& cfg, const Executor& ex)
        : config(cfg), http(httpClientConfig(cfg)), queue(ex), readers(ex), where(serverLabel(cfg)) {}

    ServerConfig config;
    http::HttpClient http;
    FrameQueue queue;
    TaskGroup readers;
    /// `MCP server 'name' at <url>`, for messages.
    std::string where;
    bool closed = false;
    /// Why the transport is finished (what `send` returns from then on).
    std::optional<McpError> ended;

    /// Finishes the transport with `error` (the first error wins).
    void finish(McpError error) {
        if (!ended) {
            ended = error;
        }
        queue.finish(std::move(error));
    }

    /// The first steps of `close` (`how` is "closed") and of the transport's destruction ("destroyed"):
    /// marks the transport closed, finishes it and cancels the readers, which `close` then joins (they
    /// hold the state until they end). False when it was closed already.
    bool beginClose(std::string_view how) {
        if (closed) {
            return false;
        }
        closed = true;
        finish(McpError{McpErrc::connection_closed, where + ": the transport was " + std::string(how)});
        readers.cancel();
        return true;
    }
};

/// `Transport::receive` of both HTTP transports. It holds the state while it waits, so that a transport
/// destroyed meanwhile leaves nothing dangling; `StatePtr` points to a state with a `FrameQueue queue`.
template <class StatePtr>
Task<expected<std::string, McpError>> receiveFrame(StatePtr s, std::string where) {
    if (!s) {
        co_return unexpected(notOpenedError(where));
    }
    const bool cancelled = isCancelled(co_await boost::asio::this_coro::cancellation_state);
    if (cancelled) {
        co_return unexpected(McpError{McpErrc::cancelled, where + ": receive cancelled"});
    }
    co_return co_await s->queue.pop();
}

// The user's headers (credentials: their values never go into a message).
inline void addUserHeaders(http::HttpHeaders& headers, const ServerConfig& config) {
    for (const auto& [name, value] : config.headers) {
        headers.set(name, value);
    }
}

[[nodiscard]] inline bool isBlank(std::string_view text) noexcept {
    return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

/// True when the reply's `Content-Type` is `mime` (parameters such as `; charset=utf-8` ignored).
[[nodiscard]] inline bool hasContentType(const http::HttpResponseHead& head, std::string_view mime) {
    const auto type = head.headers.find("Content-Type");
    if (!type) {
        return false;
    }
    std::string_view value = type->substr(0, type->find(';'));
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) {
        value.remove_suffix(1);
    }
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
        value.remove_prefix(1);
    }
    return http::equalsIgnoreCase(value, mime);
}

/// An HTTP failure as the MCP error of `where`: unreachable servers are `connect_failed`, a cancelled
/// exchange `cancelled`, a broken or lost connection `connection_closed`.
[[nodiscard]] inline McpError fromHttpError(const http::HttpError& error, const std::string& where) {
    using http::HttpErrc;
    switch (error.code) {
        case HttpErrc::cancelled:
            return McpError{McpErrc::cancelled, where + ": cancelled"};
        case HttpErrc::invalid_url:
        case HttpErrc::invalid_request:
            return McpError{McpErrc::invalid_config, where + ": " + error.message};
        case HttpErrc::resolve_failed:
        case HttpErrc::connect_failed:
        case HttpErrc::proxy_failed:
        case HttpErrc::tls_failed:
            return McpError{McpErrc::connect_failed, where + " cannot be reached: " + error.message};
        case HttpErrc::protocol_error:
        case HttpErrc::response_too_large:
            return McpError{McpErrc::protocol_error, where + ": " + error.message};
        case HttpErrc::timeout:
        case HttpErrc::connection_closed:
            break;
    }
    return McpError{McpErrc::connection_closed, where + ": " + error.message};
}

/// The first `kExcerptBytes` of an error reply's body as printable text (untrusted: the server wrote it).
[[nodiscard]] inline std::string excerptOf(std::string text) {
    if (text.size() > kExcerptBytes) {
        text.resize(kExcerptBytes);
        text += "...";
    }
    for (char& c : text) {
        if (static_cast<unsigned char>(c) < 0x20) {
            c = ' ';
        }
    }
    return text;
}

/// A reply's body as the server sent it, read until `bytes` or more arrived (whole chunks) or it ended.
[[nodiscard]] inline Task<std::string> readBodyPrefix(http::HttpResponseStream stream, std::size_t bytes) {
    std::string text;
    while (text.size() < bytes && !stream.done()) {
        auto chunk = co_await stream.next();
        if (!chunk || !*chunk) {
            break;
        }
        text += **chunk;
    }
    co_return text;
}

/// `readBodyPrefix` within `kExcerptTimeout`; empty when nothing came in time. Never throws (to be
/// awaited from a driver with checked cancellation).
[[nodiscard]] inline Task<std::string> bodyPrefix(http::HttpResponseStream stream, std::size_t bytes) {
    auto body = co_await withTimeout(readBodyPrefix(std::move(stream), bytes), kExcerptTimeout);
    co_return body ? std::move(*body) : std::string();
}

/// The first bytes of an error reply's body as printable text (`excerptOf`), within `kExcerptTimeout`.
[[nodiscard]] inline Task<std::string> bodyExcerpt(http::HttpResponseStream stream) {
    std::string body = co_await bodyPrefix(std::move(stream), kExcerptBytes);
    co_return excerptOf(std::move(body));
}

/// Replaces each occurrence of `secret` (4 bytes or more: shorter values would mask ordinary text) in
/// `text` with `***`.
inline void maskSecret(std::string& text, std::string_view secret) {
    if (secret.size() < 4) {
        return;
    }
    for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at + 3)) {
        text.replace(at, secret.size(), "***");
    }
}

/// `text` with the value of every user header (4 bytes or more) replaced by `***`: a server may quote
/// the credentials it refused.
[[nodiscard]] inline std::string redactHeaderValues(std::string text, const ServerConfig& config) {
    for (const auto& [name, value] : config.headers) {
        maskSecret(text, value);
    }
    return text;
}

/// `HTTP 503 (Service Unavailable): <excerpt>`, what a refusal says (header values masked).
[[nodiscard]] inline std::string describeStatus(const http::HttpResponseHead& head,
                                                const std::string& excerpt, const ServerConfig& config) {
    std::string text = "HTTP " + std::to_string(head.status);
    if (!head.reason.empty()) {
        text += " (" + head.reason + ")";
    }
    if (!isBlank(excerpt)) {
        text += ": " + excerpt;
    }
    return redactHeaderValues(std::move(text), config);
}

/// Feeds `chunk` of an event stream to `parser` and hands each complete event to `onEvent`. An event,
/// or the part of one still buffered, larger than `maxBytes` is a `protocol_error`: the stream must then
/// be dropped, since its remaining bytes no longer parse as the server meant.
template <class OnEvent>
[[nodiscard]] expected<void, McpError> feedEvents(http::SseParser& parser, std::string_view chunk,
                                                  std::size_t maxBytes, const std::string& where,
                                                  OnEvent&& onEvent) {
    const auto tooLarge = [&](std::size_t size) {
        return McpError{McpErrc::protocol_error,
                        where + " sent an event of more than " + std::to_string(maxBytes) + " bytes (" +
                            std::to_string(size) + " so far; ServerConfig::limits.maxMessageBytes)"};
    };
    for (auto& event : parser.feed(chunk)) {
        if (event.data.size() > maxBytes) {
            return fail(tooLarge(event.data.size()));
        }
        onEvent(std::move(event));
    }
    if (parser.pendingBytes() > maxBytes) {
        return fail(tooLarge(parser.pendingBytes()));
    }
    return {};
}

/// Waits `delay`, or less when the caller is cancelled (no throw: the caller checks `isCancelled`).
[[nodiscard]] inline Task<void> pause(std::chrono::milliseconds delay) {
    const Executor executor = co_await boost::asio::this_coro::executor;
    boost::asio::steady_timer timer(executor, delay);
    co_await timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
}

}  // namespace reagent::mcp::detail
