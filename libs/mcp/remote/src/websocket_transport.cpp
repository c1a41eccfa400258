// The WebSocket transport, ws:// and wss://: each JSON-RPC frame is one text message, subprotocol `mcp`.
// The only source that instantiates Beast's WebSocket templates (and, for wss://, the TLS stream): keep it
// lean, it is among the slowest sources to compile; everything else sees the `Transport` interface.
//
// Shape: `open` connects, runs the TLS handshake (wss://) and the upgrade under a watchdog that closes the
// socket when `connectTimeout` passes; the caller's cancellation reaches each of those operations. Then two
// background coroutines run: the reader pushes every message into the `FrameQueue` that `receive` pops, the
// writer takes the frames `send` queued, one at a time, in call order. Neither is bound to a cancellation
// slot: closing the socket ends the reader, `finish` ends the writer. `close` fails what is queued, sends
// a normal close frame under a short watchdog, closes the socket and waits for both.

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/beast/websocket/stream.hpp>
#include <boost/url/parse.hpp>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frame_queue.hpp"
#include "reagent/core/cancellation.hpp"
#include "reagent/core/event.hpp"
#include "reagent/core/settle.hpp"
#include "reagent/http/redacted_url.hpp"
#include "reagent/mcp/remote_transports.hpp"

namespace reagent::mcp {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using boost::system::error_code;
using tcp = asio::ip::tcp;

// The next layer of the WebSocket stream for both schemes: TCP, with TLS on top for `wss://`. One type, so
// that Beast's WebSocket templates are instantiated once; each operation picks its layer at run time. The
// handlers and buffers Beast passes are erased to one type each (`any_completion_handler`, a vector of
// buffers), so the TCP and TLS operations are instantiated once too: this keeps the source's compile time
// and memory near those of a plain WebSocket.
class MaybeTlsStream {
  public:
    using executor_type = beast::tcp_stream::executor_type;
    using TlsLayer = beast::ssl_stream<beast::tcp_stream>;
    using IoHandler = asio::any_completion_handler<void(error_code, std::size_t)>;

    MaybeTlsStream(const Executor& executor, asio::ssl::context& context) : tls_(executor, context) {}

    executor_type get_executor() noexcept { return tls_.get_executor(); }
    // What `beast::get_lowest_layer` walks down to the TCP stream.
    TlsLayer& next_layer() noexcept { return tls_; }
    TlsLayer& tls() noexcept { return tls_; }
    [[nodiscard]] bool encrypted() const noexcept { return encrypted_; }
    void setEncrypted(bool encrypted) noexcept { encrypted_ = encrypted; }

    template <class Buffers, class Token>
    auto async_read_some(const Buffers& buffers, Token&& token) {  // NOLINT(readability-identifier-naming)
        return asio::async_initiate<Token, void(error_code, std::size_t)>(
            [this](IoHandler handler, const Buffers& data) {
                readSome(std::vector<asio::mutable_buffer>(asio::buffer_sequence_begin(data),
                                                           asio::buffer_sequence_end(data)),
                         std::move(handler));
            },
            token, buffers);
    }

    template <class Buffers, class Token>
    auto async_write_some(const Buffers& buffers, Token&& token) {  // NOLINT(readability-identifier-naming)
        return asio::async_initiate<Token, void(error_code, std::size_t)>(
            [this](IoHandler handler, const Buffers& data) {
                writeSome(std::vector<asio::const_buffer>(asio::buffer_sequence_begin(data),
                                                          asio::buffer_sequence_end(data)),
                          std::move(handler));
            },
            token, buffers);
    }

  private:
    // The erased handler runs on the stream's executor (the transport's one strand): Asio 1.26 cannot
    // post through the executor type that `any_completion_handler` reports. Its cancellation slot stays.
    void readSome(std::vector<asio::mutable_buffer> buffers, IoHandler handler) {
        auto bound = asio::bind_executor(tls_.get_executor(), std::move(handler));
        if (encrypted_) {
            tls_.async_read_some(std::move(buffers), std::move(bound));
        } else {
            tls_.next_layer().async_read_some(std::move(buffers), std::move(bound));
        }
    }

    void writeSome(std::vector<asio::const_buffer> buffers, IoHandler handler) {
        auto bound = asio::bind_executor(tls_.get_executor(), std::move(handler));
        if (encrypted_) {
            tls_.async_write_some(std::move(buffers), std::move(bound));
        } else {
            tls_.next_layer().async_write_some(std::move(buffers), std::move(bound));
        }
    }

    TlsLayer tls_;
    bool encrypted_ = false;
};

// How Beast's WebSocket stream shuts the layer below down after the close handshake (found by ADL).
template <class Handler>
void async_teardown(beast::role_type role, MaybeTlsStream& stream, Handler&& handler) {
    using websocket::async_teardown;
    if (stream.encrypted()) {
        async_teardown(role, stream.tls(), std::forward<Handler>(handler));
    } else {
        async_teardown(role, stream.tls().next_layer(), std::forward<Handler>(handler));
    }
}

using WsStream = websocket::stream<MaybeTlsStream>;

constexpr auto kAwait = asio::as_tuple(asio::use_awaitable);
/// How long `close` waits for the server to answer the close frame before it drops the connection.
constexpr std::chrono::milliseconds kCloseTimeout{1000};
constexpr const char* kSubprotocol = "mcp";
constexpr std::string_view kBadNameChars{":\r\n\0 \t", 6};
constexpr std::string_view kBadValueChars{"\r\n\0", 3};

// Clean-up steps (the close handshake) that the caller's cancellation must not cut short.
auto unslotted() {
    return asio::bind_cancellation_slot(asio::cancellation_slot(), kAwait);
}

McpError error(McpErrc code, std::string message) {
    return McpError{code, std::move(message)};
}

std::string millis(std::chrono::milliseconds limit) {
    return std::to_string(limit.count()) + " ms";
}

// Where to connect and what to ask for, from a `ws://` or `wss://` URL.
struct Endpoint {
    bool tls = false;
    std::string host;
    std::string port;
    std::string hostHeader;
    std::string target;
};

expected<Endpoint, McpError> parseEndpoint(const ServerConfig& config) {
    const auto shown = http::redactedUrl(config.url);
    auto url = boost::urls::parse_absolute_uri(config.url);
    if (!url) {
        return fail(error(McpErrc::invalid_config,
                          "server '" + config.name + "': url " + shown + " is not an absolute URL"));
    }
    const bool tls = url->scheme_id() == boost::urls::scheme::wss;
    if (!tls && url->scheme_id() != boost::urls::scheme::ws) {
        return fail(error(McpErrc::invalid_config,
                          "server '" + config.name + "': url " + shown + " is not a ws:// or wss:// URL"));
    }
    if (url->host_address().empty()) {
        return fail(
            error(McpErrc::invalid_config, "server '" + config.name + "': url " + shown + " has no host"));
    }
    Endpoint endpoint;
    endpoint.tls = tls;
    endpoint.host = url->host_address();
    endpoint.port = url->has_port() ? std::string(url->port()) : std::string(tls ? "443" : "80");
    endpoint.hostHeader = url->encoded_host_and_port();
    endpoint.target = url->encoded_path().empty() ? std::string("/") : std::string(url->encoded_path());
    if (url->has_query()) {
        endpoint.target += "?" + std::string(url->encoded_query());
    }
    return endpoint;
}

// Header names and values go out verbatim on the upgrade request; a line break would split it.
expected<void, McpError> checkHeaders(const ServerConfig& config) {
    for (const auto& [name, value] : config.headers) {
        const bool badName = name.empty() || name.find_first_of(kBadNameChars) != std::string::npos;
        const bool badValue = value.find_first_of(kBadValueChars) != std::string::npos;
        if (badName || badValue) {
            // The value may be a secret: name the header only.
            return fail(error(McpErrc::invalid_config, "server '" + config.name + "': header '" + name +
                                                           "' has a name or value that cannot be sent"));
        }
    }
    return {};
}

// A frame `send` queued, and where the writer reports how its write ended.
struct SendSlot {
    explicit SendSlot(const Executor& executor) : wake(executor) {}
    void settleWith(expected<void, McpError> outcome) {
        result = std::move(outcome);
        wake.set();
    }
    Event wake;
    std::optional<expected<void, McpError>> result;
};

struct Outgoing {
    std::string frame;
    std::shared_ptr<SendSlot> slot;
};

// Shared by the transport and its background coroutines: it lives until the last of them ends.
struct State {
    explicit State(ServerConfig serverConfig)
        : config(std::move(serverConfig)), shownUrl(http::redactedUrl(config.url)) {}

    ServerConfig config;
    std::string shownUrl;
    std::optional<tcp::resolver> resolver;
    // Before `ws`, which refers to it.
    std::optional<asio::ssl::context> tlsContext;
    std::optional<WsStream> ws;
    std::optional<detail::FrameQueue> frames;
    // Set when the writer has something to do: a frame queued, or the end.
    std::optional<Event> writerWake;
    // Background coroutines still running, and the event their ends set.
    int running = 0;
    std::optional<Event> stoppedWake;
    std::deque<Outgoing> outbox;
    // Once set, `send` fails with it: the connection ended or the client closed it.
    std::optional<McpError> ended;
    bool opening = false;
    bool opened = false;
    bool closed = false;

    void closeSocket() noexcept {
        error_code ignored;
        if (resolver) {
            resolver->cancel();
        }
        if (ws) {
            beast::get_lowest_layer(*ws).socket().close(ignored);
        }
    }

    // The transport is finished: `receive` returns `why` once the frames already read are taken, and every
    // `send`, queued or to come, fails with it. The first call wins.
    void finish(const McpError& why) {
        if (!ended) {
            ended = why;
        }
        if (frames) {
            frames->finish(why);
        }
        while (!outbox.empty()) {
            outbox.front().slot->settleWith(unexpected(*ended));
            outbox.pop_front();
        }
        if (writerWake) {
            writerWake->set();
        }
    }
};

// Closes the socket if `limit` passes before it is dismissed, so that the operation in progress ends.
class Watchdog {
  public:
    Watchdog(const Executor& executor, const std::shared_ptr<State>& state, std::chrono::milliseconds limit)
        : timer_(executor, limit), fired_(std::make_shared<bool>(false)) {
        timer_.async_wait([state, fired = fired_](error_code ec) {
            if (!ec) {
                *fired = true;
                state->closeSocket();
            }
        });
    }
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;
    ~Watchdog() { timer_.cancel(); }

    [[nodiscard]] bool fired() const noexcept { return *fired_; }

  private:
    asio::steady_timer timer_;
    std::shared_ptr<bool> fired_;
};

// The message of a connection the server ended, with the close code and reason it gave.
McpError connectionLost(const State& state, const error_code& ec) {
    if (ec == websocket::error::closed) {
        const auto& reason = state.ws->reason();
        std::string message = "the server closed the WebSocket connection (";
        message += reason.code == websocket::close_code::none ? std::string("no close code")
                                                              : "code " + std::to_string(reason.code);
        if (!reason.reason.empty()) {
            // Untrusted text from the server, shown as data.
            message += ": " + std::string(reason.reason.c_str());
        }
        return error(McpErrc::connection_closed, message + ")");
    }
    return error(McpErrc::connection_closed,
                 "the WebSocket connection to " + state.shownUrl + " was lost: " + ec.message());
}

// Counts a background coroutine as running for as long as its frame lives.
class Running {
  public:
    explicit Running(std::shared_ptr<State> state) : state_(std::move(state)) { ++state_->running; }
    Running(const Running&) = delete;
    Running& operator=(const Running&) = delete;
    ~Running() {
        --state_->running;
        state_->stoppedWake->set();
    }

  private:
    std::shared_ptr<State> state_;
};

// Reads messages until the connection ends; each text message is one frame.
Task<void> readLoop(std::shared_ptr<State> state) {
    const Running running(state);
    for (;;) {
        beast::flat_buffer buffer;
        auto [ec, size] = co_await state->ws->async_read(buffer, kAwait);
        if (state->closed) {
            co_return;  // `close` already reported the end
        }
        if (ec == websocket::error::message_too_big) {
            state->finish(error(McpErrc::protocol_error,
                                "a message from the server exceeds the limit of " +
                                    std::to_string(state->config.limits.maxMessageBytes) + " bytes"));
            co_return;
        }
        if (ec) {
            state->finish(connectionLost(*state, ec));
            co_return;
        }
        if (!state->ws->got_text()) {
            state->finish(error(McpErrc::protocol_error, "the server sent a binary WebSocket message (" +
                                                             std::to_string(size) +
                                                             " bytes); MCP frames are text messages"));
            co_return;
        }
        state->frames->push(beast::buffers_to_string(buffer.data()));
    }
}

// Writes the queued frames one at a time, in the order `send` queued them.
Task<void> writeLoop(std::shared_ptr<State> state) {
    const Running running(state);
    for (;;) {
        if (state->outbox.empty()) {
            if (state->ended) {
                co_return;
            }
            state->writerWake->reset();
            (void)co_await state->writerWake->wait(asio::use_awaitable);
            continue;
        }
        Outgoing item = std::move(state->outbox.front());
        state->outbox.pop_front();
        auto [ec, written] = co_await state->ws->async_write(asio::buffer(item.frame), kAwait);
        if (ec) {
            auto why = state->ended ? *state->ended : connectionLost(*state, ec);
            item.slot->settleWith(unexpected(why));
            state->finish(why);
            co_return;
        }
        item.slot->settleWith({});
    }
}

McpError openFailed(State& state, const std::string& step, const error_code& ec, const Watchdog& watchdog,
                    bool cancelled) {
    state.closeSocket();
    state.closed = true;
    if (cancelled) {
        return error(McpErrc::cancelled, "opening the WebSocket to " + state.shownUrl + " was cancelled");
    }
    if (watchdog.fired()) {
        return error(McpErrc::connect_failed, "the WebSocket to " + state.shownUrl + " did not open within " +
                                                  millis(state.config.connectTimeout) + " (" + step + ")");
    }
    return error(McpErrc::connect_failed,
                 "could not " + step + " for the WebSocket to " + state.shownUrl + ": " + ec.message());
}

// Makes the stream; for `wss://` with the system's trusted certificates, SNI, and a check that the
// certificate names the host.
expected<void, McpError> prepareStream(State& state, const Endpoint& endpoint, const Executor& executor) {
    state.tlsContext.emplace(asio::ssl::context::tls_client);
    error_code ec;
    if (endpoint.tls) {
        state.tlsContext->set_default_verify_paths(ec);
        if (!ec) {
            state.tlsContext->set_verify_mode(asio::ssl::verify_peer, ec);
        }
        if (ec) {
            return fail(error(McpErrc::connect_failed, "could not load the trusted certificates for " +
                                                           state.shownUrl + ": " + ec.message()));
        }
    }
    state.ws.emplace(executor, *state.tlsContext);
    auto& layer = state.ws->next_layer();
    layer.setEncrypted(endpoint.tls);
    if (!endpoint.tls) {
        return {};
    }
    error_code notAnAddress;
    (void)asio::ip::make_address(endpoint.host, notAnAddress);
    // SNI takes host names only, not IP addresses.
    if (notAnAddress && SSL_set_tlsext_host_name(layer.tls().native_handle(), endpoint.host.c_str()) != 1) {
        return fail(
            error(McpErrc::connect_failed, "could not set the TLS server name for " + state.shownUrl));
    }
    layer.tls().set_verify_callback(asio::ssl::host_name_verification(endpoint.host), ec);
    if (ec) {
        return fail(error(McpErrc::connect_failed,
                          "could not set up certificate checks for " + state.shownUrl + ": " + ec.message()));
    }
    return {};
}

void configureStream(State& state) {
    auto& ws = *state.ws;
    // The watchdogs bound opening and closing; an established connection may stay quiet indefinitely.
    websocket::stream_base::timeout timeouts{};
    timeouts.handshake_timeout = state.config.connectTimeout;
    timeouts.idle_timeout = websocket::stream_base::none();
    timeouts.keep_alive_pings = false;
    ws.set_option(timeouts);
    ws.read_message_max(state.config.limits.maxMessageBytes);
    ws.text(true);
    auto headers = state.config.headers;
    ws.set_option(websocket::stream_base::decorator([headers](websocket::request_type& request) {
        for (const auto& [name, value] : headers) {
            request.set(name, value);
        }
        request.set(beast::http::field::sec_websocket_protocol, kSubprotocol);
    }));
}

// Resolves, connects, runs the TLS handshake for wss:// and the upgrade, all before `connectTimeout`;
// the server's answer to the upgrade.
Task<expected<websocket::response_type, McpError>> upgrade(std::shared_ptr<State> state, Endpoint endpoint) {
    const Executor executor = co_await asio::this_coro::executor;
    const Watchdog watchdog(executor, state, state->config.connectTimeout);
    auto [resolveError, addresses] =
        co_await state->resolver->async_resolve(endpoint.host, endpoint.port, kAwait);
    if (resolveError) {
        const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
        co_return fail(openFailed(*state, "resolve " + endpoint.host, resolveError, watchdog, cancelled));
    }
    auto [connectError, address] =
        co_await beast::get_lowest_layer(*state->ws).async_connect(addresses, kAwait);
    if (connectError) {
        const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
        co_return fail(openFailed(*state, "connect", connectError, watchdog, cancelled));
    }
    if (endpoint.tls) {
        auto [tlsError] =
            co_await state->ws->next_layer().tls().async_handshake(asio::ssl::stream_base::client, kAwait);
        if (tlsError) {
            const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
            co_return fail(openFailed(*state, "complete the TLS handshake with " + endpoint.host, tlsError,
                                      watchdog, cancelled));
        }
    }
    websocket::response_type response;
    auto [handshakeError] =
        co_await state->ws->async_handshake(response, endpoint.hostHeader, endpoint.target, kAwait);
    if (handshakeError == websocket::error::upgrade_declined) {
        state->closeSocket();
        state->closed = true;
        co_return fail(error(McpErrc::connect_failed, "the server at " + state->shownUrl +
                                                          " refused the WebSocket upgrade with HTTP " +
                                                          std::to_string(response.result_int()) + " " +
                                                          std::string(response.reason().substr(0, 80))));
    }
    if (handshakeError) {
        const bool cancelled = isCancelled(co_await asio::this_coro::cancellation_state);
        co_return fail(
            openFailed(*state, "complete the WebSocket handshake", handshakeError, watchdog, cancelled));
    }
    co_return response;
}

Task<expected<void, McpError>> openWebSocket(std::shared_ptr<State> state) {
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        co_return fail(error(McpErrc::cancelled, "opening the WebSocket was cancelled"));
    }
    if (state->opening || state->closed) {
        co_return fail(error(McpErrc::connect_failed, "the WebSocket transport to " + state->shownUrl +
                                                          " was already opened or closed"));
    }
    state->opening = true;
    auto endpoint = parseEndpoint(state->config);
    auto headers = checkHeaders(state->config);
    const Executor executor = co_await asio::this_coro::executor;
    auto prepared =
        endpoint && headers ? prepareStream(*state, *endpoint, executor) : expected<void, McpError>{};
    if (!endpoint || !headers || !prepared) {
        state->closed = true;
        co_return fail(!endpoint ? endpoint.error() : !headers ? headers.error() : prepared.error());
    }
    state->resolver.emplace(executor);
    state->frames.emplace(executor);
    configureStream(*state);

    auto upgrading = upgrade(state, std::move(*endpoint));
    auto response = co_await std::move(upgrading);
    if (!response) {
        co_return fail(response.error());
    }
    const auto selected = (*response)[beast::http::field::sec_websocket_protocol];
    if (selected != kSubprotocol) {
        state->closeSocket();
        state->closed = true;
        const std::string chose =
            selected.empty() ? std::string("none") : "'" + std::string(selected.substr(0, 80)) + "'";
        co_return fail(error(McpErrc::connect_failed,
                             "the server at " + state->shownUrl +
                                 " did not accept the WebSocket subprotocol 'mcp' (it selected " + chose +
                                 ")"));
    }
    if (state->closed) {
        // `close` ran while the upgrade was in progress.
        state->closeSocket();
        co_return fail(error(McpErrc::connection_closed, "the WebSocket transport was closed while opening"));
    }
    state->opened = true;
    state->writerWake.emplace(executor);
    state->stoppedWake.emplace(executor);
    asio::co_spawn(executor, readLoop(state), asio::detached);
    asio::co_spawn(executor, writeLoop(state), asio::detached);
    co_return expected<void, McpError>{};
}

Task<expected<void, McpError>> sendFrame(std::shared_ptr<State> state, std::string frame) {
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        co_return fail(error(McpErrc::cancelled, "send cancelled"));
    }
    if (!state->opened) {
        co_return fail(error(McpErrc::connection_closed, "the WebSocket transport is not open"));
    }
    if (state->ended) {
        co_return fail(*state->ended);
    }
    auto slot = std::make_shared<SendSlot>(co_await asio::this_coro::executor);
    state->outbox.push_back(Outgoing{std::move(frame), slot});
    state->writerWake->set();
    for (;;) {
        if (slot->result) {
            co_return std::move(*slot->result);
        }
        (void)co_await slot->wake.wait(asio::use_awaitable);
        if (!slot->result && isCancelled(co_await asio::this_coro::cancellation_state)) {
            // A frame not yet started is withdrawn; one being written goes out whole all the same.
            for (auto it = state->outbox.begin(); it != state->outbox.end(); ++it) {
                if (it->slot == slot) {
                    state->outbox.erase(it);
                    break;
                }
            }
            co_return fail(error(McpErrc::cancelled, "send cancelled"));
        }
    }
}

Task<expected<std::string, McpError>> receiveFrame(std::shared_ptr<State> state) {
    if (isCancelled(co_await asio::this_coro::cancellation_state)) {
        co_return fail(error(McpErrc::cancelled, "receive cancelled"));
    }
    if (!state->opened) {
        co_return fail(error(McpErrc::connection_closed, "the WebSocket transport is not open"));
    }
    // Bound to a local first: g++ 12 with UBSan traps on `co_return co_await` here.
    auto frame = co_await state->frames->pop();
    co_return frame;
}

// Runs with checked cancellation: every step happens even when the caller was cancelled.
Task<void> closeWebSocket(std::shared_ptr<State> state) {
    if (state->closed) {
        co_return;
    }
    state->closed = true;
    const McpError closedByClient = error(McpErrc::connection_closed, "the WebSocket transport was closed");
    state->finish(closedByClient);
    if (!state->opened) {
        state->closeSocket();
        co_return;
    }
    if (state->ws->is_open()) {
        const Executor executor = co_await asio::this_coro::executor;
        websocket::stream_base::timeout timeouts{};
        timeouts.handshake_timeout = kCloseTimeout;
        timeouts.idle_timeout = websocket::stream_base::none();
        timeouts.keep_alive_pings = false;
        state->ws->set_option(timeouts);
        const Watchdog watchdog(executor, state, kCloseTimeout);
        const websocket::close_reason normal(websocket::close_code::normal);
        // How the close handshake ends changes nothing: the socket is closed next either way.
        auto closing = co_await state->ws->async_close(normal, unslotted());
        (void)closing;
    }
    state->closeSocket();
    // The reader ends on the closed socket, the writer on `finish`.
    while (state->running > 0) {
        state->stoppedWake->reset();
        auto stopped = co_await state->stoppedWake->wait(unslotted());
        (void)stopped;
    }
}

class WebSocketTransport final : public Transport {
  public:
    explicit WebSocketTransport(ServerConfig config) : state_(std::make_shared<State>(std::move(config))) {}
    WebSocketTransport(const WebSocketTransport&) = delete;
    WebSocketTransport& operator=(const WebSocketTransport&) = delete;

    // Without `close`, the connection is dropped (no close frame) and the background coroutines end.
    ~WebSocketTransport() override {
        if (!state_->closed) {
            state_->closed = true;
            state_->finish(error(McpErrc::connection_closed, "the WebSocket transport was destroyed"));
        }
        state_->closeSocket();
    }

    // Not coroutines themselves: each hands the shared state to the coroutine that does the work.
    Task<expected<void, McpError>> open() override { return openWebSocket(state_); }
    Task<expected<void, McpError>> send(std::string frame) override {
        return sendFrame(state_, std::move(frame));
    }
    Task<expected<std::string, McpError>> receive() override { return receiveFrame(state_); }
    Task<void> close() override { return withCheckedCancellation(closeWebSocket(state_)); }

  private:
    std::shared_ptr<State> state_;
};

}  // namespace

std::unique_ptr<Transport> makeWebSocketTransport(const ServerConfig& config) {
    return std::make_unique<WebSocketTransport>(config);
}

}  // namespace reagent::mcp
